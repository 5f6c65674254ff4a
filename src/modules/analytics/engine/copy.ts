import { type DuckDBConnection, listValue } from "@duckdb/node-api";
import type { Db } from "../../../platform/db/index.js";
import {
  type EventTable,
  type FeedCursor,
  committedEventsAfter,
  eventsByIds,
  lateEventIds,
} from "../../event-store/service.js";
import { type ColumnKind, appendRows, inTransaction, insertMissing } from "./append.js";
import { type StoredChange, changesSince } from "./changes.js";
import { ENGINE_CONVERSION_COLUMNS, HIT_COLUMNS, SESSION_COLUMNS } from "./ddl.js";
import { type LinkKey, linksPage, recordsOfEvents, recountRecords, touchpointsOf } from "./source.js";
import { appendEventsAndVisits, dropVisitsOf, remadeVisits, withWebSessions } from "./visits.js";

/**
 * Keeps the engine's copy (ddl.ts) up with the durable store, on the engine's thread:
 * - committed events after the cursor, with the sessions they started (their touchpoints), the
 *   conversions and goal hits recorded for them (in the events' own transaction, so already there),
 *   and their web sessions' visits merged (visits.ts);
 * - links written since the links' cursor;
 * - changes to rows already copied (changes.ts): erasures, recounts, deleted goals.
 * Each page is one DuckDB transaction with the cursors it moves, so a crash leaves the copy and its
 * cursors agreeing. Reports ask for a sync first, so they see every event committed before they
 * were asked.
 */

const PAGE = 20_000;
const SESSIONS_KNOWN = 200_000;
/** Links and changes are read again this far behind their cursor: rows another process committed late. */
const OVERLAP_MS = 5_000;

interface Cursors {
  events: FeedCursor;
  /** the last link taken, in (time, project, visitor) order */
  links: LinkKey;
  /** the newest change applied */
  changes: number;
}

const EVENT_KINDS: Partial<Record<string, ColumnKind>> = {
  ts: "bigint",
  received_at: "bigint",
  is_bot: "boolean",
  is_server: "boolean",
};
const SESSION_KINDS: Partial<Record<string, ColumnKind>> = { ts: "bigint" };
const CONVERSION_KINDS: Partial<Record<string, ColumnKind>> = {
  revenue: "double",
  counted: "integer",
  ts: "bigint",
};
const HIT_KINDS: Partial<Record<string, ColumnKind>> = { ts: "bigint" };

export class EngineCopy {
  private cursors: Cursors = { events: {}, links: NO_LINK, changes: 0 };
  /** sessions already copied (bounded; a repeat is dropped by the insert's anti-join anyway) */
  private knownSessions = new Set<string>();
  /** changes applied within the overlap (a change applied twice is harmless, but costs) */
  private applied = new Set<string>();
  /** PostgreSQL: links applied within the overlap */
  private appliedLinks = new Set<string>();

  constructor(
    private readonly duck: DuckDBConnection,
    private readonly store: Db,
    private readonly postgres: boolean,
  ) {}

  async open(): Promise<void> {
    const state = await this.duck.runAndReadAll("select value from engine_state where name = 'cursors'");
    const row = state.getRowObjectsJS()[0];
    if (!row) return;
    const held = JSON.parse(String(row.value)) as Partial<Cursors> & { links?: LinkKey | number };
    // A copy from before the links' cursor was a key held only their time.
    const links = typeof held.links === "number" ? { ...NO_LINK, changedAt: held.links } : held.links;
    this.cursors = { ...this.cursors, ...held, links: links ?? NO_LINK };
  }

  /** Copies everything committed until now; returns how many events it took. */
  async sync(onProgress?: (events: number) => void): Promise<number> {
    let taken = 0;
    for (;;) {
      const page = await committedEventsAfter(this.store, this.cursors.events, PAGE);
      if (page.rows.length === 0) break;
      await this.take(page.rows, { ...this.cursors, events: page.next });
      taken += page.rows.length;
      onProgress?.(taken);
      if (page.rows.length < PAGE) break;
    }
    if (this.postgres) taken += await this.takeLate();
    await this.takeLinks();
    await this.takeChanges();
    return taken;
  }

