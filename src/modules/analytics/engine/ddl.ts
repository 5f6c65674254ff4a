import { EVENT_ROW_COLUMNS } from "../../event-store/service.js";
import { SESSION_DIMENSIONS } from "../ingest/dimensions.js";
/**
 * The analytics engine's tables (DuckDB, columnar): a copy of the committed events and of what
 * reports join them with, kept by the engine thread (thread.ts) from the durable store. `engine_state`
 * holds the watermarks, written in the same DuckDB transaction as the rows they cover, so a crash at
 * any moment leaves rows and watermark agreeing: nothing lost, nothing twice.
 */
/** Bumped when a table's shape changes: a copy of another version is rebuilt on start. */
export const ENGINE_VERSION = "4";

/** The values of its session a visit holds (`sessions`' columns of the same names; its start is `session_ts`). */
export const VISIT_SESSION_VALUES = ["channel", ...SESSION_DIMENSIONS] as const;

export const ENGINE_DDL = [
  `create table if not exists events (
    id varchar not null,
    project_id varchar not null,
    visitor_id varchar not null,
    lead_id varchar,
    type varchar not null,
    url varchar not null,
    referrer varchar,
    data varchar not null,
    ts bigint not null,
    received_at bigint not null,
    session_id varchar not null,
    channel varchar not null,
    source varchar,
    is_bot boolean not null,
    is_server boolean not null
  )`,
  // One row per web session: its start and the values it decided (the row store's touchpoints).
  `create table if not exists sessions (
    project_id varchar not null,
    session_id varchar not null,
    visitor_id varchar not null,
    channel varchar not null,
    ts bigint not null,
    source varchar,
    campaign varchar,
    landing_page varchar,
    referrer_domain varchar,
    device varchar,
    browser varchar,
    os varchar
  )`,
  // Visitor → lead: a lead's visitors are one person.
  `create table if not exists links (
    project_id varchar not null,
    visitor_id varchar not null,
    lead_id varchar not null
  )`,
  // The conversions and goal hits analytics recorded for copied events. `channel` is the one
  // recorded (the person's first touch then, never rewritten); the person is the links' now.
  // `session_id` is its event's web session (the web view's visit), null for another event's.
  `create table if not exists conversions (
    project_id varchar not null,
    event_id varchar not null,
    visitor_id varchar not null,
    goal_id varchar,
    type varchar not null,
    revenue double not null,
    counted integer not null,
    currency varchar,
    channel varchar not null,
    ts bigint not null,
    session_id varchar
  )`,
  `create table if not exists goal_hits (
    project_id varchar not null,
    goal_key varchar not null,
    event_id varchar not null,
    ts bigint not null
  )`,
  // One row per web session: what its web events (neither a bot's nor a server's) say, kept by the
  // copy as they arrive (visits.ts), so the web view reads a row per visit instead of its events.
  // The time beside each chosen value lets a later event take its place. The session's own values
  // (its row in `sessions`: start, channel, dimensions) are held too, so the view joins nothing;
  // null until the copy holds the session's row. `pages`: its page views' pages, in no order, one
  // per line (visits.ts; a list column would be rewritten whole on each merge, text is updated).
  `create table if not exists visits (
    project_id varchar not null,
    session_id varchar not null,
    visitor_id varchar not null,
    session_ts bigint,
    ${VISIT_SESSION_VALUES.map((c) => `${c} varchar,`).join("\n    ")}
    pageviews integer not null,
    pages varchar not null,
    first_ts bigint not null,
    last_ts bigint not null,
    landing_url varchar not null,
    entry_ts bigint,
    entry_page varchar,
    exit_ts bigint,
    exit_page varchar,
    country_ts bigint,
    country varchar
  )`,
  `create table if not exists engine_state (name varchar primary key, value varchar not null)`,
] as const;

/** The columns of `events` in order, as the appender writes them: the row store's (its DDL above follows them). */
export const EVENT_COLUMNS = EVENT_ROW_COLUMNS;

/** The columns of `sessions` in order: a touchpoint's key and start, then the session's values. */
export const SESSION_COLUMNS = [
  "project_id",
  "session_id",
  "visitor_id",
  "channel",
  "ts",
  ...SESSION_DIMENSIONS,
] as const;

export const CONVERSION_COLUMNS = [
  "project_id",
  "event_id",
  "visitor_id",
  "goal_id",
  "type",
  "revenue",
  "counted",
  "currency",
  "channel",
  "ts",
] as const;

/** The columns of the engine's `conversions`: the store's, then the event's web session. */
export const ENGINE_CONVERSION_COLUMNS = [...CONVERSION_COLUMNS, "session_id"] as const;

export const HIT_COLUMNS = ["project_id", "goal_key", "event_id", "ts"] as const;

/** Every table of the copy (a rebuild drops them all). */
export const ENGINE_TABLES = [
  "events",
  "sessions",
  "links",
  "conversions",
  "goal_hits",
  "visits",
  "engine_state",
] as const;
