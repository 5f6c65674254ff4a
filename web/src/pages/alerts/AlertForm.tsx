import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { useMe } from "../../api/session";
import { Field, SelectField } from "../../components/Field";
import { ErrorState } from "../../components/states";
import { MEASURES, type Measure, NUMERIC } from "../trends/url";
import { alertKeys } from "./model";

type Kind = "above" | "below" | "change";
type Direction = "up" | "down" | "either";

/** A new alert: one trend series, its bucket, a threshold or a change in percent, who is told. */
export function AlertForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const me = useMe();
  const [name, setName] = useState("");
  const [event, setEvent] = useState("signup");
  const [measure, setMeasure] = useState<Measure>("total");
  const [property, setProperty] = useState("");
  const [interval, setInterval] = useState<"day" | "week">("day");
  const [kind, setKind] = useState<Kind>("change");
  const [value, setValue] = useState("30");
  const [direction, setDirection] = useState<Direction>("down");
  const [emails, setEmails] = useState<string | null>(null);
  const [webhook, setWebhook] = useState(false);
  const shownEmails = emails ?? me.data?.user.email ?? "";
  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST("/api/alerts", {
          body: {
            name,
            query: {
              series: [{ event, measure, ...(NUMERIC.has(measure) && property ? { property } : {}) }],
              interval,
            },
            condition:
              kind === "change"
                ? { kind, direction, percent: Number(value) }
                : { kind, value: Number(value) },
            notify: {
              emails: shownEmails
                .split(/[\s,;]+/)
                .map((e: string) => e.trim())
                .filter(Boolean),
              webhook,
            },
          },
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: alertKeys.all });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="form-row" onSubmit={submit} aria-label="New alert">
      <Field label="Name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      <Field
        label="Event"
        value={event}
        onChange={(e) => setEvent(e.target.value)}
        required
        maxLength={200}
      />
      <SelectField
        label="Measure"
        value={measure}
        onChange={(e) => setMeasure(e.target.value as Measure)}
        options={[...MEASURES]}
      />
      {NUMERIC.has(measure) && (
        <Field label="Property" value={property} onChange={(e) => setProperty(e.target.value)} required />
      )}
      <SelectField
        label="Checked per"
        hint="The latest complete bucket is checked: yesterday, or last week (UTC)"
        value={interval}
        onChange={(e) => setInterval(e.target.value as "day" | "week")}
        options={[
          { value: "day", label: "Day" },
          { value: "week", label: "Week" },
        ]}
      />
      <SelectField
        label="Alert when"
        value={kind}
        onChange={(e) => setKind(e.target.value as Kind)}
        options={[
          { value: "change", label: "it changes by a percent" },
          { value: "above", label: "it is above a value" },
          { value: "below", label: "it is below a value" },
        ]}
      />
      {kind === "change" && (
        <SelectField
          label="Direction"
          value={direction}
          onChange={(e) => setDirection(e.target.value as Direction)}
          options={[
            { value: "down", label: "Down" },
            { value: "up", label: "Up" },
            { value: "either", label: "Up or down" },
          ]}
        />
      )}
      <Field
        label={kind === "change" ? "Percent" : "Value"}
        type="number"
        step="any"
        min={kind === "change" ? 0 : undefined}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        required
      />
      <Field
        label="Email"
        hint="Workspace members, separated by commas; empty for none"
        value={shownEmails}
        onChange={(e) => setEmails(e.target.value)}
      />
      <div className="check-field">
        <label>
          <input type="checkbox" checked={webhook} onChange={(e) => setWebhook(e.target.checked)} /> Also send
          the signed alert.fired webhook
        </label>
      </div>
      <div className="page-actions">
        <button type="submit" className="button" disabled={create.isPending}>
          Create alert
        </button>
        <button type="button" className="button secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      {create.isError && <ErrorState title="Not created" error={create.error} />}
    </form>
  );
}
