import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { SESSION_DIMENSIONS, type SessionDimensions } from "./ingest/dimensions.js";
import type { Touch } from "./ingest/models.js";
import "./tables.js";

/** A session as attribution and breakdowns see it: channel, start, and its dimensions. */
export interface SessionTouch extends Touch {
  dims: SessionDimensions;
}

const CHUNK = 400;

/** The unit attribution credits: the lead once the visitor is linked, else the visitor. */
export const personKey = (visitorId: string, leadId: string | null | undefined): string =>
  leadId ? `l:${leadId}` : `v:${visitorId}`;

/** Past this many visitors, reading every link of the project is cheaper than looking them up. */
const LOOKUPS_MAX = 4000;

/** Visitor → lead for the given visitors (analytics' own copy of identity's links). */
export async function leadsOfVisitors(
  db: DbOrTrx,
  projectId: string,
  visitorIds: string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (visitorIds.length > LOOKUPS_MAX) {
    // A report over many visitors (funnels): one read instead of one per 400.
    const wanted = new Set(visitorIds);
    for (const r of await linksOfProject(db, projectId))
      if (wanted.has(r.visitor_id)) out.set(r.visitor_id, r.lead_id);
    return out;
  }
  for (let i = 0; i < visitorIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom("analytics_links")
      .select(["visitor_id", "lead_id"])
      .where("project_id", "=", projectId)
      .where("visitor_id", "in", visitorIds.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(r.visitor_id, r.lead_id);
  }
  return out;
}

/** Every visitor → lead link of the project (a report over most of its visitors). */
export function linksOfProject(db: DbOrTrx, projectId: string) {
  return db
    .selectFrom("analytics_links")
    .select(["visitor_id", "lead_id"])
    .where("project_id", "=", projectId)
    .execute();
}

/** The visitors of each person: all visitors of a lead, or the visitor alone. */
export async function visitorsOfPeople(
  trx: Trx,
  projectId: string,
  keys: string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const leads: string[] = [];
  for (const k of keys) {
    if (k.startsWith("v:")) out.set(k, [k.slice(2)]);
    else {
      out.set(k, []);
      leads.push(k.slice(2));
    }
  }
  for (let i = 0; i < leads.length; i += CHUNK) {
    const rows = await trx
      .selectFrom("analytics_links")
      .select(["visitor_id", "lead_id"])
      .where("project_id", "=", projectId)
      .where("lead_id", "in", leads.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.get(personKey(r.visitor_id, r.lead_id))!.push(r.visitor_id);
  }
  return out;
}

/** Sessions (channel, start, dimensions) of the given visitors started in [from, to]. */
export async function sessionsOf(
  trx: Trx,
  projectId: string,
  visitorIds: string[],
  range: { from?: number; to?: number } = {},
): Promise<Map<string, SessionTouch[]>> {
  const out = new Map<string, SessionTouch[]>();
  for (let i = 0; i < visitorIds.length; i += CHUNK) {
    let q = trx
      .selectFrom("analytics_touchpoints")
      .select(["visitor_id", "channel", "ts", ...SESSION_DIMENSIONS])
      .where("project_id", "=", projectId)
      .where("visitor_id", "in", visitorIds.slice(i, i + CHUNK));
    if (range.from !== undefined) q = q.where("ts", ">=", range.from);
    if (range.to !== undefined) q = q.where("ts", "<=", range.to);
    for (const r of await q.execute()) {
      const list = out.get(r.visitor_id) ?? [];
      const dims = {} as SessionDimensions;
      for (const d of SESSION_DIMENSIONS) dims[d] = r[d];
      list.push({ channel: r.channel, ts: Number(r.ts), dims });
      out.set(r.visitor_id, list);
    }
  }
  return out;
}
