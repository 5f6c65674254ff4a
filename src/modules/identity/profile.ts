import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import type { CommittedEvent } from "../../platform/event-bus.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { type ReadDeps, stateOf } from "../../platform/deps.js";
import { LEAD_ANALYTICS } from "./lead-analytics.js";
import { type Lead, findLead, getLead, toLead } from "./leads.js";
import { type PropertySource, nextMarks, parseMarks } from "./property-marks.js";
import { ensureVisitor } from "./visitors.js";
import "./tables.js";

/** A lead's properties, serialized, hold at most this many bytes (as an event's `data`). */
export const MAX_PROPERTIES_BYTES = 32 * 1024;

export interface PropertyChange {
  /** overwrite (PostHog `$set`, Segment traits) */
  set?: Record<string, unknown>;
  /** only where the lead has no such property yet (PostHog `$set_once`) */
  setOnce?: Record<string, unknown>;
  /** who writes it (property-marks.ts): `server` unless said */
  source?: PropertySource;
  /** names whose values a public key wrote earlier (a visitor's, merged on link): marked as such */
  browserNames?: ReadonlySet<string>;
}

/**
 * Properties (JSON) after a change: `setOnce` fills only missing keys, then `set` overwrites; and
 * the browser marks after it. A server's `set` vouches for a value even when it is unchanged; a
 * browser's counts only where it changed something.
 */
function applyChange(
  json: string,
  marksJson: string | null,
  change: PropertyChange,
): { text: string; marks: string | null } {
  const before = JSON.parse(json) as Record<string, unknown>;
  const next = { ...before };
  const written: string[] = [];
  for (const [k, v] of Object.entries(change.setOnce ?? {}))
    if (!(k in next)) {
      next[k] = v;
      written.push(k);
    }
  const source = change.source ?? "server";
  for (const [k, v] of Object.entries(change.set ?? {})) {
    if (source !== "browser" || !(k in before) || JSON.stringify(before[k]) !== JSON.stringify(v))
      written.push(k);
    next[k] = v;
  }
  return { text: JSON.stringify(next), marks: nextMarks(marksJson, written, source, change.browserNames) };
}

/**
 * Merges properties into a lead: `set` overwrites, `setOnce` fills only missing keys. A change
 * fires lead.updated (`changed: ["properties"]`) in the caller's transaction. Properties past
 * MAX_PROPERTIES_BYTES are refused (`tooLarge: "throw"`, an API call) or left as they were
 * (`"skip"`, an event: the events commit must not fail over it). Returns whether anything changed.
 */
export async function updateLeadProperties(
  trx: Trx,
  project: ProjectRef,
  leadId: string,
  change: PropertyChange,
  tooLarge: "throw" | "skip" = "throw",
): Promise<boolean> {
  const row = await findLead(trx, project, leadId);
  if (!row) return false;
  const { text, marks } = applyChange(row.properties, row.browser_properties, change);
  if (text === row.properties) {
    // Only who vouches for a value changed (a server set what a browser had): no lead.updated.
    if (marks !== row.browser_properties)
      await trx
        .updateTable("identity_leads")
        .set({ browser_properties: marks })
        .where("project_id", "=", project.id)
        .where("id", "=", leadId)
        .execute();
    return false;
  }
  if (Buffer.byteLength(text) > MAX_PROPERTIES_BYTES) {
    if (tooLarge === "skip") return false;
    throw validation(`a lead's properties hold at most ${MAX_PROPERTIES_BYTES / 1024} KiB of JSON`);
  }
  const updated = await trx
    .updateTable("identity_leads")
    .set({ properties: text, browser_properties: marks, updated_at: new Date().toISOString() })
    .where("project_id", "=", project.id)
    .where("id", "=", leadId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await emitServiceEvent(trx, project, "lead.updated", { ...toLead(updated), changed: ["properties"] });
  return true;
}

/**
 * An anonymous visitor's properties, kept on its identity row (created here if the visitor has
 * none yet) with the same rules and limit as a lead's; an event's change over the limit is skipped.
 */
async function updateVisitorProperties(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
  change: PropertyChange,
): Promise<void> {
  const row = await ensureVisitor(trx, project, visitorId);
  const { text, marks } = applyChange(row.properties ?? "{}", row.browser_properties, change);
  if (text === (row.properties ?? "{}") && marks === row.browser_properties) return;
  if (Buffer.byteLength(text) > MAX_PROPERTIES_BYTES) return;
  await trx
    .updateTable("identity_visitors")
    .set({ properties: text, browser_properties: marks })
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .execute();
}

/**
 * On link: the visitor's anonymous properties join the lead's where the lead has no value yet (a
 * merged person keeps the identified one's values, as in PostHog), and leave the visitor's row.
 * Those a browser wrote stay marked on the lead.
 */
export async function mergeVisitorProperties(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
  leadId: string,
  visitor: { properties: string; browser_properties: string | null },
): Promise<void> {
  const change = {
    setOnce: JSON.parse(visitor.properties) as Record<string, unknown>,
    browserNames: new Set(parseMarks(visitor.browser_properties)),
  };
  await updateLeadProperties(trx, project, leadId, change, "skip");
  await trx
    .updateTable("identity_visitors")
    .set({ properties: null, browser_properties: null })
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .execute();
}

const objectOrNull = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * `$set` / `$set_once` objects inside events' `data` (PostHog's person properties), applied to the
 * event's lead — its batch `userId`, or the lead its visitor is linked to — in event time order.
 * An anonymous visitor keeps them until it is linked (`mergeVisitorProperties`).
 */
