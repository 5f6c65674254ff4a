import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { emailKeys } from "./model";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";

/** The workspace's templates (built-in ones and its own); admins create new ones. */
export function TemplatesSection({ isAdmin }: { isAdmin: boolean }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const list = useQuery({
    queryKey: emailKeys.templates,
    queryFn: () => call(api.GET("/api/communications")),
  });
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/communications", {
          body: {
            name,
            commType: "transactional",
            slots: { subject: name, body: "Hello {{name}}," },
            blocks: [
              { type: "heading", text: "{{subject}}" },
              { type: "text", text: "{{body}}" },
            ],
          },
        }),
      ),
    onSuccess: (c) => {
      void queryClient.invalidateQueries({ queryKey: emailKeys.templates });
      navigate(`/email/templates/${encodeURIComponent(c.id)}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Card title="Templates">
      {list.isPending ? (
        <PageSkeleton label="Loading templates" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No templates" />
      ) : (
        <DataTable
          caption="Email templates"
          rows={list.data}
          rowKey={(c) => c.id}
          columns={[
            {
              header: "Name",
              cell: (c) => <Link to={`/email/templates/${encodeURIComponent(c.id)}`}>{c.name}</Link>,
            },
            { header: "Id", cell: (c) => <code>{c.id}</code> },
            { header: "Type", cell: (c) => c.commType },
            {
              header: "Origin",
              cell: (c) => (c.builtIn ? (c.overridden ? "built-in, customised" : "built-in") : "custom"),
            },
            { header: "Variables", cell: (c) => c.variables.join(", ") || "—" },
          ]}
        />
      )}
      {isAdmin && (
        <form className="form-row" onSubmit={submit} aria-label="Create a template">
          <Field
            label="New template name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={200}
          />
          <button type="submit" className="button" disabled={create.isPending}>
            Create template
          </button>
        </form>
      )}
      {create.isError && <ErrorState title="Not created" error={create.error} />}
    </Card>
  );
}
