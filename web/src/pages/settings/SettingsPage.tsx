import { useMe } from "../../api/session";
import { PageHeader } from "../../components/states";
import { ErasuresSection } from "./ErasuresSection";
import { MembersSection } from "./MembersSection";
import { PasswordSection } from "./PasswordSection";
import { ProjectsSection } from "./ProjectsSection";
import { WorkspaceSection } from "./WorkspaceSection";

/** Settings: workspace, members, projects and their keys, the snippet, erasures. Admin-only parts are hidden for members. */
export default function SettingsPage() {
  const me = useMe();
  const isAdmin = me.data?.user.role === "admin";
  return (
    <>
      <PageHeader title="Settings" />
      <WorkspaceSection isAdmin={isAdmin} />
      <PasswordSection />
      {isAdmin ? (
        <>
          <MembersSection selfId={me.data!.user.id} />
          <ProjectsSection />
          <ErasuresSection />
        </>
      ) : (
        <p className="muted">
          Members, projects, keys and the snippet are managed by the workspace's admins.
        </p>
      )}
    </>
  );
}
