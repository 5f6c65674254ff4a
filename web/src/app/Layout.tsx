import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { NavLink, useNavigate } from "react-router";
import { api, call } from "../api/client";
import { rememberProjectId } from "../api/project";
import type { useMe } from "../api/session";
import { areas } from "./areas";
import { ProjectSwitcher } from "./ProjectSwitcher";

type Me = NonNullable<ReturnType<typeof useMe>["data"]>;

export function Layout({ me, children }: { me: Me; children: ReactNode }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => call(api.POST("/api/auth/logout")),
    onSettled: () => {
      rememberProjectId(null);
      queryClient.clear();
      navigate("/signin", { replace: true });
    },
  });

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Lift</span>
        <span className="workspace" title="Workspace">
          {me.workspace.name}
        </span>
        <div className="topbar-end">
          <ProjectSwitcher isAdmin={me.user.role === "admin"} />
          <span className="user">{me.user.email}</span>
          <button type="button" className="button secondary" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="nav" aria-label="Main">
        <ul>
          {areas.map((a) => (
            <li key={a.path}>
              <NavLink to={a.path} end={a.path === "/"}>
                {a.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="page" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
