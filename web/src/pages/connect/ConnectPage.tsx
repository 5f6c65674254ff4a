import { Link } from "react-router";
import { useProjectId } from "../../api/project";
import { useMe, useProjects } from "../../api/session";
import { CopyCode } from "../../components/CopyButton";
import { serverHost } from "../../components/snippet";
import { Card, ErrorState, PageHeader, PageSkeleton } from "../../components/states";
import { type Family, families, SECRET_PLACEHOLDER } from "./snippets";

/** Stands for the public key where the reader cannot see it (members: the project list is admins'). */
const PUBLIC_PLACEHOLDER = "<your public key>";

/**
 * Connect: the setup lines of every SDK family Lift speaks, with this server's host and the
 * current project's public key filled in. Secret keys are never shown again after creation, so
 * their place holds a placeholder and a link to where keys are made.
 */
export default function ConnectPage() {
  const me = useMe();
  const isAdmin = me.data?.user.role === "admin";
  const projects = useProjects(isAdmin);
  const remembered = useProjectId();
  if (me.isPending || (isAdmin && projects.isPending)) return <PageSkeleton label="Loading the project" />;
  if (projects.isError) return <ErrorState error={projects.error} retry={() => void projects.refetch()} />;
  const list = projects.data ?? [];
  // the project the header's switcher shows, as Settings picks it
  const project = list.find((p) => p.id === remembered) ?? list[list.length - 1];
  const host = serverHost();
  const publicKey = project?.publicKey ?? PUBLIC_PLACEHOLDER;
  return (
    <>
      <PageHeader title="Connect" />
      <p className="muted">
        {project ? (
          <>
            Setup for <strong>{project.name}</strong> on <code>{host}</code>, with its public key{" "}
            <code data-testid="connect-public-key">{publicKey}</code> (safe in pages).
          </>
        ) : (
          <>
            Setup for <code>{host}</code>. The project's public key is listed under Settings, which workspace
            admins see; it goes where <code>{PUBLIC_PLACEHOLDER}</code> stands.
          </>
        )}{" "}
        Server SDKs take a secret API key: it is shown once, when created, so{" "}
        <code>{SECRET_PLACEHOLDER}</code> stands for it — create one under{" "}
        <Link to="/settings">Settings → API keys</Link>.
      </p>
      {families.map((f) => (
        <FamilyCard key={f.id} family={f} host={host} publicKey={publicKey} />
      ))}
    </>
  );
}

function FamilyCard({ family, host, publicKey }: { family: Family; host: string; publicKey: string }) {
  return (
    <Card title={family.title}>
      <p className="muted">{family.intro}</p>
      {family.snippets.map((s) => {
        const code = s.code(host, publicKey);
        return (
          <div key={s.id} className="connect-snippet">
            <h3 className="small">{s.label}</h3>
            <CopyCode code={code} label={`Copy: ${s.label}`} testId={`snippet-${s.id}`} />
            {s.secret && (
              <p className="muted small">
                Replace <code>{SECRET_PLACEHOLDER}</code> with a secret key from{" "}
                <Link to="/settings">Settings → API keys</Link>.
              </p>
            )}
          </div>
        );
      })}
      <p className="muted small">
        Guide: <code>{family.guide}</code> in Lift's repository ·{" "}
        <a href={family.link.href} target="_blank" rel="noreferrer">
          {family.link.text}
        </a>
      </p>
    </Card>
  );
}
