import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import type { IdentityChange } from "./changes.js";
import "./tables.js";

/**
 * When a person became known, as the caller says (a `timestamp` on POST /api/identity, the stitch,
 * Segment's identify or alias, a batch's events): a lead's creation and a visitor's link are the
 * earliest time known, never later than when Lift learned of them. History imported from another
 * tool keeps its dates, and the daily leads count follows the creation day.
 */
export interface Dating {
  /** epoch ms, at most now */
  at: number;
  /**
   * Whether existing records may move earlier. A page's public key (anyone can read it) only dates
   * what its call creates, as it only fills missing properties.
   */
  moveEarlier: boolean;
}

const EPOCH_2000 = 946_684_800_000;
const FUTURE_SLACK_MS = 86_400_000;
const ISO = /^\d{4}-\d{2}-\d{2}(T|$)/;
const DAY_MS = 86_400_000;

/**
 * A body's `timestamp` as epoch ms (ISO 8601, from 2000 to now + 1 day, as events take), capped at
 * now; undefined when absent. 400 naming the field otherwise.
 */
export function timestampOf(value: string | undefined, field: string, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const ms = ISO.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw validation(`${field} must be an ISO 8601 date-time`);
  if (ms < EPOCH_2000 || ms > now + FUTURE_SLACK_MS)
    throw validation(`${field} is out of range (2000 to now + 1 day)`);
  return Math.min(Math.floor(ms), now);
}

export const isoAt = (ms: number) => new Date(ms).toISOString();

/**
 * Moves the lead's creation earlier to `at` when it was created later (never later). A move to
 * another day is a change (`lead-moved`, with the channel the lead was counted under): the daily
 * leads count follows it.
 */
export async function backdateLead(
  trx: Trx,
  project: ProjectRef,
  leadId: string,
  at: number,
  changes: IdentityChange[],
): Promise<void> {
  const to = isoAt(at);
  // A concurrent move of the same lead changes created_at under us: read again and retry.
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await trx
      .selectFrom("identity_leads")
      .select(["created_at", "counted_channel", "channel"])
      .where("project_id", "=", project.id)
      .where("id", "=", leadId)
      .where("created_at", ">", to)
      .executeTakeFirst();
    if (!row) return;
    const res = await trx
      .updateTable("identity_leads")
      .set({ created_at: to, updated_at: isoAt(Date.now()) })
      .where("project_id", "=", project.id)
      .where("id", "=", leadId)
      .where("created_at", "=", row.created_at)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) continue;
    const from = Date.parse(row.created_at);
    if (Math.floor(from / DAY_MS) === Math.floor(at / DAY_MS)) return;
    const channel = row.counted_channel ?? row.channel;
    changes.push({ kind: "lead-moved", project, leadId, channel, from, to: at });
    return;
  }
}

/** Moves a visitor's link time earlier to `at` (never later). */
export async function backdateLink(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
  at: number,
): Promise<void> {
  await trx
    .updateTable("identity_visitors")
    .set({ linked_at: isoAt(at) })
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .where("linked_at", ">", isoAt(at))
    .execute();
}