  /** PostgreSQL: rows that committed behind the cursor (event-store/store/feed.ts), those the copy lacks. */
  private async takeLate(): Promise<number> {
    const ids = await lateEventIds(this.store, this.cursors.events);
    if (ids.length === 0) return 0;
    const held = await this.duck.runAndReadAll(
      "select id from events where received_at >= $1 and id in (select unnest($2::varchar[]))",
      [this.cursors.events.receivedAt! - 60_000, listValue(ids)],
    );
    const have = new Set(held.getRowObjectsJS().map((r) => String(r.id)));
    const missing = ids.filter((id) => !have.has(id));
    if (missing.length === 0) return 0;
    await this.take(await eventsByIds(this.store, missing), this.cursors);
    return missing.length;
  }

  /** One page: its events, the sessions they started, their conversions and hits, the cursors. */
  private async take(rows: EventTable[], next: Cursors): Promise<void> {
    const sessions = await touchpointsOf(this.store, this.newSessions(rows));
    const { conversions, hits } = await recordsOfEvents(
      this.store,
      rows.map((r) => r.id),
    );
    await inTransaction(this.duck, async () => {
      // A session's start in the store only moves earlier (an earlier event joining it), so a copy
      // taken before holds a start no earlier than the one read now; an event's conversions and
      // hits keep its time.
      const stagedSessions = await insertMissing(
        this.duck,
        "sessions",
        SESSION_COLUMNS,
        ["project_id", "session_id"],
        sessions,
        SESSION_KINDS,
        "ts",
      );
      // The page's visits take their session's values from the rows just copied.
      await appendEventsAndVisits(
        this.duck,
        rows as unknown as Record<string, unknown>[],
        EVENT_KINDS,
        stagedSessions,
      );
      await insertMissing(
        this.duck,
        "conversions",
        ENGINE_CONVERSION_COLUMNS,
        ["event_id"],
        withWebSessions(conversions, rows),
        CONVERSION_KINDS,
        "ts",
      );
      await insertMissing(
        this.duck,
        "goal_hits",
        HIT_COLUMNS,
        ["goal_key", "event_id"],
        hits,
        HIT_KINDS,
        "ts",
      );
      await this.saveCursors(next);
    });
    this.cursors = next;
  }

  /** The web sessions of the page's events not copied yet (as far as this process remembers), per project. */
  private newSessions(rows: EventTable[]): Map<string, Set<string>> {
    const byProject = new Map<string, Set<string>>();
    for (const r of rows) {
      if (Number(r.is_server) === 1 || r.session_id === "" || Number(r.is_bot) === 1) continue;
      const key = `${r.project_id}\u0000${r.session_id}`;
      if (this.knownSessions.has(key)) continue;
      this.knownSessions.add(key);
      const set = byProject.get(r.project_id) ?? new Set<string>();
      set.add(r.session_id);
      byProject.set(r.project_id, set);
    }
    if (this.knownSessions.size > SESSIONS_KNOWN) this.knownSessions.clear();
    return byProject;
  }

  /**
   * Links written after the links' cursor (a keyset: time, project, visitor), a page at a time, each
   * replacing the visitor's. PostgreSQL: several processes write, and a link's time is taken before
   * its transaction commits, so the overlap before the cursor is read again and the links in it not
   * applied yet (this process's memory; after a restart, once more, which is harmless) are taken.
   * Links from before the feed existed all have time 0: with nothing newer, no overlap is read.
   */
  private async takeLinks(): Promise<void> {
    const cursor = this.cursors.links;
    if (this.postgres && cursor.changedAt > 0) {
      const late = (await linksPage(this.store, cursor.changedAt - OVERLAP_MS, null, PAGE)).filter(
        (r) => !isAfter(r, cursor) && !this.appliedLinks.has(linkId(r)),
      );
      if (late.length > 0) await this.applyLinks(late, cursor);
    }
    for (;;) {
      const rows = await linksPage(this.store, cursor.changedAt, this.cursors.links, PAGE);
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!;
      await this.applyLinks(rows, {
        changedAt: Number(last.changed_at),
        projectId: String(last.project_id),
        visitorId: String(last.visitor_id),
      });
      if (rows.length < PAGE) return;
    }
  }

  private async applyLinks(rows: Record<string, unknown>[], next: LinkKey): Promise<void> {
    await inTransaction(this.duck, async () => {
      await this.duck.run("create temp table if not exists staged_links as select * from links limit 0");
      await this.duck.run("delete from staged_links");
      await appendRows(this.duck, "staged_links", ["project_id", "visitor_id", "lead_id"], rows, {}, "temp");
      await this.duck.run(`delete from links l using staged_links n
        where l.project_id = n.project_id and l.visitor_id = n.visitor_id`);
      await this.duck.run("insert into links select * from staged_links");
      await this.saveCursors({ ...this.cursors, links: next });
    });
    this.cursors = { ...this.cursors, links: next };
    if (!this.postgres) return;
    for (const r of rows) this.appliedLinks.add(linkId(r));
    if (this.appliedLinks.size > 100_000) this.appliedLinks.clear();
  }

