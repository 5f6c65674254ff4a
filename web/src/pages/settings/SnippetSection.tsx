import { CopyCode } from "../../components/CopyButton";
import { liftSnippet, serverHost } from "../../components/snippet";
import { Card } from "../../components/states";

/** The install code for the project's site: its public key (safe in pages) filled in. */
export function SnippetSection({ project }: { project: { name: string; publicKey: string } }) {
  const code = liftSnippet(serverHost(), project.publicKey);
  return (
    <Card title={`Install the snippet on ${project.name}'s site`}>
      <p className="muted">
        Put this in the <code>&lt;head&gt;</code> of every page: it tracks pageviews, clicks and form submits
        and applies running experiments.
      </p>
      <CopyCode code={code} label="Copy snippet" testId="snippet" />
    </Card>
  );
}
