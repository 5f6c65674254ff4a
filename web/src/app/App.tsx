import { useQueryClient } from "@tanstack/react-query";
import { Suspense, lazy, useEffect } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";
import { ApiError, onUnauthorized } from "../api/client";
import { sessionKeys, useMe } from "../api/session";
import { ErrorState, PageSkeleton } from "../components/states";
import { ComingSoonPage } from "../pages/coming-soon/ComingSoonPage";
import NotFoundPage from "../pages/not-found/NotFoundPage";
import SignInPage from "../pages/signin/SignInPage";
import { areas } from "./areas";
import { Layout } from "./Layout";

// Public pages: a shared dashboard and an invitation's link work without signing in.
const SharedDashboardPage = lazy(() => import("../pages/share/SharedDashboardPage"));
const AcceptInvitePage = lazy(() => import("../pages/invite/AcceptInvitePage"));
const PUBLIC_PAGES: [RegExp, React.LazyExoticComponent<() => React.JSX.Element>][] = [
  [/^\/share\/[^/]+$/, SharedDashboardPage],
  [/^\/invite\/[^/]+$/, AcceptInvitePage],
];

/** Signed out → sign-in (coming back to the page asked for); signed in → the layout and its areas. */
export function App() {
  const me = useMe();
  const location = useLocation();
  const queryClient = useQueryClient();

  // A 401 from any call means the session ended: re-check it, which sends the app to sign-in.
  useEffect(
    () => onUnauthorized(() => void queryClient.invalidateQueries({ queryKey: sessionKeys.me })),
    [queryClient],
  );

  if (location.pathname === "/signin") return <SignInPage />;
  const Public = PUBLIC_PAGES.find(([path]) => path.test(location.pathname))?.[1];
  if (Public)
    return (
      <Suspense fallback={<PageSkeleton />}>
        <Routes>
          <Route path="/share/:token" element={<Public />} />
          <Route path="/invite/:token" element={<Public />} />
        </Routes>
      </Suspense>
    );
  if (me.isPending) return <PageSkeleton label="Loading Lift" />;
  if (me.error instanceof ApiError && me.error.status === 401) {
    const next = location.pathname + location.search;
    return <Navigate replace to={next === "/" ? "/signin" : `/signin?next=${encodeURIComponent(next)}`} />;
  }
  if (me.isError)
    return (
      <main className="page">
        <ErrorState error={me.error} retry={() => void me.refetch()} />
      </main>
    );

  return (
    <Layout me={me.data}>
      <Suspense fallback={<PageSkeleton />}>
        <Routes>
          {areas.map(({ path, label, page: Page }) => (
            <Route
              key={path}
              path={path === "/" ? "/" : `${path}/*`}
              element={Page ? <Page /> : <ComingSoonPage title={label} />}
            />
          ))}
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </Suspense>
    </Layout>
  );
}
