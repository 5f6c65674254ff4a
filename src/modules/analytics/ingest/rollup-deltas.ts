/** A flush's changes to the daily rollups, collected per project × UTC day × channel (rollup-store.ts applies them). */

/**
 * A row per day holding only the day's visitor sketch over all channels, so totals merge one
 * sketch per day instead of one per day and channel. Real channel names never start with "$".
 */
export const ALL_CHANNELS = "$all";

export const DAY_MS = 86_400_000;
export const dayOf = (ts: number): number => Math.floor(ts / DAY_MS);

/** Changes to one rollup row (project × UTC day × channel) collected from a batch. */
export interface RollupDelta {
  projectId: string;
  day: number;
  channel: string;
  visitorHashes: Set<number>;
  conversions: number;
  revenue: number;
  leads: number;
}

export class RollupDeltas {
  readonly rows: RollupDelta[] = [];
  // project → day → channel: called twice per event, so no key string is built per call
  private index = new Map<string, Map<number, Map<string, RollupDelta>>>();
  get(projectId: string, ts: number, channel: string): RollupDelta {
    const day = dayOf(ts);
    let days = this.index.get(projectId);
    if (!days) {
      days = new Map();
      this.index.set(projectId, days);
    }
    let channels = days.get(day);
    if (!channels) {
      channels = new Map();
      days.set(day, channels);
    }
    let d = channels.get(channel);
    if (!d) {
      d = { projectId, day, channel, visitorHashes: new Set(), conversions: 0, revenue: 0, leads: 0 };
      channels.set(channel, d);
      this.rows.push(d);
    }
    return d;
  }
}
