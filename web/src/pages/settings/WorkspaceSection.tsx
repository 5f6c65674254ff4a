import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { api, call } from "../../api/client";
import { Field } from "../../components/Field";
import { Card, ErrorState, PageSkeleton } from "../../components/states";
import { sessionKeys } from "../../api/session";
import { settingsKeys, useWorkspace } from "./model";

export function WorkspaceSection({ isAdmin }: { isAdmin: boolean }) {
  const queryClient = useQueryClient();
  const workspace = useWorkspace();
  const [name, setName] = useState("");
  useEffect(() => {
    if (workspace.data) setName(workspace.data.name);
  }, [workspace.data]);
  const save = useMutation({
    mutationFn: () => call(api.PATCH("/api/workspace", { body: { name } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: settingsKeys.workspace });
      void queryClient.invalidateQueries({ queryKey: sessionKeys.me });
    },
  });

  if (workspace.isPending)
    return (
      <Card title="Workspace">
        <PageSkeleton />
      </Card>
    );
  if (workspace.isError)
    return (
      <Card title="Workspace">
        <ErrorState error={workspace.error} retry={() => void workspace.refetch()} />
      </Card>
    );
  if (!isAdmin)
    return (
      <Card title="Workspace">
        <dl className="facts">
          <dt>Name</dt>
          <dd>{workspace.data.name}</dd>
          <dt>Plan</dt>
          <dd>{workspace.data.tier}</dd>
        </dl>
      </Card>
    );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Card title="Workspace">
      <form className="form-row" onSubmit={submit}>
        <Field
          label="Workspace name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={200}
        />
        <button type="submit" className="button" disabled={save.isPending}>
          Save
        </button>
      </form>
      <p className="muted">
        Plan: <strong>{workspace.data.tier}</strong> — set by the server's operator (
        <code>lift set-tier</code>), not in the dashboard.
      </p>
      {save.isError && <ErrorState title="Not saved" error={save.error} />}
      {save.isSuccess && (
        <p role="status" className="ok-text">
          Saved.
        </p>
      )}
    </Card>
  );
}
