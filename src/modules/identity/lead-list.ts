import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { firstTouchForVisitors } from "../event-store/service.js";
import type { Static } from "@sinclair/typebox";
import type { LeadListItem as LeadListItemSchema, LeadListQuery as LeadListQuerySchema } from "./schema.js";
import { decodeCursor, encodeCursor } from "../../platform/cursor.js";
import type { IdentityLeadTable } from "./tables.js";
import { type ReadDeps, type ServiceDeps, stateOf } from "../../platform/deps.js";
import { LEAD_ANALYTICS, type LeadCondition } from "./lead-analytics.js";
import { defineReadTask } from "../../platform/read-pool/task.js";
import { leadPropertyCondition, leadPropertyIs } from "./store.js";

export type LeadListItem = Static<typeof LeadListItemSchema>;
export type LeadListQuery = Static<typeof LeadListQuerySchema> & {
  /** property filters (`where[plan]=pro`): all must match, values compared as text */
  where?: [string, string][];
  /** the report filter, parsed (`filter=`): lead properties in SQL, the rest through analytics */
  conditions?: LeadCondition[];
};

/** A filtered list reads at most this many leads per page before answering with a cursor. */
const SCAN_MAX = 10_000;
/** Event and session conditions look at the last 90 days of a lead's activity. */
const FILTER_DAYS = 90;

export const DEFAULT_LEAD_PAGE = 50;

type LeadRow = Pick<IdentityLeadTable, "id" | "email" | "created_at" | "channel" | "attr_source">;

/**
 * The project's leads, newest first (created_at, then id, both descending), a keyset page at a
 * time. `q` matches a lead id exactly or any part of the email (emails are stored lower-cased);
 * `where` filters by properties (a full scan of the project's leads: no index on properties).
 * Counts per page: visitors from identity, conversions and revenue from analytics. The scan runs
 * on a reader thread (`leadPageTask`); the page's details are a few keyed reads here.
 */
export async function listLeads(
  deps: Pick<ServiceDeps, "db" | "reads" | "state">,
  project: ProjectRef,
  query: LeadListQuery,
): Promise<{ items: LeadListItem[]; nextCursor: string | null }> {
  const { rows, nextCursor } = await deps.reads.run(leadPageTask, project, query);
  return { items: await withDetails(deps, project, rows), nextCursor };
}

/** The page's lead rows, and the cursor after it. */
async function leadPage(
  deps: ReadDeps,
  project: ProjectRef,
  query: LeadListQuery,
): Promise<{ rows: LeadRow[]; nextCursor: string | null }> {
  const { db } = deps;
  const analytics = stateOf(deps, LEAD_ANALYTICS);
  const limit = query.limit ?? DEFAULT_LEAD_PAGE;
  let q = db
    .selectFrom("identity_leads")
    .select(["id", "email", "created_at", "channel", "attr_source"])
    .where("project_id", "=", project.id);
  const search = query.q?.trim();
  if (search) {
    const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([eb("id", "=", search), sql<boolean>`email like ${pattern} escape '\\'`]));
  }
  for (const [name, value] of query.where ?? []) q = q.where(leadPropertyIs(db, name, value));
  const conditions = query.conditions ?? [];
  for (const c of conditions)
    if (c.field === "lead") q = q.where(leadPropertyCondition(db, analytics.propertyTest(c)));
  const others = conditions.filter((c) => c.field !== "lead");
  const today = Math.floor(Date.now() / 86_400_000);
  const match = await analytics.peopleMatching(
    deps,
    project,
    { fromDay: today - FILTER_DAYS + 1, toDay: today },
    others,
  );
  const pageFrom = (cursor: string | undefined) => {
    if (!cursor) return q;
    const [createdAt, id] = decodeCursor(cursor);
    return q.where((eb) =>
      eb.or([
        eb("created_at", "<", createdAt),
        eb.and([eb("created_at", "=", createdAt), eb("id", "<", id)]),
      ]),
    );
  };
  const ordered = (cursor: string | undefined, n: number) =>
    pageFrom(cursor).orderBy("created_at", "desc").orderBy("id", "desc").limit(n).execute();
  let rows: LeadRow[];
  let scanCursor: string | null = null;
  if (!match) rows = await ordered(query.cursor, limit + 1);
  else {
    // Keep the leads the other conditions select, reading on until the page is full or SCAN_MAX.
    rows = [];
    let cursor = query.cursor;
    for (let scanned = 0; rows.length <= limit; ) {
      const batch = await ordered(cursor, 500);
      for (const r of batch) if (match(`l:${r.id}`)) rows.push(r);
      scanned += batch.length;
      const last = batch[batch.length - 1];
      if (batch.length < 500 || !last) break;
      cursor = encodeCursor(last.created_at, last.id);
      if (scanned >= SCAN_MAX && rows.length <= limit) {
        scanCursor = cursor;
        break;
      }
    }
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : scanCursor,
  };
}

export const leadPageTask = defineReadTask("identity.lead-page", (ctx, project, query: LeadListQuery) =>
  leadPage(ctx, project, query),
);

/** Each lead's visitors, first touch, conversions and revenue: keyed reads for one page. */
async function withDetails(
  deps: Pick<ServiceDeps, "db" | "state">,
  project: ProjectRef,
  page: LeadRow[],
): Promise<LeadListItem[]> {
  const { db } = deps;
  const ids = page.map((r) => r.id);

  const visitors =
    ids.length === 0
      ? []
      : await db
          .selectFrom("identity_visitors")
          .select(["lead_id", "visitor_id"])
          .where("project_id", "=", project.id)
          .where("lead_id", "in", ids)
          .execute();
  const visitorsOf = new Map<string, string[]>();
  for (const v of visitors) {
    const list = visitorsOf.get(v.lead_id!) ?? [];
    list.push(v.visitor_id);
    visitorsOf.set(v.lead_id!, list);
  }
  // A lead linked before its visitors' first events has no stored first touch yet (as getLead).
  const missing = page.filter((r) => r.channel === null).flatMap((r) => visitorsOf.get(r.id) ?? []);
  const touches = new Map((await firstTouchForVisitors(db, project, missing)).map((t) => [t.visitorId, t]));
  const totals = await stateOf(deps, LEAD_ANALYTICS).conversionTotals(db, project, ids);

  return page.map((r): LeadListItem => {
    let firstTouch = { channel: r.channel, source: r.attr_source };
    if (r.channel === null) {
      const earliest = (visitorsOf.get(r.id) ?? [])
        .map((v) => touches.get(v))
        .filter((t) => t !== undefined)
        .sort((x, y) => x.firstSeen - y.firstSeen)[0];
      if (earliest) firstTouch = { channel: earliest.channel, source: earliest.source };
    }
    const total = totals.get(r.id);
    return {
      id: r.id,
      email: r.email,
      createdAt: r.created_at,
      firstTouch,
      visitors: visitorsOf.get(r.id)?.length ?? 0,
      visitorIds: (visitorsOf.get(r.id) ?? []).sort(),
      conversions: total?.conversions ?? 0,
      revenue: total?.revenue ?? 0,
    };
  });
}
