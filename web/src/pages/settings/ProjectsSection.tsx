import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { useProjectId } from "../../api/project";
import { sessionKeys, useProjects } from "../../api/session";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Card, ErrorState, PageSkeleton } from "../../components/states";
import { KeysSection } from "./KeysSection";
import { SnippetSection } from "./SnippetSection";

/** The workspace's projects; keys and the snippet of the project chosen in the header. */
export function ProjectsSection() {
  const queryClient = useQueryClient();
  const projects = useProjects(true);
  const currentId = useProjectId();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => call(api.POST("/api/projects", { body: { name } })),
    onSuccess: () => {
      setName("");
      void queryClient.invalidateQueries({ queryKey: sessionKeys.projects });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const list = projects.data ?? [];
  const current = list.find((p) => p.id === currentId) ?? list[list.length - 1];

  return (
    <>
      <Card title="Projects">
        {projects.isPending ? (
          <PageSkeleton label="Loading projects" />
        ) : projects.isError ? (
          <ErrorState error={projects.error} retry={() => void projects.refetch()} />
        ) : (
          <DataTable
            caption="Projects"
            rows={list}
            rowKey={(p) => p.id}
            columns={[
              {
                header: "Name",
                cell: (p) => (p.id === current?.id ? <strong>{p.name} (current)</strong> : p.name),
              },
              { header: "Project id", cell: (p) => <code>{p.id}</code> },
              { header: "Public key", cell: (p) => <code>{p.publicKey}</code> },
              { header: "Created", cell: (p) => p.createdAt.slice(0, 10) },
            ]}
          />
        )}
        <form className="form-row" onSubmit={submit} aria-label="Create a project">
          <Field
            label="New project name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={200}
          />
          <button type="submit" className="button" disabled={create.isPending}>
            Create project
          </button>
        </form>
        {create.isError && <ErrorState title="Not created" error={create.error} />}
        {create.isSuccess && (
          <p role="status" className="ok-text">
            Project “{create.data.name}” created. Switch to it with the project menu at the top.
          </p>
        )}
      </Card>
      {current && <KeysSection project={current} />}
      {current && <SnippetSection project={current} />}
    </>
  );
}
