import type { ProjectRef } from "../../platform/auth/principal.js";
import type { ServiceDeps } from "../../platform/deps.js";
import type { IngestSender } from "../../platform/ingest-limits.js";
import { admitEvents } from "./admission.js";
import { type IncomingEvent, writeEvents } from "../event-store/service.js";
import type { EventRefusal } from "./validate.js";
import { addCountry } from "./geo.js";

/**
 * What the tracking APIs of other tools (Segment's in segment/, PostHog's in posthog/) share once
 * their messages are events: admission, the write of web visits and server events with their
 * dedup keys, and the refusal of a request with invalid messages.
 */

/** A message as the events writer takes it: the event, its origin and its dedup key. */
export interface Mapped {
  event: IncomingEvent;
  /** a pageview or screen view: a web visit (session, channel, touchpoint) wherever it came from */
  web: boolean;
  messageId: string | null;
  /**
   * The end user's address a relaying server names (Segment's context.ip, PostHog's $ip): the
   * event's country is looked up from it instead of the request's. It is never stored.
   */
  address?: string;
}

/**
 * A refused request: nothing was stored. Its `errors` are the per-event refusals of
 * POST /api/events' batches (`EventRefusal`), one per message at fault.
 */
export interface Refusal {
  status: 400 | 413;
  body: { error: string; code: EventRefusal["code"]; status: 400 | 413; errors: EventRefusal[] };
}

/** A call's messages as events split by origin, or the refusal naming every invalid one. */
export type MappedCall = { web: Mapped[]; server: Mapped[] } | Refusal;

/**
 * One call of another tool's tracking API: its messages mapped (`map` may throw an AppError), then
 * admitted and stored as `ingestMapped` does; a refusal is answered and nothing stored.
 */
export function ingestCall(
  deps: ServiceDeps,
  project: ProjectRef,
  sender: IngestSender,
  map: () => MappedCall,
): Promise<Refusal | null> {
  let mapped: MappedCall;
  try {
    mapped = map();
  } catch (err) {
    return Promise.reject(err);
  }
  if ("status" in mapped) return Promise.resolve(mapped);
  return ingestMapped(deps, project, sender, mapped.web, mapped.server);
}

/**
 * Admits the events (admission.ts: past the sender's budgets, 429 and nothing stored), then stores
 * each once, after commit.
 */
export function ingestMapped(
  deps: ServiceDeps,
  project: ProjectRef,
  sender: IngestSender,
  web: Mapped[],
  server: Mapped[],
): Promise<null> {
  return admitEvents(deps, project, sender, web.length + server.length, leadIdsOf(web, server)).then(() => {
    const all = [...web, ...server];
    addCountry(
      deps,
      sender,
      all.map((m) => m.event),
      all.map((m) => m.address),
    );
    return writeMapped(deps, project, web, server, sender.keyKind);
  });
}

function* leadIdsOf(...lists: Mapped[][]): Generator<string | null> {
  for (const list of lists) for (const m of list) yield m.event.leadId;
}

function writeMapped(
  deps: ServiceDeps,
  project: ProjectRef,
  web: Mapped[],
  server: Mapped[],
  keyKind: IngestSender["keyKind"],
): Promise<null> {
  // Pageviews are web visits, the rest server events: two writes, each claiming its keys. Nothing
  // holds the parsed body while they commit: most of it (context, library, metadata) is not
  // stored, and dies young rather than surviving scavenges (callers drop their reference too).
  // A page's public key only fills a lead's missing properties, whatever the call (identity/profile.ts).
  const fromPublicKey = keyKind === "public";
  return Promise.all([
    write(deps, project, web, "web", fromPublicKey),
    write(deps, project, server, "server", fromPublicKey),
  ]).then(() => null);
}

function write(
  deps: ServiceDeps,
  project: ProjectRef,
  list: Mapped[],
  origin: "web" | "server",
  fromPublicKey: boolean,
) {
  if (list.length === 0) return 0;
  const events: IncomingEvent[] = new Array(list.length);
  const ids: (string | null)[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    events[i] = list[i]!.event;
    ids[i] = list[i]!.messageId;
  }
  return writeEvents(deps, project, events, origin, { messageIds: ids, fromPublicKey });
}

/** 413 when a message is over its size limit, else 400; the error names the first message. */
export function refusal(errors: EventRefusal[]): Refusal {
  errors.sort((a, b) => a.index - b.index);
  const first = errors.find((e) => e.code === "PAYLOAD_TOO_LARGE") ?? errors[0]!;
  const status = first.code === "PAYLOAD_TOO_LARGE" ? 413 : 400;
  const error =
    errors.length === 1 ? first.message : `${errors.length} invalid messages, none stored; ${first.message}`;
  return { status, body: { error, code: first.code, status, errors } };
}
