import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { CopyCode } from "../../components/CopyButton";
import { DataTable } from "../../components/DataTable";
import { dangerColumn } from "../../components/TableRows";
import { Field, SelectField } from "../../components/Field";
import { ErrorState } from "../../components/states";
import { settingsKeys, useInvites } from "./model";

const DELIVERY: Record<string, string> = {
  sent: "mailed",
  queued: "mail retrying",
  outbox: "not sent: no mail server",
};

/** Invite by email (Lift mails a link to set one's own password) and the invitations sent. */
export function InvitesSection() {
  const queryClient = useQueryClient();
  const invites = useInvites();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"admin" | "member">("member");
  const refresh = () => void queryClient.invalidateQueries({ queryKey: settingsKeys.invites });
  const invite = useMutation({
    mutationFn: () => call(api.POST("/api/workspace/invites", { body: { email, role } })),
    onSuccess: () => {
      setEmail("");
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/workspace/invites/{id}", { params: { path: { id } } })),
    onSettled: refresh,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  const sent = invite.data;
  const mailed = sent && (sent.delivery.status === "sent" || sent.delivery.status === "queued");
  // No SMTP_URL: the mail went to the server's outbox, which nobody reads as a recipient.
  const noMailServer = sent?.delivery.status === "outbox";
  const pending = (invites.data ?? []).filter((i) => i.status === "pending");

  return (
    <>
      <form className="form-row" onSubmit={submit} aria-label="Invite a member">
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
        <button type="submit" className="button" disabled={invite.isPending}>
          Invite
        </button>
      </form>
      {invite.isError && <ErrorState title="Not invited" error={invite.error} />}
      {sent && (
        <div
          role="status"
          className={mailed ? "callout ok" : noMailServer ? "callout info" : "callout error"}
        >
          {mailed ? (
            <p>
              Invitation sent to {sent.email}. They choose their own password from the link (valid until{" "}
              {sent.expiresAt.slice(0, 10)}).
            </p>
          ) : noMailServer ? (
            <p>
              No email was sent to {sent.email}: this server has no mail server configured (SMTP_URL). Hand
              them this link yourself; it is shown only now, and works once until{" "}
              {sent.expiresAt.slice(0, 10)}:
            </p>
          ) : (
            <p>
              The invitation to {sent.email} could not be mailed (
              {sent.delivery.error ?? sent.delivery.status}). Hand them this link instead; it is shown only
              now:
            </p>
          )}
          {!mailed && <CopyCode code={sent.acceptUrl} label="Copy link" testId="invite-link" />}
        </div>
      )}
      {invites.isError && <ErrorState error={invites.error} retry={() => void invites.refetch()} />}
      {pending.length > 0 && <h3 className="subhead">Pending invitations</h3>}
      {pending.length > 0 && (
        <DataTable
          caption="Pending invitations"
          rows={pending}
          rowKey={(i) => i.id}
          columns={[
            { header: "Email", cell: (i) => i.email },
            { header: "Role", cell: (i) => i.role },
            { header: "Mail", cell: (i) => DELIVERY[i.delivery.status] ?? i.delivery.status },
            { header: "Expires", cell: (i) => i.expiresAt.slice(0, 10) },
            dangerColumn({
              text: "Revoke",
              label: (i: { id: string; email: string }) => `Revoke the invitation to ${i.email}`,
              busy: revoke.isPending,
              onClick: (i: { id: string; email: string }) => revoke.mutate(i.id),
            }),
          ]}
        />
      )}
      {revoke.isError && <ErrorState title="Not revoked" error={revoke.error} />}
    </>
  );
}
