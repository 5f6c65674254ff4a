import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Card, ErrorState, PageSkeleton } from "../../components/states";
import { InvitesSection } from "./InvitesSection";
import { settingsKeys, useUsers } from "./model";

/**
 * Members of the workspace (admins only: the API refuses anyone else). New members are invited by
 * email and choose their own password; nobody sets a password for someone else here.
 */
export function MembersSection({ selfId }: { selfId: string }) {
  const queryClient = useQueryClient();
  const users = useUsers();
  const refresh = () => queryClient.invalidateQueries({ queryKey: settingsKeys.users });
  const endSessions = useMutation({
    mutationFn: (id: string) =>
      call(api.DELETE("/api/workspace/users/{id}/sessions", { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/workspace/users/{id}", { params: { path: { id } } })),
    onSettled: () => void refresh(),
  });
  return (
    <Card title="Members">
      {users.isPending ? (
        <PageSkeleton label="Loading members" />
      ) : users.isError ? (
        <ErrorState error={users.error} retry={() => void users.refetch()} />
      ) : (
        <DataTable
          caption="Members"
          rows={users.data}
          rowKey={(u) => u.id}
          columns={[
            { header: "Email", cell: (u) => u.email },
            { header: "Role", cell: (u) => u.role },
            { header: "Added", cell: (u) => u.createdAt.slice(0, 10) },
            {
              header: "Actions",
              noCsv: true,
              cell: (u) =>
                u.id === selfId ? (
                  <span className="muted">you</span>
                ) : (
                  <span className="actions">
                    <button
                      type="button"
                      className="button small"
                      aria-label={`Sign ${u.email} out everywhere`}
                      disabled={endSessions.isPending}
                      onClick={() => endSessions.mutate(u.id)}
                    >
                      Sign out everywhere
                    </button>
                    <button
                      type="button"
                      className="button danger small"
                      aria-label={`Remove ${u.email}`}
                      disabled={remove.isPending}
                      onClick={() => {
                        if (window.confirm(`Remove ${u.email} from the workspace?`)) remove.mutate(u.id);
                      }}
                    >
                      Remove
                    </button>
                  </span>
                ),
            },
          ]}
        />
      )}
      {remove.isError && <ErrorState title="Not removed" error={remove.error} />}
      {endSessions.isError && <ErrorState title="Sessions not ended" error={endSessions.error} />}
      {endSessions.isSuccess && (
        <p role="status" className="ok-text">
          Signed out of {endSessions.data.endedSessions} session
          {endSessions.data.endedSessions === 1 ? "" : "s"}.
        </p>
      )}
      <InvitesSection />
    </Card>
  );
}
