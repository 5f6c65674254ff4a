import type { Trx } from "../../platform/db/index.js";
import { deleteStoredEvents } from "./store/erasure.js";
import type { ForgetVisitors } from "./writer.js";
import "./tables.js";

const CHUNK = 400;
const DAY_MS = 86_400_000;

/** What deleting a person's events removed: how many, and the UTC days of the non-bot ones. */
export interface ErasedEvents {
  events: number;
  /** ids of the deleted events (other modules keep records keyed by them) */
  ids: string[];
  days: number[];
}

/**
 * Deletes the events of the given visitors (and, for a lead, those sent with its id from any
 * visitor), their session state and, on SQLite, their per-visitor index entries. Runs inside the
 * writer's exclusive transaction (`forget` drops the in-memory state after it commits).
 */
export async function deleteEventsOf(
  trx: Trx,
  projectId: string,
  person: { visitorIds: string[]; leadId?: string },
  forget: ForgetVisitors,
): Promise<ErasedEvents> {
  const { visitorIds } = person;
  const rows = await deleteStoredEvents(trx, projectId, person);
  for (let i = 0; i < visitorIds.length; i += CHUNK)
    await trx
      .deleteFrom("event_visitors")
      .where("project_id", "=", projectId)
      .where("visitor_id", "in", visitorIds.slice(i, i + CHUNK))
      .execute();
  forget(
    projectId,
    [...new Set([...visitorIds, ...rows.map((r) => r.visitor_id)])],
    rows.flatMap((r) => (r.seq === undefined ? [] : [r.seq])),
  );
  const days = new Set<number>();
  for (const r of rows) if (!Number(r.is_bot)) days.add(Math.floor(Number(r.ts) / DAY_MS));
  return { events: rows.length, ids: rows.map((r) => r.id), days: [...days].sort((a, b) => a - b) };
}
