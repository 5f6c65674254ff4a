import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field, SelectField } from "../../components/Field";
import { Card, ErrorState, PageSkeleton } from "../../components/states";

/** Members of the workspace (admins only: the API refuses anyone else). */
export function MembersSection({ selfId }: { selfId: string }) {
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: ["users"], queryFn: () => call(api.GET("/api/workspace/users")) });
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"admin" | "member">("member");
  const [password, setPassword] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["users"] });
  const add = useMutation({
    mutationFn: () => call(api.POST("/api/workspace/users", { body: { email, role, password } })),
    onSuccess: () => {
      setEmail("");
      setPassword("");
      void refresh();
    },
  });
  const endSessions = useMutation({
    mutationFn: (id: string) =>
      call(api.DELETE("/api/workspace/users/{id}/sessions", { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/workspace/users/{id}", { params: { path: { id } } })),
    onSettled: () => void refresh(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };

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
      <form className="form-row" onSubmit={submit} aria-label="Add a member">
        <Field label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        <SelectField
          label="Role"
          value={role}
          onChange={(e) => setRole(e.target.value as "admin" | "member")}
          options={[
            { value: "member", label: "member" },
            { value: "admin", label: "admin" },
          ]}
        />
        <Field
          label="Initial password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        <button type="submit" className="button" disabled={add.isPending}>
          Add member
        </button>
      </form>
      {add.isError && <ErrorState title="Not added" error={add.error} />}
    </Card>
  );
}
