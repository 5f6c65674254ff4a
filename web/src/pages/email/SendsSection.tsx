import { emailKeys } from "./model";
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";

const at = (iso: string) => `${iso.slice(0, 19).replace("T", " ")} UTC`;

/** The latest transactional sends (sandbox ones marked), each linking to its delivery timeline. */
export function SendsSection() {
  const sends = useQuery({
    queryKey: emailKeys.sends,
    queryFn: () => call(api.GET("/api/transactional/recent", { params: { query: { limit: 100 } } })),
  });
  return (
    <Card
      title="Recent sends"
      actions={
        <button type="button" className="button secondary small" onClick={() => void sends.refetch()}>
          Refresh
        </button>
      }
    >
      {sends.isPending ? (
        <PageSkeleton label="Loading sends" />
      ) : sends.isError ? (
        <ErrorState error={sends.error} retry={() => void sends.refetch()} />
      ) : sends.data.length === 0 ? (
        <EmptyState title="No email sent yet">
          <span className="break-all">
            Send with a transactional key (<code>POST /api/v1/transactional/send</code>); sends appear here.
          </span>
        </EmptyState>
      ) : (
        <DataTable
          caption="Recent sends"
          rows={sends.data}
          rowKey={(s) => s.id}
          columns={[
            {
              header: "To",
              cell: (s) => (
                <Link className="break-all" to={`/email/sends/${s.id}`}>
                  {s.to}
                </Link>
              ),
            },
            { header: "Subject", cell: (s) => s.subject },
            {
              header: "Status",
              cell: (s) => (
                <>
                  {s.status}
                  {s.sandbox && <span className="badge"> sandbox</span>}
                </>
              ),
            },
            { header: "Template", cell: (s) => s.commId ?? "—" },
            { header: "Sent", cell: (s) => at(s.createdAt) },
          ]}
        />
      )}
    </Card>
  );
}

/** One send: its fields and the delivery timeline (queued, sent, delivered, opened, bounced…). */
export function SendDetailPage() {
  const { id = "" } = useParams();
  const send = useQuery({
    queryKey: emailKeys.send(id),
    queryFn: () => call(api.GET("/api/transactional/sends/{id}", { params: { path: { id } } })),
  });
  if (send.isPending) return <PageSkeleton label="Loading the send" />;
  if (send.isError) return <ErrorState error={send.error} retry={() => void send.refetch()} />;
  const s = send.data;
  return (
    <Card title={`Send to ${s.to}`} actions={<Link to="/email/sends">All sends</Link>}>
      <dl className="facts">
        <dt>Subject</dt>
        <dd>{s.subject}</dd>
        <dt>Status</dt>
        <dd data-testid="send-status">
          {s.status}
          {s.sandbox ? " (sandbox)" : ""}
        </dd>
        <dt>Template</dt>
        <dd>{s.commId ?? "—"}</dd>
        <dt>Message id</dt>
        <dd className="break-all">{s.messageId ?? "—"}</dd>
        <dt>Attempts</dt>
        <dd>{s.attempts}</dd>
        {s.error && (
          <>
            <dt>Error</dt>
            <dd>{s.error}</dd>
          </>
        )}
      </dl>
      <h3>Timeline</h3>
      {s.timeline.length === 0 ? (
        <EmptyState title="No delivery events yet" />
      ) : (
        <ol className="timeline" aria-label="Delivery timeline">
          {s.timeline.map((e) => (
            <li key={`${e.type}-${e.at}`}>
              <strong>{e.type}</strong> {at(e.at)}
              {e.detail !== undefined && e.detail !== null && (
                <span className="muted break-all">
                  {" "}
                  — {typeof e.detail === "string" ? e.detail : JSON.stringify(e.detail)}
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
