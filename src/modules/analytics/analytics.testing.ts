import { withTransaction } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { timeOrderedId } from "../event-store/service.js";
import "../event-store/tables.js";

/** Test support: committed events as the events writer hands them to processors. */
export interface Scope {
  projectId: string;
  workspaceId: string;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function committed(scope: Scope, e: Partial<CommittedEvent> & { visitorId: string }): CommittedEvent {
  const timestamp = e.timestamp ?? Date.now();
  return {
    // As the writer makes them: rising with receipt (the events' scans page by id).
    id: e.id ?? timeOrderedId("ev"),
    workspaceId: scope.workspaceId,
    projectId: scope.projectId,
    leadId: null,
    type: "pageview",
    url: "https://shop.example.com/",
    data: {},
    referrer: null,
    sessionId: e.sessionId ?? `s_${e.visitorId}_${timestamp}`,
    channel: "direct",
    source: null,
    sessionStarted: true,
    userAgent: null,
    isBot: false,
    origin: "web",
    ...e,
    timestamp,
  };
}

/**
 * Stores the events and runs every registered processor over them in one transaction, as the
 * writer does (reports read both: the analytics engine copies the stored events).
 */
export async function commitEvents(
  deps: Pick<ServiceDeps, "db" | "eventBus">,
  events: CommittedEvent[],
): Promise<void> {
  const receivedAt = Date.now();
  const committed = await withTransaction(deps.db, async (trx) => {
    for (let i = 0; i < events.length; i += 200)
      await trx
        .insertInto("events")
        .values(
          events.slice(i, i + 200).map((e) => ({
            id: e.id,
            project_id: e.projectId,
            visitor_id: e.visitorId,
            lead_id: e.leadId,
            type: e.type,
            url: e.url,
            referrer: e.referrer,
            data: JSON.stringify(e.data),
            ts: e.timestamp,
            received_at: receivedAt,
            session_id: e.sessionId,
            channel: e.channel,
            source: e.source,
            is_bot: e.isBot ? 1 : 0,
            is_server: e.origin === "server" ? 1 : 0,
          })),
        )
        .execute();
    return deps.eventBus.process(trx, events);
  });
  for (const fn of committed) fn();
}

// inject's default user agent (lightMyRequest) is a bot to isbot: tracked test traffic sends a browser's.
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

/** POST /api/events as a browser would (public, projectKey in the body). */
export async function track(
  a: {
    publicKey: string;
    post: (url: string, body: unknown, opts: object) => Promise<{ status: number; body: unknown }>;
  },
  body: Record<string, unknown>,
) {
  const res = await a.post(
    "/api/events",
    { projectKey: a.publicKey, ...body },
    { as: "none", headers: { "user-agent": BROWSER_UA } },
  );
  if (res.status !== 200) throw new Error(`POST /api/events: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}
