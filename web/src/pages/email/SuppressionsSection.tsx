import { emailKeys } from "./model";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { DataTable } from "../../components/DataTable";
import { Field } from "../../components/Field";
import { Card, EmptyState, ErrorState, PageSkeleton } from "../../components/states";

const KEY = emailKeys.suppressions;
const REASONS: Record<string, string> = {
  hard_bounce: "Hard bounce",
  complaint: "Complaint",
  manual: "Added by hand",
};

/** Addresses that get no more email: bounces and complaints land here; admins add and lift entries. */
export function SuppressionsSection() {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: KEY, queryFn: () => call(api.GET("/api/transactional/suppressions")) });
  const [email, setEmail] = useState("");
  const [detail, setDetail] = useState("");
  const invalidate = () => void queryClient.invalidateQueries({ queryKey: KEY });
  const add = useMutation({
    mutationFn: () =>
      call(api.POST("/api/transactional/suppressions", { body: { email, ...(detail ? { detail } : {}) } })),
    onSuccess: () => {
      setEmail("");
      setDetail("");
      invalidate();
    },
  });
  const lift = useMutation({
    mutationFn: (address: string) =>
      call(api.DELETE("/api/transactional/suppressions/{email}", { params: { path: { email: address } } })),
    onSettled: invalidate,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <Card title="Suppression list">
      {list.isPending ? (
        <PageSkeleton label="Loading suppressions" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No suppressed addresses">Hard bounces and complaints are added here.</EmptyState>
      ) : (
        <DataTable
          caption="Suppressed addresses"
          rows={list.data}
          rowKey={(s) => s.email}
          columns={[
            { header: "Address", cell: (s) => <span className="break-all">{s.email}</span> },
            { header: "Reason", cell: (s) => REASONS[s.reason] ?? s.reason },
            { header: "Detail", cell: (s) => s.detail ?? "" },
            { header: "Since", cell: (s) => s.createdAt.slice(0, 10) },
            {
              header: "Actions",
              cell: (s) => (
                <button
                  type="button"
                  className="button secondary small"
                  aria-label={`Lift ${s.email}`}
                  disabled={lift.isPending}
                  onClick={() => {
                    if (window.confirm(`Send email to ${s.email} again?`)) lift.mutate(s.email);
                  }}
                >
                  Lift
                </button>
              ),
            },
          ]}
        />
      )}
      {lift.isError && <ErrorState title="Not lifted" error={lift.error} />}
      <form className="form-row" onSubmit={submit} aria-label="Suppress an address">
        <Field
          label="Address"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
        />
        <Field
          label="Note (optional)"
          value={detail}
          onChange={(e) => setDetail(e.target.value)}
          maxLength={500}
        />
        <button type="submit" className="button" disabled={add.isPending}>
          Suppress
        </button>
      </form>
      {add.isError && <ErrorState title="Not added" error={add.error} />}
    </Card>
  );
}