export async function applyEventProperties(trx: Trx, events: CommittedEvent[]): Promise<void> {
  const withProps = events.filter(
    (e) => !e.isBot && (objectOrNull(e.data.$set) !== null || objectOrNull(e.data.$set_once) !== null),
  );
  if (withProps.length === 0) return;
  withProps.sort((a, b) => a.timestamp - b.timestamp);
  const leadOf = new Map<string, string | null>();
  for (const e of withProps) {
    const key = `${e.projectId}\u0000${e.visitorId}`;
    let leadId = e.leadId ?? leadOf.get(key);
    if (leadId === undefined) {
      const row = await trx
        .selectFrom("identity_visitors")
        .select("lead_id")
        .where("project_id", "=", e.projectId)
        .where("visitor_id", "=", e.visitorId)
        .executeTakeFirst();
      leadId = row?.lead_id ?? null;
      leadOf.set(key, leadId);
    }
    const project = { id: e.projectId, workspaceId: e.workspaceId };
    const set = objectOrNull(e.data.$set) ?? undefined;
    const setOnce = objectOrNull(e.data.$set_once) ?? undefined;
    const source = e.fromPublicKey ? "browser" : "server";
    if (leadId === null) await updateVisitorProperties(trx, project, e.visitorId, { set, setOnce, source });
    else {
      // Anyone can send a page's public key, naming any userId: it fills a lead's gaps, nothing more
      // (an explicit $set_once value wins over a $set of the same key, as it would have applied first),
      // and what it fills is marked as the browser's.
      const change: PropertyChange = e.fromPublicKey
        ? { setOnce: { ...set, ...setOnce }, source }
        : { set, setOnce };
      await updateLeadProperties(trx, project, leadId, change, "skip");
    }
  }
}

export interface LeadProfile extends Lead {
  visitors: { visitorId: string; linkedAt: string | null; source: string | null }[];
  conversions: number;
  revenue: number;
}

/** A lead with its visitors and its conversion totals; another project's lead is NOT_FOUND. */
export async function getLeadProfile(
  deps: Pick<ReadDeps, "db" | "state">,
  project: ProjectRef,
  id: string,
): Promise<LeadProfile> {
  const { db } = deps;
  const lead = await getLead(db, project, id);
  const visitors = await db
    .selectFrom("identity_visitors")
    .select(["visitor_id", "linked_at", "link_source"])
    .where("project_id", "=", project.id)
    .where("lead_id", "=", id)
    .orderBy("linked_at")
    .orderBy("visitor_id")
    .execute();
  const totals = (await stateOf(deps, LEAD_ANALYTICS).conversionTotals(db, project, [id])).get(id);
  return {
    ...lead,
    visitors: visitors.map((v) => ({
      visitorId: v.visitor_id,
      linkedAt: v.linked_at,
      source: v.link_source,
    })),
    conversions: totals?.conversions ?? 0,
    revenue: totals?.revenue ?? 0,
  };
}

/** `where[<property>]=<value>` query keys as property filters (at most 10; values compared as text). */
export function propertyFilters(query: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(query)) {
    const m = /^where\[(.+)\]$/.exec(k);
    if (!m) continue;
    const name = m[1]!;
    if (name.length > 100 || /["\\]/.test(name))
      throw validation(`query.${k}: a property name is 1–100 characters, without quotes or backslashes`);
    if (typeof v !== "string") throw validation(`query.${k} must be given once`);
    out.push([name, v]);
  }
  if (out.length > 10) throw validation("query: at most 10 where[…] filters");
  return out;
}
