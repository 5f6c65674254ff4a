import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { api, call } from "../../api/client";
import { rememberProjectId } from "../../api/project";
import { Field } from "../../components/Field";
import { ErrorState, PageSkeleton } from "../../components/states";
import { sessionKeys } from "../../api/session";
import { inviteKeys } from "./model";

/** An invitation's link: who invited whom, then the invitee's own password; signed in after. */
export default function AcceptInvitePage() {
  const { token = "" } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const invite = useQuery({
    queryKey: inviteKeys.one(token),
    queryFn: () => call(api.GET("/api/invites/{token}", { params: { path: { token } } })),
    retry: false,
  });
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const accept = useMutation({
    mutationFn: () =>
      call(api.POST("/api/invites/{token}", { params: { path: { token } }, body: { password } })),
    onSuccess: (me) => {
      rememberProjectId(null);
      queryClient.clear();
      queryClient.setQueryData(sessionKeys.me, me);
      navigate("/", { replace: true });
    },
  });
  const mismatch = again !== "" && again !== password;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!mismatch) accept.mutate();
  };

  return (
    <main className="signin">
      <div className="signin-card">
        <p className="brand">Lift</p>
        <h1>Join your team</h1>
        {invite.isPending ? (
          <PageSkeleton label="Opening the invitation" />
        ) : invite.isError ? (
          <ErrorState title="This invitation cannot be used" error={invite.error} />
        ) : (
          <form onSubmit={submit} aria-label="Accept the invitation">
            <p>
              {invite.data.invitedBy.email} invited you to <strong>{invite.data.workspace.name}</strong> as{" "}
              {invite.data.role}.
            </p>
            <Field label="Email" type="email" value={invite.data.email} readOnly autoComplete="username" />
            <Field
              label="Choose a password"
              type="password"
              autoComplete="new-password"
              minLength={8}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              hint="At least 8 characters."
            />
            <Field
              label="Password again"
              type="password"
              autoComplete="new-password"
              required
              value={again}
              onChange={(e) => setAgain(e.target.value)}
            />
            {mismatch && (
              <p className="form-error" role="alert">
                The two passwords differ.
              </p>
            )}
            <button type="submit" className="button" disabled={accept.isPending || mismatch}>
              Join {invite.data.workspace.name}
            </button>
            <p className="muted small">The invitation expires {invite.data.expiresAt.slice(0, 10)}.</p>
          </form>
        )}
        {accept.isError && <ErrorState title="Not joined" error={accept.error} />}
      </div>
    </main>
  );
}
