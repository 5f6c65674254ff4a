import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useParams } from "react-router";
import { api, call } from "../../api/client";
import { Field, SelectField } from "../../components/Field";
import { Card, ErrorState, PageSkeleton, SaveOutcome } from "../../components/states";
import { BlocksEditor } from "./BlocksEditor";
import { PreviewPane } from "./PreviewPane";
import { type Communication, type Draft, emailKeys } from "./model";

/** Edits a template's name, slots and blocks, with a live preview of the unsaved draft. */
export function TemplateEditor({ isAdmin }: { isAdmin: boolean }) {
  const { id = "" } = useParams();
  const comm = useQuery({
    queryKey: emailKeys.template(id),
    queryFn: () => call(api.GET("/api/communications/{id}", { params: { path: { id } } })),
  });
  if (comm.isPending) return <PageSkeleton label="Loading the template" />;
  if (comm.isError) return <ErrorState error={comm.error} retry={() => void comm.refetch()} />;
  return <Editor key={comm.data.id} comm={comm.data} isAdmin={isAdmin} />;
}

function Editor({ comm, isAdmin }: { comm: Communication; isAdmin: boolean }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>({
    name: comm.name,
    commType: comm.commType,
    slots: comm.slots,
    blocks: comm.blocks,
  });
  const [newSlot, setNewSlot] = useState("");
  const save = useMutation({
    mutationFn: () =>
      call(api.PATCH("/api/communications/{id}", { params: { path: { id: comm.id } }, body: draft })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: emailKeys.templates }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const setSlot = (k: string, v: string) => setDraft((d) => ({ ...d, slots: { ...d.slots, [k]: v } }));

  return (
    <>
      <p>
        <Link to="/email">All templates</Link>
      </p>
      <div className="editor-grid">
        <Card title={`Template ${comm.name}`}>
          <form onSubmit={submit} aria-label="Edit the template">
            <fieldset disabled={!isAdmin} className="plain-fieldset">
              <Field
                label="Name"
                value={draft.name}
                onChange={(e) => setDraft({ ...draft, name: e.target.value })}
                required
                maxLength={200}
              />
              <SelectField
                label="Type"
                value={draft.commType}
                onChange={(e) => setDraft({ ...draft, commType: e.target.value as Draft["commType"] })}
                options={[
                  { value: "transactional", label: "Transactional" },
                  { value: "marketing", label: "Marketing (adds an unsubscribe footer)" },
                ]}
              />
              <h3>Slots</h3>
              <p className="muted small">
                Text referenced from blocks as <code>{"{{slot}}"}</code>; may use variables such as{" "}
                <code>{"{{name}}"}</code>. <code>subject</code> is the subject line.
              </p>
              {Object.entries(draft.slots).map(([k, v]) => (
                <div className="field" key={k}>
                  <label htmlFor={`slot-${k}`}>Slot {k}</label>
                  <textarea
                    id={`slot-${k}`}
                    value={v}
                    onChange={(e) => setSlot(k, e.target.value)}
                    maxLength={10_000}
                  />
                </div>
              ))}
              <div className="form-row">
                <Field
                  label="New slot id"
                  value={newSlot}
                  pattern="[A-Za-z_][A-Za-z0-9_]*"
                  onChange={(e) => setNewSlot(e.target.value)}
                />
                <button
                  type="button"
                  className="button secondary small"
                  disabled={!/^[A-Za-z_][A-Za-z0-9_]*$/.test(newSlot) || newSlot in draft.slots}
                  onClick={() => {
                    setSlot(newSlot, "");
                    setNewSlot("");
                  }}
                >
                  Add slot
                </button>
              </div>
              <h3>Blocks</h3>
              <BlocksEditor blocks={draft.blocks} onChange={(blocks) => setDraft({ ...draft, blocks })} />
              {isAdmin && (
                <button type="submit" className="button" disabled={save.isPending}>
                  Save template
                </button>
              )}
            </fieldset>
          </form>
          <SaveOutcome save={save} />
        </Card>
        <PreviewPane draft={draft} variables={comm.variables} />
      </div>
    </>
  );
}
