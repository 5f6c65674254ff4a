import type { Trx } from "../../../platform/db/index.js";
import type { CommittedEvent, FlushContext } from "../../../platform/event-bus.js";
import { type ActivityRow, insertActivity } from "./activity-store.js";
import type { RawConnection } from "./delta-store.js";
import { dayOf } from "./rollup-store.js";
import "../tables.js";

/** Keys remembered over all projects; past it the memory starts over (a repeat row is harmless). */
const REMEMBERED_MAX = 500_000;

/** project → day → type → visitors: no key string is built per event (measured on the ingest path). */
class KeySet {
  private map = new Map<string, Map<number, Map<string, Set<string>>>>();
  size = 0;

  has(projectId: string, day: number, type: string, visitorId: string): boolean {
    return this.map.get(projectId)?.get(day)?.get(type)?.has(visitorId) ?? false;
  }

  /** Returns whether the key was new. */
  add(projectId: string, day: number, type: string, visitorId: string): boolean {
    let days = this.map.get(projectId);
    if (!days) {
      days = new Map();
      this.map.set(projectId, days);
    }
    let types = days.get(day);
    if (!types) {
      types = new Map();
      days.set(day, types);
    }
    let visitors = types.get(type);
    if (!visitors) {
      visitors = new Set();
      types.set(type, visitors);
    }
    if (visitors.has(visitorId)) return false;
    visitors.add(visitorId);
    this.size++;
    return true;
  }
}

/**
 * Writes `analytics_activity` (migration 0392): a row the first time this process sees a project ×
 * day × event type × visitor. Keys are noted per flush and remembered only once the flush commits,
 * so a rolled-back flush is written again when its events are. Per event: a few map lookups; a
 * row per new key.
 */
export class ActivityLog {
  private remembered = new KeySet();
  private pending: ActivityRow[] = [];
  private pendingKeys = new KeySet();

  /** A flush starts: keys noted by one that failed before writing are dropped with it. */
  begin(): void {
    this.pending = [];
    this.pendingKeys = new KeySet();
  }

  note(projectId: string, e: CommittedEvent): void {
    const day = dayOf(e.timestamp);
    if (this.remembered.has(projectId, day, e.type, e.visitorId)) return;
    if (this.pendingKeys.add(projectId, day, e.type, e.visitorId))
      this.pending.push({ projectId, day, type: e.type, visitorId: e.visitorId });
  }

  /** Writes the flush's new keys in its transaction; they are remembered once it commits. */
  async write(trx: Trx, raw: RawConnection, flush: FlushContext): Promise<void> {
    const rows = this.pending;
    this.begin();
    if (rows.length === 0) return;
    // Day order, so rows append where the index already ends.
    rows.sort((a, b) => a.day - b.day);
    await insertActivity(trx, raw, rows);
    flush.afterCommit(() => this.remember(rows));
  }

  private remember(rows: ActivityRow[]): void {
    if (this.remembered.size + rows.length > REMEMBERED_MAX) this.remembered = new KeySet();
    for (const r of rows) this.remembered.add(r.projectId, r.day, r.type, r.visitorId);
  }
}
