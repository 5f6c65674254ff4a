import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { AppError } from "../../platform/errors.js";
import { type IngestSender, countsNewLeads, takeIngestBudget } from "../../platform/ingest-limits.js";
import {
  type FirstTouch,
  adoptFirstTouch,
  ensureLeadById,
  findLead,
  hasLeadWithEmail,
  normalizeEmail,
  setLeadEmail,
  upsertLead,
} from "./leads.js";
import { firstTouchForVisitors } from "../event-store/service.js";
import { type IdentityChange, type IdentityDeps, withIdentityChanges } from "./changes.js";
import { type Dating, backdateLead, backdateLink, isoAt, timestampOf } from "./dating.js";
import { mergeVisitorProperties, updateLeadProperties } from "./profile.js";
import "./tables.js";
import { ensureVisitor, findVisitor } from "./visitors.js";

export interface LinkResult {
  visitorId: string;
  leadId: string;
  source: string;
  linkedAt: string;
  /** false when the visitor was already linked to this lead (idempotent repeat). */
  linked: boolean;
}

/** The visitor's first touch as the event store recorded it, or null before its first event. */
export async function visitorFirstTouch(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
): Promise<FirstTouch | null> {
  const [t] = await firstTouchForVisitors(trx, project, [visitorId]);
  return t
    ? { firstSeen: t.firstSeen, channel: t.channel, source: t.source, landingPage: t.landingPage }
    : null;
}

const conflict = (visitorId: string) =>
  new AppError("CONFLICT", `visitor ${visitorId} is already linked to another lead`);

/**
 * Links a visitor to a lead: a visitor belongs to at most one lead, so a link to a different lead
 * is refused (409), as PostHog refuses merging two identified persons; linking again to the same
 * lead is a no-op. A lead id Lift has never seen is created (the caller's id for its person, as
 * PostHog's identify and Segment's userId). The visitor's history joins the lead's journey and
 * attribution. `onConflict: "skip"` is for batch userIds, where a refusal must not fail the events
 * commit. With `dating`, the lead and the link are dated then, or moved earlier (dating.ts). What
 * it creates, links or moves is recorded in `changes` (changes.ts).
 */
export async function linkVisitor(
  trx: Trx,
  project: ProjectRef,
  link: { visitorId: string; leadId: string; source: string },
  changes: IdentityChange[],
  onConflict: "throw" | "skip" = "throw",
  dating?: Dating,
): Promise<LinkResult | null> {
  const { visitorId, leadId, source } = link;
  await ensureLeadById(trx, project, leadId, source, changes, dating);
  const visitor = await ensureVisitor(trx, project, visitorId);
  if (visitor.lead_id === leadId) {
    let linkedAt = visitor.linked_at!;
    if (dating?.moveEarlier && linkedAt > isoAt(dating.at)) {
      await backdateLink(trx, project, visitorId, dating.at);
      linkedAt = isoAt(dating.at);
    }
    return { visitorId, leadId, source: visitor.link_source ?? source, linkedAt, linked: false };
  }
  if (visitor.lead_id !== null) {
    if (onConflict === "skip") return null;
    throw conflict(visitorId);
  }
  const linkedAt = isoAt(dating?.at ?? Date.now());
  const res = await trx
    .updateTable("identity_visitors")
    .set({ lead_id: leadId, link_source: source, linked_at: linkedAt })
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .where("lead_id", "is", null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) {
    // Linked concurrently by another transaction: same rule as above.
    const now = await findVisitor(trx, project, visitorId);
    if (now?.lead_id === leadId)
      return {
        visitorId,
        leadId,
        source: now.link_source ?? source,
        linkedAt: now.linked_at!,
        linked: false,
      };
    if (onConflict === "skip") return null;
    throw conflict(visitorId);
  }
  changes.push({ kind: "visitor-linked", project, visitorId, leadId });
  if (visitor.properties !== null)
    await mergeVisitorProperties(trx, project, visitorId, leadId, {
      properties: visitor.properties,
      browser_properties: visitor.browser_properties,
    });
  const touch = await visitorFirstTouch(trx, project, visitorId);
  if (touch) await adoptFirstTouch(trx, project, leadId, touch);
  return { visitorId, leadId, source, linkedAt, linked: true };
}

export interface StitchResult {
  visitorId: string;
  leadId: string;
  email: string;
  /** whether the lead was created by this stitch */
  created: boolean;
  /** false on an idempotent repeat */
  linked: boolean;
}

/**
 * Email stitching from the browser: the lead with this email (case-insensitive, trimmed) or a new
 * one carrying the visitor's first touch, then the visitor → lead link. A visitor already linked to
 * a lead with another email is refused before any lead is created.
 */
