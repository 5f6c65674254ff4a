import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, call } from "../../api/client";
import { Field } from "../../components/Field";
import { Card, ErrorState } from "../../components/states";
import { EventChecks } from "./EventChecks";
import { type EventType, webhookKeys } from "./model";

/** Changes a subscription's endpoint URL and events (its signing secret stays). */
export function SubscriptionEditor({ sub }: { sub: { id: string; url: string; events: string[] } }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(sub.url);
  const [events, setEvents] = useState<string[]>(sub.events);
  const save = useMutation({
    mutationFn: () =>
      call(api.PATCH("/api/webhooks", { body: { id: sub.id, url, events: events as EventType[] } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: webhookKeys.all }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Card title="Subscription">
      <form onSubmit={submit} aria-label="Edit the subscription">
        <Field
          label="Endpoint URL"
          type="url"
          value={url}
          required
          maxLength={2048}
          onChange={(e) => setUrl(e.target.value)}
        />
        <EventChecks events={events} setEvents={setEvents} />
        <button type="submit" className="button" disabled={save.isPending || events.length === 0}>
          Save subscription
        </button>
        {save.isSuccess && (
          <span className="muted" role="status">
            {" "}
            Saved.
          </span>
        )}
      </form>
      {save.isError && <ErrorState title="Not saved" error={save.error} />}
    </Card>
  );
}
