import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "react-router";
import { api, call } from "../../api/client";
import { Card, EmptyState, ErrorState } from "../../components/states";

export type ErasureBody = Awaited<ReturnType<typeof eraseLead>>;

const eraseLead = (id: string) => call(api.DELETE("/api/leads/{id}", { params: { path: { id } } }));

/**
 * Erasure of a lead (a privacy request): everything Lift holds about the person goes, the counts
 * drop, and a record without personal data stays. The API allows it to workspace admins and the
 * project's secret key; a member's attempt is answered 403, shown as the error.
 */
export function EraseLead({
  leadId,
  label,
  onErased,
}: {
  leadId: string;
  label: string;
  onErased: (e: ErasureBody) => void;
}) {
  const queryClient = useQueryClient();
  const erase = useMutation({
    mutationFn: () => eraseLead(leadId),
    onSuccess: (e) => {
      onErased(e);
      // Every report may have counted the person: stale, refetched when next shown.
      void queryClient.invalidateQueries({ refetchType: "none" });
    },
  });
  return (
    <Card title="Erase this lead">
      <p className="muted">
        For a deletion request: its events, visits, properties and conversions are removed for good, and every
        report is adjusted.
      </p>
      <button
        type="button"
        className="button danger"
        disabled={erase.isPending}
        onClick={() => {
          if (window.confirm(`Erase ${label} and all of its data? This cannot be undone.`)) erase.mutate();
        }}
      >
        Erase lead
      </button>
      {erase.isError && <ErrorState title="Not erased" error={erase.error} />}
    </Card>
  );
}

/** What the lead's page shows once it is erased. */
export function ErasedLead({ erasure }: { erasure: ErasureBody }) {
  const r = erasure.removed;
  return (
    <EmptyState title="Lead erased" action={<Link to="/visitors">Back to visitors &amp; leads</Link>}>
      Removed {r.events} events, {r.visitors} visitors, {r.sessions} sessions and {r.conversions} conversions.
      Reports no longer count this person; the erasure is recorded without personal data.
    </EmptyState>
  );
}