  /** Changes since the cursor (less the overlap) not applied yet, each in a transaction with the cursor. */
  private async takeChanges(): Promise<void> {
    const changes = await changesSince(this.store, Math.max(0, this.cursors.changes - OVERLAP_MS));
    for (const change of changes) {
      if (this.applied.has(change.id)) continue;
      const newest = Math.max(this.cursors.changes, Number(change.at));
      const records = change.kind === "recount" ? await recountRecords(this.store, eventsOf(change)) : null;
      await inTransaction(this.duck, async () => {
        await this.apply(change, records);
        await this.saveCursors({ ...this.cursors, changes: newest });
      });
      this.cursors = { ...this.cursors, changes: newest };
      this.applied.add(change.id);
    }
    // Forget what the next read's overlap no longer reaches.
    if (this.applied.size > 10_000) this.applied.clear();
  }

  private async apply(
    change: StoredChange,
    records: Awaited<ReturnType<typeof recountRecords>> | null,
  ): Promise<void> {
    const subject = JSON.parse(change.subject) as Record<string, unknown>;
    const p = change.project_id;
    if (change.kind === "erase") {
      const lead = (subject.lead as string | undefined) ?? null;
      const visitors = [...(subject.visitors as string[]), ...(lead ? [`lead:${lead}`] : [])];
      const params = [p, listValue(visitors), lead];
      const theirs = "project_id = $1 and (visitor_id in (select unnest($2::varchar[])) or lead_id = $3)";
      const theirEvents = `event_id in (select id from events where ${theirs})`;
      // Their sessions' visits go, and come back from the events left (a lead's events may be some of a session's).
      await dropVisitsOf(this.duck, theirs, params);
      await this.duck.run(`delete from goal_hits where project_id = $1 and ${theirEvents}`, params);
      await this.duck.run(
        `delete from conversions where project_id = $1 and (visitor_id in (select unnest($2::varchar[])) or ${theirEvents})`,
        params,
      );
      await this.duck.run(`delete from events where ${theirs}`, params);
      await this.duck.run(
        "delete from sessions where project_id = $1 and visitor_id in (select unnest($2::varchar[]))",
        [p, listValue(visitors)],
      );
      await this.duck.run(`delete from links where ${theirs}`, params);
      await remadeVisits(this.duck);
    } else if (change.kind === "recount") {
      const ids = listValue(eventsOf(change));
      await this.duck.run(
        "delete from goal_hits where project_id = $1 and event_id in (select unnest($2::varchar[]))",
        [p, ids],
      );
      await this.duck.run(
        "delete from conversions where project_id = $1 and event_id in (select unnest($2::varchar[]))",
        [p, ids],
      );
      await appendRows(
        this.duck,
        "conversions",
        ENGINE_CONVERSION_COLUMNS,
        records!.conversions,
        CONVERSION_KINDS,
      );
      await appendRows(this.duck, "goal_hits", HIT_COLUMNS, records!.hits, HIT_KINDS);
    } else if (change.kind === "goal-dropped") {
      await this.duck.run("delete from goal_hits where project_id = $1 and goal_key = $2", [
        p,
        String(subject.goal),
      ]);
    }
  }

  private async saveCursors(c: Cursors): Promise<void> {
    await this.duck.run("insert or replace into engine_state values ('cursors', $1)", [JSON.stringify(c)]);
  }
}

const NO_LINK: LinkKey = { changedAt: 0, projectId: "", visitorId: "" };

/** Whether a link row comes after the key, in the links' order. */
function isAfter(r: Record<string, unknown>, k: LinkKey): boolean {
  const at = Number(r.changed_at);
  if (at !== k.changedAt) return at > k.changedAt;
  const project = String(r.project_id);
  if (project !== k.projectId) return project > k.projectId;
  return String(r.visitor_id) > k.visitorId;
}

const linkId = (r: Record<string, unknown>) => `${r.project_id}\u0000${r.visitor_id}\u0000${r.changed_at}`;

const eventsOf = (change: StoredChange): string[] =>
  (JSON.parse(change.subject) as { events: string[] }).events;
