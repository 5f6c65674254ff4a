import { Link, NavLink, Route, Routes, useLocation } from "react-router";
import { useMe } from "../../api/session";
import { PageHeader } from "../../components/states";
import { KeysSection } from "./KeysSection";
import { SendDetailPage, SendsSection } from "./SendsSection";
import { SuppressionsSection } from "./SuppressionsSection";
import { TemplateEditor } from "./TemplateEditor";
import { TemplatesSection } from "./TemplatesSection";

/** Email: transactional keys, templates with a live preview, recent sends, the suppression list. */
export default function EmailPage() {
  const me = useMe();
  const { pathname } = useLocation();
  // A template's editor is part of "Templates" in the sub-navigation.
  const onTemplates =
    pathname === "/email" || pathname === "/email/" || pathname.startsWith("/email/templates/");
  const isAdmin = me.data?.user.role === "admin";
  const admin = (el: React.ReactNode) =>
    isAdmin ? (
      el
    ) : (
      <p className="muted">Keys, sends and suppressions are managed by the workspace's admins.</p>
    );
  return (
    <>
      <PageHeader title="Email" />
      <nav className="subnav" aria-label="Email sections">
        <Link to="/email" aria-current={onTemplates ? "page" : undefined}>
          Templates
        </Link>
        <NavLink to="/email/sends">Recent sends</NavLink>
        <NavLink to="/email/keys">API keys</NavLink>
        <NavLink to="/email/suppressions">Suppressions</NavLink>
      </nav>
      <Routes>
        <Route index element={<TemplatesSection isAdmin={isAdmin} />} />
        <Route path="templates/:id" element={<TemplateEditor isAdmin={isAdmin} />} />
        <Route path="sends" element={admin(<SendsSection />)} />
        <Route path="sends/:id" element={admin(<SendDetailPage />)} />
        <Route path="keys" element={admin(<KeysSection />)} />
        <Route path="suppressions" element={admin(<SuppressionsSection />)} />
      </Routes>
    </>
  );
}
