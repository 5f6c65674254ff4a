import { type RawBuilder, sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { EventOrigin } from "../../platform/event-bus.js";
import { type DbOrTrx, type Trx, isPostgresDb } from "../../platform/db/index.js";
import { type ErasedEvents, deleteEventsOf } from "./erasure.js";
import { AppError } from "../../platform/errors.js";
import "./tables.js";
import type { ServerEventInput } from "./schema.js";
import { FieldError, type IncomingEvent, serverEventToIncoming } from "./validate.js";
import { visitorsWithLastSeen } from "./sessions.js";
import type { EventTable } from "./tables.js";
import { sqliteVisitorEventSeqs } from "./visitor-index.js";
import { EventWriter } from "./writer.js";

/** Where a visit came from (channel, source, campaign, referrer host, landing page): analytics reads a session's. */
export { type Acquisition, deriveAcquisition } from "./channel.js";
import { type ServiceDeps, appSlot, stateOf } from "../../platform/deps.js";

// One group-commit writer per app.
const WRITER = appSlot(
  "events.writer",
  (deps) =>
    new EventWriter(deps.dbHandle, deps.eventBus, deps.log, {
      maxEvents: 5000,
      maxDelayMs: 0,
      indexMergeRows: deps.config.eventIndexMergeRows,
    }),
);

/** The app's group-commit writer. */
export const writerFor = (deps: ServiceDeps): EventWriter => stateOf(deps, WRITER);

/** Stores validated events through the group-commit writer; resolves after commit. */
export function writeEvents(
  deps: ServiceDeps,
  project: ProjectRef,
  events: IncomingEvent[],
  origin: EventOrigin,
): Promise<number> {
  return writerFor(deps).write(project, events, origin);
}

/**
 * Ingests server-side events through the same writer and processors as POST /api/events, as
 * server events (no session, no touchpoint, never a first touch); an event with only a leadId gets
 * the visitor id `lead:<leadId>`. Throws VALIDATION_ERROR naming the field.
 */
export async function ingestServerEvents(
  deps: ServiceDeps,
  project: ProjectRef,
  events: ServerEventInput[],
): Promise<number> {
  const now = Date.now();
  const incoming = events.map((e, i) => {
    try {
      return serverEventToIncoming(e, now);
    } catch (err) {
      if (err instanceof FieldError) throw new AppError("VALIDATION_ERROR", err.named(`events[${i}]`));
      throw err;
    }
  });
  return writeEvents(deps, project, incoming, "server");
}

/** A stored event as other modules read it. */
export interface StoredEvent {
  id: string;
  visitorId: string;
  leadId: string | null;
  type: string;
  url: string;
  referrer: string | null;
  data: Record<string, unknown>;
  /** epoch ms */
  timestamp: number;
  sessionId: string;
  channel: string;
  source: string | null;
  isBot: boolean;
  origin: EventOrigin;
}

/** Events of the given visitors in time order (oldest first), at most `limit`. */
export async function listEventsForVisitors(
  db: DbOrTrx,
  project: ProjectRef,
  visitorIds: string[],
  limit: number,
): Promise<StoredEvent[]> {
  if (visitorIds.length === 0 || limit <= 0) return [];
  const rows = isPostgresDb(db)
    ? await db
        .selectFrom("events")
        .selectAll()
        .where("project_id", "=", project.id)
        .where("visitor_id", "in", visitorIds)
        .orderBy("ts", "asc")
        .orderBy("id", "asc")
        .limit(limit)
        .execute()
    : (
        await sql<EventTable>`select * from events where seq in (${sqliteVisitorEventSeqs(project.id, visitorIds)})
          order by ts asc, id asc limit ${limit}`.execute(db)
      ).rows;
  return rows.map(toStoredEvent);
}

/** A row of `events` (either driver's number types) as other modules read it. */
export function toStoredEvent(r: EventTable): StoredEvent {
  return {
    id: r.id,
    visitorId: r.visitor_id,
    leadId: r.lead_id,
    type: r.type,
    url: r.url,
    referrer: r.referrer,
    data: JSON.parse(r.data) as Record<string, unknown>,
    timestamp: Number(r.ts),
    sessionId: r.session_id,
    channel: r.channel,
    source: r.source,
    isBot: Number(r.is_bot) === 1,
    origin: Number(r.is_server) === 1 ? "server" : "web",
  };
}

/** A visitor's first touch: first session's channel, source and landing page. */
export interface FirstTouch {
  visitorId: string;
  /** epoch ms */
  firstSeen: number;
  /** epoch ms of the latest event */
  lastSeen: number;
  channel: string;
  source: string | null;
  landingPage: string;
}

/** First touch of each given visitor that has events; the earliest of them comes first. */
export async function firstTouchForVisitors(
  db: DbOrTrx,
  project: ProjectRef,
  visitorIds: string[],
): Promise<FirstTouch[]> {
  if (visitorIds.length === 0) return [];
  const rows = await visitorsWithLastSeen(db, project.id, visitorIds)
    .orderBy("v.first_seen", "asc")
    .execute();
  return rows.map((r) => ({
    visitorId: r.visitor_id,
    firstSeen: Number(r.first_seen),
    // the row's last_seen is written at session starts; the events index knows the latest event
    lastSeen: Math.max(Number(r.last_seen), Number(r.events_last_seen ?? 0)),
    channel: r.first_channel,
    source: r.first_source,
    landingPage: r.first_landing_page,
  }));
}

export const EVENT_PAGE_ROWS = 2000;

/** [from, to) in epoch ms. */
export interface ExportRange {
  from: number;
  to: number;
}

/**
 * Rows of `events` matching `where`, in storage order, one page at a time: each page is its own
 * short read (keyset on the table's key: `seq` on SQLite, the time-ordered `id` on PostgreSQL), so
 * memory stays one page however many rows match and no read transaction stays open. Each row
 * carries its key as `k`.
 */
async function* keysetPages<R>(
  db: DbOrTrx,
  columns: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  pageRows: number,
): AsyncGenerator<(R & { k: string | number })[]> {
  const postgres = isPostgresDb(db);
  const key = sql.ref(postgres ? "id" : "seq");
  let after: string | number = postgres ? "" : 0;
  for (;;) {
    const { rows } = await sql<R & { k: string | number }>`select ${key} as k, ${columns} from events
      where ${key} > ${after} and ${where} order by ${key} limit ${pageRows}`.execute(db);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!.k;
  }
}

/** A project's events in [from, to), every column, in storage order, page by page (the export). */
export function eventPages(
  db: DbOrTrx,
  project: ProjectRef,
  range: ExportRange,
  opts: { pageRows?: number } = {},
): AsyncGenerator<EventTable[]> {
  return keysetPages<EventTable>(
    db,
    sql`*`,
    sql`project_id = ${project.id} and ts >= ${range.from} and ts < ${range.to}`,
    opts.pageRows ?? EVENT_PAGE_ROWS,
  );
}

/** A step of a funnel as the events table can pre-filter it: a type and an optional URL pattern. */
export interface StepFilter {
  type: string;
  /** `*` matches any run of characters; everything else literally */
  urlPattern?: string;
}

/** The pattern as SQLite GLOB (`?` and `[` made literal) or PostgreSQL LIKE (`%`, `_`, `\` escaped). */
function urlPredicate(pattern: string, postgres: boolean) {
  if (postgres)
    return sql`url like ${pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll("*", "%")} escape '\\'`;
  return sql`url glob ${pattern.replace(/[?[]/g, (c) => `[${c}]`)}`;
}

type StepEventRow = {
  visitor_id: string;
  type: string;
  url: string;
  data: string;
  ts: number | string;
  /** with `withSession` only */
  session_id?: string;
};

/**
 * The non-bot events of a project in [from, to) that may satisfy one of `steps`, page by page in
 * storage order, with only the columns a funnel reads. The URL patterns are applied in SQL, so a
 * step "a pageview of the pricing page" does not bring every pageview back. One pass over the
 * table: an index on (project, type, time) was measured slower (bench/README.md, issue 16).
 */
export function stepEventPages(
  db: DbOrTrx,
  project: ProjectRef,
  range: ExportRange,
  steps: StepFilter[],
  opts: { pageRows?: number; withSession?: boolean } = {},
): AsyncGenerator<StepEventRow[]> {
  const postgres = isPostgresDb(db);
  const any = sql.join(
    steps.map((s) =>
      s.urlPattern
        ? sql`(type = ${s.type} and ${urlPredicate(s.urlPattern, postgres)})`
        : sql`type = ${s.type}`,
    ),
    sql` or `,
  );
  return keysetPages<StepEventRow>(
    db,
    opts.withSession
      ? sql`visitor_id, type, url, data, ts, session_id`
      : sql`visitor_id, type, url, data, ts`,
    sql`project_id = ${project.id} and ts >= ${range.from} and ts < ${range.to} and is_bot = 0 and (${any})`,
    opts.pageRows ?? 20_000,
  );
}

/**
 * Runs `work` in one transaction while no events are written: this process's writer waits for it,
 * and on PostgreSQL every process's flush waits at its insert (a lock on `events` that conflicts
 * only with writes). `eraseEvents` deletes a person's events inside it (erasure.ts).
 */
export function withIngestPaused<T>(
  deps: ServiceDeps,
  work: (
    trx: Trx,
    eraseEvents: (
      projectId: string,
      person: { visitorIds: string[]; leadId?: string },
    ) => Promise<ErasedEvents>,
  ) => Promise<T>,
): Promise<T> {
  return writerFor(deps).exclusive(async (trx, forget) => {
    if (isPostgresDb(trx)) await sql`lock table events in share row exclusive mode`.execute(trx);
    return work(trx, (projectId, person) => deleteEventsOf(trx, projectId, person, forget));
  });
}

/**
 * A project's non-bot events that have a visitor, in [from, to), page by page, with what visitor
 * counts are built from (rebuilding sketches after an erasure).
 */
export function visitorEventPages(
  db: DbOrTrx,
  projectId: string,
  range: ExportRange,
): AsyncGenerator<
  { visitor_id: string; channel: string; type: string; ts: number | string; is_server: number }[]
> {
  return keysetPages(
    db,
    sql`visitor_id, channel, type, ts, is_server`,
    sql`project_id = ${projectId} and ts >= ${range.from} and ts < ${range.to} and is_bot = 0 and visitor_id <> ''`,
    20_000,
  );
}
