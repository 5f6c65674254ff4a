import { PostgresAdapter, sql } from "kysely";
import type { Trx } from "../../platform/db/index.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import { adoptFirstTouch } from "./leads.js";
import { linkVisitor } from "./links.js";
import "./tables.js";

const CHUNK = 400;

interface VisitorDelta {
  projectId: string;
  workspaceId: string;
  visitorId: string;
  first: CommittedEvent;
  lastSeen: number;
}

/**
 * Identity's event processor: first/last seen and first touch per visitor (one upsert per visitor
 * of the batch, earliest event wins the first touch even when events arrive out of order), then
 * the batch userId links (event.leadId) for leads that exist.
 */
export async function processIdentityEvents(trx: Trx, events: CommittedEvent[]): Promise<void> {
  const visitors = new Map<string, VisitorDelta>();
  const links = new Map<
    string,
    { projectId: string; workspaceId: string; visitorId: string; leadId: string }
  >();
  for (const e of events) {
    const key = `${e.projectId}\u0000${e.visitorId}`;
    const v = visitors.get(key);
    if (!v)
      visitors.set(key, {
        projectId: e.projectId,
        workspaceId: e.workspaceId,
        visitorId: e.visitorId,
        first: e,
        lastSeen: e.timestamp,
      });
    else {
      if (e.timestamp < v.first.timestamp) v.first = e;
      if (e.timestamp > v.lastSeen) v.lastSeen = e.timestamp;
    }
    if (e.leadId) links.set(`${key}\u0000${e.leadId}`, { ...e, leadId: e.leadId });
  }
  const list = [...visitors.values()];
  for (let i = 0; i < list.length; i += CHUNK) await upsertVisitors(trx, list.slice(i, i + CHUNK));
  await followLinkedVisitors(trx, list);
  for (const l of links.values()) {
    const project = { id: l.projectId, workspaceId: l.workspaceId };
    const exists = await trx
      .selectFrom("identity_leads")
      .select("id")
      .where("project_id", "=", l.projectId)
      .where("id", "=", l.leadId)
      .executeTakeFirst();
    // An unknown userId is not a lead we know of; a visitor already linked elsewhere stays put.
    if (exists) await linkVisitor(trx, project, l.visitorId, l.leadId, "userId", "skip");
  }
}

async function upsertVisitors(trx: Trx, part: VisitorDelta[]): Promise<void> {
  const greatest = trx.getExecutor().adapter instanceof PostgresAdapter ? "greatest" : "max";
  // A placeholder row (channel null: created by a link before any event) takes the event's values.
  const earlier = sql`(identity_visitors.channel is null or excluded.first_seen < identity_visitors.first_seen)`;
  const pick = <T>(col: string) =>
    sql<T>`case when ${earlier} then excluded.${sql.ref(col)} else identity_visitors.${sql.ref(col)} end`;
  await trx
    .insertInto("identity_visitors")
    .values(
      part.map((v) => ({
        project_id: v.projectId,
        visitor_id: v.visitorId,
        workspace_id: v.workspaceId,
        lead_id: null,
        link_source: null,
        linked_at: null,
        first_seen: v.first.timestamp,
        last_seen: v.lastSeen,
        channel: v.first.channel,
        source: v.first.source,
        landing_page: v.first.url,
      })),
    )
    .onConflict((oc) =>
      oc.columns(["project_id", "visitor_id"]).doUpdateSet({
        first_seen: pick<number>("first_seen"),
        channel: pick<string | null>("channel"),
        source: pick<string | null>("source"),
        landing_page: pick<string | null>("landing_page"),
        last_seen: sql<number>`case when identity_visitors.channel is null then excluded.last_seen else ${sql.raw(greatest)}(identity_visitors.last_seen, excluded.last_seen) end`,
      }),
    )
    .execute();
}

/**
 * Visitors of the batch that are already linked: their lead takes an earlier first touch (the
 * first events of a visitor stitched before it sent any, or out-of-order events).
 */
async function followLinkedVisitors(trx: Trx, list: VisitorDelta[]): Promise<void> {
  const byProject = new Map<string, VisitorDelta[]>();
  for (const v of list) {
    const vs = byProject.get(v.projectId);
    if (vs) vs.push(v);
    else byProject.set(v.projectId, [v]);
  }
  for (const [projectId, vs] of byProject) {
    for (let i = 0; i < vs.length; i += CHUNK) {
      const rows = await trx
        .selectFrom("identity_visitors as v")
        .innerJoin("identity_leads as l", "l.id", "v.lead_id")
        .select(["v.lead_id", "v.first_seen", "v.channel", "v.source", "v.landing_page"])
        .where("v.project_id", "=", projectId)
        .where(
          "v.visitor_id",
          "in",
          vs.slice(i, i + CHUNK).map((v) => v.visitorId),
        )
        .where((eb) => eb.or([eb("l.channel", "is", null), eb("l.first_seen", ">", eb.ref("v.first_seen"))]))
        .execute();
      const project = { id: projectId, workspaceId: vs[0]!.workspaceId };
      for (const r of rows) {
        await adoptFirstTouch(trx, project, r.lead_id!, {
          firstSeen: Number(r.first_seen),
          channel: r.channel,
          source: r.source,
          landingPage: r.landing_page,
        });
      }
    }
  }
}
