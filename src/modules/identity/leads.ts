import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { notFound, validation } from "../../platform/errors.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { UNATTRIBUTED_CHANNEL } from "../../platform/event-bus.js";
import { firstTouchForVisitors } from "../event-store/service.js";
import { type IdentityChange, type IdentityDeps, withIdentityChanges } from "./changes.js";
import { type Dating, backdateLead, isoAt } from "./dating.js";
import { nextMarks } from "./property-marks.js";
import type { IdentityLeadTable } from "./tables.js";
import "./tables.js";

export interface Attribution {
  channel: string | null;
  source: string | null;
  landingPage: string | null;
}

export interface Lead {
  id: string;
  /** null for a lead known only by the caller's id (POST /api/identity, batch userId) */
  email: string | null;
  name: string | null;
  source: string;
  properties: Record<string, unknown>;
  /** The lead's first touch: the earliest first touch among its visitors. */
  attribution: Attribution;
  firstSeen: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface LeadInput {
  email: string;
  name?: string;
  /** How the lead became known (stitch, crm, payments, …); kept from the first sighting. */
  source: string;
  properties?: Record<string, unknown>;
}

/** A first touch, as a visitor row holds it. */
export interface FirstTouch {
  firstSeen: number;
  channel: string | null;
  source: string | null;
  landingPage: string | null;
}

/** Emails compare case-insensitively and trimmed; stored that way so a unique index enforces it. */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(email))
    throw validation("email must be an email address");
  return email;
}