export async function stitchVisitor(
  trx: Trx,
  project: ProjectRef,
  input: { visitorId: string; email: string },
  changes: IdentityChange[],
  opts: { ifEmailTaken?: "conflict" | "skip"; dating?: Dating } = {},
): Promise<StitchResult | null> {
  const email = normalizeEmail(input.email);
  const { dating } = opts;
  const visitor = await ensureVisitor(trx, project, input.visitorId);
  if (visitor.lead_id !== null) {
    const current = await findLead(trx, project, visitor.lead_id);
    if (current && current.email === null) {
      // A lead known only by the caller's id learns its email, unless another lead has it. Whether
      // another lead has it is what a public caller must not learn: "skip" answers null instead.
      if (!(await setLeadEmail(trx, project, current.id, email))) {
        if (opts.ifEmailTaken === "skip") return null;
        throw conflict(input.visitorId);
      }
      if (dating?.moveEarlier) {
        await backdateLead(trx, project, current.id, dating.at, changes);
        await backdateLink(trx, project, input.visitorId, dating.at);
      }
      return { visitorId: input.visitorId, leadId: current.id, email, created: false, linked: false };
    }
    if (current && current.email !== email) throw conflict(input.visitorId);
  }
  const touch = await visitorFirstTouch(trx, project, input.visitorId);
  const { lead, created } = await upsertLead(
    trx,
    project,
    { email, source: "stitch" },
    touch,
    changes,
    dating,
  );
  const linkTo = { visitorId: input.visitorId, leadId: lead.id, source: "stitch" };
  const link = await linkVisitor(trx, project, linkTo, changes, "throw", dating);
  return { visitorId: input.visitorId, leadId: lead.id, email, created, linked: link?.linked ?? false };
}

export interface StitchInput {
  visitorId: string;
  email: string;
  traits?: Record<string, unknown>;
  /** when the person became known (ISO 8601) */
  timestamp?: string;
}

/** The public stitch's answer to a page: the same whether or not the email belongs to a lead. */
export interface PageStitchAnswer {
  visitorId: string;
  email: string;
  accepted: true;
}

/**
 * POST /api/identity/stitch. The public key is in every page, so its caller is anyone: the answer
 * does not say whether the email was a known lead (no lead id, no "created"), and traits only fill
 * properties the lead does not have yet. A secret key (a server) gets the full result, and its
 * traits overwrite. A stitch and an event commit for one visitor can deadlock on PostgreSQL: the
 * transaction retries.
 */
export async function stitchFromCaller(
  deps: IdentityDeps,
  project: ProjectRef,
  input: StitchInput,
  caller: "page" | "server",
): Promise<StitchResult | PageStitchAnswer> {
  const page = caller === "page";
  const at = timestampOf(input.timestamp, "body.timestamp");
  // A page's timestamp dates only what its stitch creates (dating.ts).
  const dating = at === undefined ? undefined : { at, moveEarlier: !page };
  return withIdentityChanges(deps, async (trx, changes) => {
    const stitched = await stitchVisitor(trx, project, input, changes, {
      ifEmailTaken: page ? "skip" : "conflict",
      dating,
    });
    if (stitched && input.traits) {
      const change = page ? { setOnce: input.traits, source: "browser" as const } : { set: input.traits };
      await updateLeadProperties(trx, project, stitched.leadId, change);
    }
    if (!page) return stitched!;
    return { visitorId: input.visitorId, email: normalizeEmail(input.email), accepted: true as const };
  });
}

/**
 * POST /api/identity/stitch from the key the body carries: a page's stitch that would create a lead
 * (no lead has the email yet) first draws on the sender's new-lead budget (platform/ingest-limits.ts),
 * the one its events' new leads draw on too; past it, 429 and nothing is stitched.
 */
export async function stitchFromSender(
  deps: ServiceDeps,
  project: ProjectRef,
  input: StitchInput,
  sender: IngestSender,
): Promise<StitchResult | PageStitchAnswer> {
  const page = sender.keyKind === "public";
  // A bad timestamp is refused before the stitch draws on the sender's budget.
  timestampOf(input.timestamp, "body.timestamp");
  if (
    page &&
    countsNewLeads(deps, sender) &&
    !(await hasLeadWithEmail(deps.db, project, normalizeEmail(input.email)))
  )
    await takeIngestBudget(deps, sender, { events: 0, newLeads: 1 });
  return stitchFromCaller(deps, project, input, page ? "page" : "server");
}

/**
 * POST /api/identity: a server links a visitor to a lead by its id; traits overwrite the lead's
 * properties; a timestamp dates the lead and the link (or moves them earlier).
 */
export async function linkWithTraits(
  deps: IdentityDeps,
  project: ProjectRef,
  input: {
    visitorId: string;
    leadId: string;
    source?: string;
    traits?: Record<string, unknown>;
    timestamp?: string;
  },
): Promise<LinkResult> {
  const at = timestampOf(input.timestamp, "body.timestamp");
  const dating = at === undefined ? undefined : { at, moveEarlier: true };
  return withIdentityChanges(deps, async (trx, changes) => {
    const to = { visitorId: input.visitorId, leadId: input.leadId, source: input.source ?? "api" };
    const link = (await linkVisitor(trx, project, to, changes, "throw", dating))!;
    if (input.traits) await updateLeadProperties(trx, project, input.leadId, { set: input.traits });
    return link;
  });
}
