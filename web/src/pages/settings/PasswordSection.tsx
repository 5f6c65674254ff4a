import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { Field } from "../../components/Field";
import { Card, ErrorState } from "../../components/states";

/** Your own password; changing it signs out your other sessions (a stolen one among them). */
export function PasswordSection() {
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNext] = useState("");
  const change = useMutation({
    mutationFn: () => call(api.POST("/api/auth/password", { body: { currentPassword, newPassword } })),
    onSuccess: () => {
      setCurrent("");
      setNext("");
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <Card title="Your password">
      <form className="form-row" onSubmit={submit} aria-label="Change your password">
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrent(e.target.value)}
          required
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          value={newPassword}
          onChange={(e) => setNext(e.target.value)}
          required
        />
        <button type="submit" className="button" disabled={change.isPending}>
          Change password
        </button>
      </form>
      {change.isError && <ErrorState title="Not changed" error={change.error} />}
      {change.isSuccess && (
        <p role="status" className="ok-text">
          Password changed; {change.data.endedSessions} other session
          {change.data.endedSessions === 1 ? "" : "s"} signed out.
        </p>
      )}
    </Card>
  );
}
