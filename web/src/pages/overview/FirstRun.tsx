import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { useProjectId } from "../../api/project";
import { useMe, useProjects } from "../../api/session";
import { CopyCode } from "../../components/CopyButton";
import { liftSnippet, serverHost } from "../../components/snippet";
import { Card, PageHeader } from "../../components/states";
import { overviewKeys } from "./model";

/** How often an empty project asks whether its first event has arrived. */
const POLL_MS = 2_000;

/**
 * Whether the project has received anything: polled while it has not, so the overview replaces
 * the first run as soon as the first event is stored.
 */
export function useHasEvents() {
  return useQuery({
    queryKey: overviewKeys.eventStatus,
    queryFn: () => call(api.GET("/api/events/status")),
    refetchInterval: (q) => (q.state.data?.hasEvents ? false : POLL_MS),
  });
}

/** The project the dashboard shows, as the switcher picks it (admins can list projects). */
function useCurrentProject(isAdmin: boolean) {
  const projects = useProjects(isAdmin);
  const remembered = useProjectId();
  const list = projects.data ?? [];
  return list.find((p) => p.id === remembered) ?? list[list.length - 1];
}

/** An empty project: the snippet with its key, and a live wait for the first event. */
export function FirstRun() {
  const me = useMe();
  const isAdmin = me.data?.user.role === "admin";
  const project = useCurrentProject(isAdmin);
  const snippet = project ? liftSnippet(serverHost(), project.publicKey) : null;
  return (
    <>
      <PageHeader title="Overview" />
      <Card title={project ? `Install Lift on ${project.name}'s site` : "Install Lift on your site"}>
        {snippet ? (
          <>
            <p className="muted">
              Put this in the <code>&lt;head&gt;</code> of every page. It records pageviews and applies your
              experiments.
            </p>
            <CopyCode code={snippet} label="Copy snippet" testId="first-run-snippet" />
            <p className="muted small">
              From a server, send events to <code>POST /api/events</code> with an API key from{" "}
              <Link to="/settings">Settings</Link>.
            </p>
          </>
        ) : (
          <p className="muted">Ask a workspace admin for the snippet: it is under Settings.</p>
        )}
      </Card>
      <div className="waiting" role="status" aria-live="polite">
        <span className="pulse-dot" aria-hidden="true" />
        Waiting for your first event… This page turns into the overview as soon as it arrives.
      </div>
    </>
  );
}
