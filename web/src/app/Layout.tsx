import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { NavLink, useLocation, useNavigate } from "react-router";
import { api, call } from "../api/client";
import { rememberProjectId } from "../api/project";
import type { useMe } from "../api/session";
import { areas } from "./areas";
import { ProjectSwitcher } from "./ProjectSwitcher";

type Me = NonNullable<ReturnType<typeof useMe>["data"]>;

export function Layout({ me, children }: { me: Me; children: ReactNode }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  // Phones (≤ 640 px, CSS): the navigation, project switcher and account sit behind one button,
  // so the page starts right under the top bar. Wider screens show them and never see the button.
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes the menu whenever the page changes
  useEffect(() => setMenuOpen(false), [location.pathname]);
  const signOut = useMutation({
    mutationFn: () => call(api.POST("/api/auth/logout")),
    onSettled: () => {
      rememberProjectId(null);
      queryClient.clear();
      navigate("/signin", { replace: true });
    },
  });
  const open = menuOpen ? " open" : "";

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
        <button
          type="button"
          className="button secondary menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen((o) => !o)}
        >
          {menuOpen ? "Close menu" : "Menu"}
        </button>
        <div className={`topbar-end${open}`}>
          <ProjectSwitcher isAdmin={me.user.role === "admin"} />
          <span className="user">{me.user.email}</span>
          <button type="button" className="button secondary" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </div>
      </header>
      <nav className={`nav${open}`} id="main-menu" aria-label="Main">
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
