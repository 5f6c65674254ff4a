import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { type ApiData, api, call } from "../../api/client";
import { useMe } from "../../api/session";
import { Field, SelectField } from "../../components/Field";
import { ErrorState } from "../../components/states";

type Subscription = ApiData<"/api/subscriptions", "get">["items"][number];
type Frequency = Subscription["frequency"];
type Weekday = NonNullable<Subscription["weekday"]>;

const subscriptionKeys = {
  of: (dashboardId: string) => ["subscriptions", dashboardId] as const,
  sends: (id: string) => ["subscriptions", "sends", id] as const,
};

const WEEKDAYS: Weekday[] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const hh = (h: number) => `${String(h).padStart(2, "0")}:00 UTC`;

/** "Every Monday at 09:00 UTC". */
export function scheduleText(s: Pick<Subscription, "frequency" | "weekday" | "dayOfMonth" | "hour">): string {
  if (s.frequency === "daily") return `Every day at ${hh(s.hour)}`;
  if (s.frequency === "weekly") return `Every ${cap(s.weekday ?? "monday")} at ${hh(s.hour)}`;
  return `On day ${s.dayOfMonth ?? 1} of every month at ${hh(s.hour)}`;
}

/** The last sends of a subscription and what became of each mail. */
function Sends({ id }: { id: string }) {
  const sends = useQuery({
    queryKey: subscriptionKeys.sends(id),
    queryFn: () =>
      call(api.GET("/api/subscriptions/{id}/sends", { params: { path: { id }, query: { limit: 5 } } })),
  });
  if (sends.isPending) return <p className="muted small">Loading its sends…</p>;
  if (sends.isError) return <ErrorState error={sends.error} />;
  if (sends.data.items.length === 0) return <p className="muted small">Not sent yet.</p>;
  return (
    <ul className="small">
      {sends.data.items.map((s) => (
        <li key={s.id}>
          {s.period.slice(0, 16).replace("T", " ")} UTC:{" "}
          {s.error ??
            (s.email.length === 0 ? "being sent" : s.email.map((e) => `${e.to} ${e.status}`).join(", "))}
        </li>
      ))}
    </ul>
  );
}

/** "Email this dashboard": its subscriptions, a form for a new one, pausing and deleting them. */
export function SubscriptionsPanel({ dashboardId }: { dashboardId: string }) {
  const queryClient = useQueryClient();
  const me = useMe();
  const [frequency, setFrequency] = useState<Frequency>("weekly");
  const [weekday, setWeekday] = useState<Weekday>("monday");
  const [dayOfMonth, setDayOfMonth] = useState(1);
  const [hour, setHour] = useState(8);
  const [emails, setEmails] = useState<string | null>(null);
  const shownEmails = emails ?? me.data?.user.email ?? "";
  const list = useQuery({
    queryKey: subscriptionKeys.of(dashboardId),
    queryFn: () => call(api.GET("/api/subscriptions", { params: { query: { dashboardId, limit: 50 } } })),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: subscriptionKeys.of(dashboardId) });
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/subscriptions", {
          body: {
            target: { dashboardId },
            frequency,
            ...(frequency === "weekly" ? { weekday } : {}),
            ...(frequency === "monthly" ? { dayOfMonth } : {}),
            hour,
            emails: shownEmails
              .split(/[\s,;]+/)
              .map((e: string) => e.trim())
              .filter(Boolean),
          },
        }),
      ),
    onSuccess: refresh,
  });
  const toggle = useMutation({
    mutationFn: (s: Subscription) =>
      call(
        api.PATCH("/api/subscriptions/{id}", {
          params: { path: { id: s.id } },
          body: { enabled: !s.enabled },
        }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/subscriptions/{id}", { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div className="subscriptions-panel">
      <p className="muted small">
        Mails this dashboard's numbers and small charts to members of the workspace, with a link back here.
      </p>
      {list.isError && <ErrorState error={list.error} />}
      {list.data && list.data.items.length > 0 && (
        <ul className="subscription-list" aria-label="Subscriptions of this dashboard">
          {list.data.items.map((s) => (
            <li key={s.id}>
              <strong>{scheduleText(s)}</strong> to {s.emails.join(", ")}
              {!s.enabled && " (paused)"}
              {s.nextAt && (
                <span className="muted small"> · next {s.nextAt.slice(0, 16).replace("T", " ")} UTC</span>
              )}{" "}
              <button type="button" className="link-button" onClick={() => toggle.mutate(s)}>
                {s.enabled ? "Pause" : "Resume"}
              </button>{" "}
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  if (window.confirm(`Stop emailing this dashboard ${scheduleText(s).toLowerCase()}?`))
                    remove.mutate(s.id);
                }}
              >
                Delete
              </button>
              <Sends id={s.id} />
            </li>
          ))}
        </ul>
      )}
      {(toggle.isError || remove.isError) && <ErrorState error={(toggle.error ?? remove.error)!} />}
      <form className="form-row" onSubmit={submit} aria-label="New subscription">
        <SelectField
          label="How often"
          value={frequency}
          onChange={(e) => setFrequency(e.target.value as Frequency)}
          options={[
            { value: "daily", label: "Daily" },
            { value: "weekly", label: "Weekly" },
            { value: "monthly", label: "Monthly" },
          ]}
        />
        {frequency === "weekly" && (
          <SelectField
            label="On"
            value={weekday}
            onChange={(e) => setWeekday(e.target.value as Weekday)}
            options={WEEKDAYS.map((d) => ({ value: d, label: cap(d) }))}
          />
        )}
        {frequency === "monthly" && (
          <Field
            label="Day of the month"
            type="number"
            min={1}
            max={28}
            value={dayOfMonth}
            onChange={(e) => setDayOfMonth(Number(e.target.value))}
          />
        )}
        <SelectField
          label="At (UTC)"
          value={String(hour)}
          onChange={(e) => setHour(Number(e.target.value))}
          options={Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: hh(h) }))}
        />
        <Field
          label="Recipients"
          hint="Email addresses of workspace members, separated by commas"
          value={shownEmails}
          onChange={(e) => setEmails(e.target.value)}
          required
        />
        <button type="submit" className="button" disabled={create.isPending}>
          Email this dashboard
        </button>
      </form>
      {create.isError && <ErrorState title="Not subscribed" error={create.error} />}
      {create.isSuccess && (
        <p role="status" className="small">
          Subscribed: {scheduleText(create.data).toLowerCase()}.
        </p>
      )}
    </div>
  );
}