export function toLead(r: IdentityLeadTable): Lead {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    source: r.source,
    properties: JSON.parse(r.properties) as Record<string, unknown>,
    attribution: { channel: r.channel, source: r.attr_source, landingPage: r.landing_page },
    firstSeen: r.first_seen === null ? null : new Date(Number(r.first_seen)).toISOString(),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function findLead(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<IdentityLeadTable | undefined> {
  return db
    .selectFrom("identity_leads")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Which of these lead ids the project has (the events module asks before a page's events make leads). */
export async function knownLeadIds(db: DbOrTrx, project: ProjectRef, ids: string[]): Promise<Set<string>> {
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom("identity_leads")
      .select("id")
      .where("project_id", "=", project.id)
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
    for (const r of rows) known.add(r.id);
  }
  return known;
}

/** Whether a lead of the project has this email (normalized). */
export async function hasLeadWithEmail(db: DbOrTrx, project: ProjectRef, email: string): Promise<boolean> {
  const row = await db
    .selectFrom("identity_leads")
    .select("id")
    .where("project_id", "=", project.id)
    .where("email", "=", email)
    .executeTakeFirst();
  return row !== undefined;
}

/** A lead of the project; another project's lead is NOT_FOUND. */
export async function getLead(db: DbOrTrx, project: ProjectRef, id: string): Promise<Lead> {
  const row = await findLead(db, project, id);
  if (!row) throw notFound("lead", id);
  const lead = toLead(row);
  if (row.channel !== null) return lead;
  // Linked before its visitors' first events: their earliest first touch, read now.
  const visitors = await db
    .selectFrom("identity_visitors")
    .select("visitor_id")
    .where("project_id", "=", project.id)
    .where("lead_id", "=", id)
    .execute();
  const [first] = await firstTouchForVisitors(
    db,
    project,
    visitors.map((v) => v.visitor_id),
  );
  if (!first) return lead;
  return {
    ...lead,
    attribution: { channel: first.channel, source: first.source, landingPage: first.landingPage },
    firstSeen: new Date(first.firstSeen).toISOString(),
  };
}

/**
 * Finds the lead by email (case-insensitive, trimmed) or creates it. A new lead fires lead.created
 * once (the unique index makes a concurrent duplicate fall into the update path); a change of name
 * or properties fires lead.updated. Both in the same transaction as the change, and so are the
 * identity changes it hands over (changes.ts).
 */
export async function upsertLeadByEmail(
  deps: IdentityDeps,
  project: ProjectRef,
  input: LeadInput,
): Promise<{ lead: Lead; created: boolean }> {
  return withIdentityChanges(deps, (trx, changes) => upsertLead(trx, project, input, null, changes));
}

export async function upsertLead(
  trx: Trx,
  project: ProjectRef,
  input: LeadInput,
  firstTouch: FirstTouch | null,
  changes: IdentityChange[],
  dating?: Dating,
): Promise<{ lead: Lead; created: boolean }> {
  const email = normalizeEmail(input.email);
  const now = new Date().toISOString();
  const createdAt = dating ? isoAt(dating.at) : now;
  const inserted = await trx
    .insertInto("identity_leads")
    .values({
      id: newId("lead"),
      project_id: project.id,
      workspace_id: project.workspaceId,
      email,
      name: input.name ?? null,
      source: input.source,
      properties: JSON.stringify(input.properties ?? {}),
      first_seen: firstTouch?.firstSeen ?? null,
      channel: firstTouch?.channel ?? null,
      attr_source: firstTouch?.source ?? null,
      landing_page: firstTouch?.landingPage ?? null,
      counted_channel: firstTouch?.channel ?? UNATTRIBUTED_CHANNEL,
      created_at: createdAt,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["project_id", "email"]).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) {
    const lead = toLead(inserted);
    await emitServiceEvent(trx, project, "lead.created", lead);
    changes.push(leadCreated(project, inserted.id, inserted.channel, createdAt));
    return { lead, created: true };
  }
  const byEmail = () =>
    trx
      .selectFrom("identity_leads")
      .selectAll()
      .where("project_id", "=", project.id)
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
  let row = await byEmail();
  if (dating?.moveEarlier && row.created_at > createdAt) {
    await backdateLead(trx, project, row.id, dating.at, changes);
    row = await byEmail();
  }
  const changed: string[] = [];
  const patch: Partial<IdentityLeadTable> = {};
  if (input.name !== undefined && input.name !== row.name) {
    patch.name = input.name;
    changed.push("name");
  }
  if (input.properties) {
    const merged = { ...(JSON.parse(row.properties) as Record<string, unknown>), ...input.properties };
    const text = JSON.stringify(merged);
    if (text !== row.properties) {
      patch.properties = text;
      changed.push("properties");
    }
    // A server (connector, incoming webhook) vouches for what it sets, browser-written or not.
    const marks = nextMarks(row.browser_properties, Object.keys(input.properties), "server");
    if (marks !== row.browser_properties) patch.browser_properties = marks;
  }
  if (changed.length === 0) {
    if (patch.browser_properties !== undefined)
      await trx
        .updateTable("identity_leads")
        .set({ browser_properties: patch.browser_properties })
        .where("project_id", "=", project.id)
        .where("id", "=", row.id)
        .execute();
    return { lead: toLead(row), created: false };
  }
  const updated = await trx
    .updateTable("identity_leads")
    .set({ ...patch, updated_at: now })
    .where("project_id", "=", project.id)
    .where("id", "=", row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const lead = toLead(updated);
  await emitServiceEvent(trx, project, "lead.updated", { ...lead, changed });
  return { lead, created: false };
}

/** A new lead counts on its creation day under its first touch at creation (null: none yet). */
const leadCreated = (
  project: ProjectRef,
  leadId: string,
  channel: string | null,
  createdAt: string,
): IdentityChange => ({ kind: "lead-created", project, leadId, channel, createdAt: Date.parse(createdAt) });

/** Moves the lead's first touch earlier when a visitor with an earlier first touch joins it. */
export async function adoptFirstTouch(
  trx: Trx,
  project: ProjectRef,
  leadId: string,
  touch: FirstTouch,
): Promise<void> {
  if (touch.channel === null) return;
  const row = await findLead(trx, project, leadId);
  if (!row) return;
  if (row.channel !== null && row.first_seen !== null && Number(row.first_seen) <= touch.firstSeen) return;
  const updated = await trx
    .updateTable("identity_leads")
    .set({
      first_seen: touch.firstSeen,
      channel: touch.channel,
      attr_source: touch.source,
      landing_page: touch.landingPage,
      updated_at: new Date().toISOString(),
    })
    .where("project_id", "=", project.id)
    .where("id", "=", leadId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await emitServiceEvent(trx, project, "lead.updated", { ...toLead(updated), changed: ["attribution"] });
}

/**
 * The lead with the caller's id, created when Lift has never seen it (as PostHog's identify and
 * Segment's userId create the person): no email, no first touch until a visitor joins. Idempotent,
 * also under concurrent calls (the primary key decides); lead.created fires once. With `dating`,
 * created then, or an existing lead moved earlier to then (dating.ts).
 */
export async function ensureLeadById(
  trx: Trx,
  project: ProjectRef,
  id: string,
  source: string,
  changes: IdentityChange[],
  dating?: Dating,
): Promise<{ created: boolean }> {
  const now = new Date().toISOString();
  const createdAt = dating ? isoAt(dating.at) : now;
  const inserted = await trx
    .insertInto("identity_leads")
    .values({
      id,
      project_id: project.id,
      workspace_id: project.workspaceId,
      email: null,
      name: null,
      source,
      properties: "{}",
      first_seen: null,
      channel: null,
      attr_source: null,
      landing_page: null,
      counted_channel: UNATTRIBUTED_CHANNEL,
      created_at: createdAt,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["project_id", "id"]).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!inserted) {
    if (dating?.moveEarlier) await backdateLead(trx, project, id, dating.at, changes);
    return { created: false };
  }
  await emitServiceEvent(trx, project, "lead.created", toLead(inserted));
  changes.push(leadCreated(project, id, null, createdAt));
  return { created: true };
}

/**
 * A lead known only by id learns its email from a stitch. Refused (false) when another lead of the
 * project already has that email: the visitor is then identified as two people.
 */
export async function setLeadEmail(
  trx: Trx,
  project: ProjectRef,
  leadId: string,
  email: string,
): Promise<boolean> {
  const taken = await trx
    .selectFrom("identity_leads")
    .select("id")
    .where("project_id", "=", project.id)
    .where("email", "=", email)
    .executeTakeFirst();
  if (taken) return taken.id === leadId;
  const updated = await trx
    .updateTable("identity_leads")
    .set({ email, updated_at: new Date().toISOString() })
    .where("project_id", "=", project.id)
    .where("id", "=", leadId)
    .where("email", "is", null)
    .returningAll()
    .executeTakeFirst();
  if (!updated) return false;
  await emitServiceEvent(trx, project, "lead.updated", { ...toLead(updated), changed: ["email"] });
  return true;
}
