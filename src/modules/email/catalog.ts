import { boundedCache } from "../../platform/cache.js";
import type { DbHandle, DbOrTrx } from "../../platform/db/index.js";
import type { BlockT, CommTypeT, TemplateSource } from "../../platform/mail/template/blocks.js";
import { type CompiledTemplate, compileTemplate } from "../../platform/mail/template/compile.js";
import { findCommunicationOverride } from "./store.js";
import "./tables.js";

/**
 * The templates a workspace sends from: the spec's built-in catalog, under the same ids in every
 * workspace, and the workspace's own rows, one of which overrides the built-in of its id
 * (`resolveForSend`). Saving and listing them is communications.ts.
 *
 * Each built-in references exactly the variables the spec lists (a `?` variable is optional: its
 * block is shown only when it is given).
 */
interface Cta {
  subject: string;
  headline: string;
  body: string;
  ctaLabel?: string;
  /** The variable holding the absolute URL of the call to action. */
  ctaVar?: string;
  extra?: BlockT[];
}

const FALLBACK = "If the button does not work, copy this link into your browser:\n{{ctaUrl}}";

function standard(name: string, c: Cta): TemplateSource {
  const slots: Record<string, string> = { subject: c.subject, headline: c.headline, body: c.body };
  const blocks: BlockT[] = [
    { type: "heading", text: "{{headline}}" },
    { type: "text", text: "{{body}}" },
    ...(c.extra ?? []),
  ];
  if (c.ctaVar) {
    slots.ctaLabel = c.ctaLabel ?? "Open";
    slots.ctaUrl = `{{${c.ctaVar}}}`;
    blocks.push({ type: "button", label: "{{ctaLabel}}", url: "{{ctaUrl}}" });
    blocks.push({ type: "text", text: FALLBACK });
  }
  return { name, commType: "transactional", slots, blocks };
}

const optionalText = (key: string, text: string): BlockT => ({ type: "text", text, showIf: key });

const experiment = (verb: string) =>
  standard(`Experiment ${verb}`, {
    subject: `Experiment ${verb}: {{experimentName}}`,
    headline: `{{experimentName}} has ${verb}`,
    body:
      verb === "started"
        ? "Your experiment is now live and collecting exposures. We will let you know when it reaches a result."
        : "Your experiment has finished. Review the results and decide what to ship.",
    ctaLabel: "View experiment",
    ctaVar: "experimentUrl",
    extra: [optionalText("resultLabel", "Result: {{resultLabel}}")],
  });

const growth = (kind: "badge" | "level") =>
  standard(kind === "badge" ? "Badge earned" : "Level up", {
    subject: kind === "badge" ? "You earned a new badge" : "You reached a new level",
    headline: kind === "badge" ? "New badge unlocked" : "You levelled up",
    body:
      kind === "badge"
        ? "Your growth work is paying off. Here is what you achieved:"
        : "Your growth journey moved forward. Here is where you stand:",
    ctaLabel: "See your growth journey",
    ctaVar: "growthJourneyUrl",
    extra: [
      optionalText("badgeName", "Badge: {{badgeName}}"),
      optionalText("level", "Level: {{level}}"),
      optionalText("score", "Score: {{score}}"),
      optionalText("impactMessage", "{{impactMessage}}"),
    ],
  });

const integration = (state: "connected" | "failed") =>
  standard(state === "connected" ? "Integration connected" : "Integration sync failed", {
    subject: state === "connected" ? "{{integrationName}} is connected" : "{{integrationName}} sync failed",
    headline:
      state === "connected" ? "{{integrationName}} is connected" : "We could not sync {{integrationName}}",
    body:
      state === "connected"
        ? "Data from {{integrationName}} will now flow into your dashboards. The first sync starts in a few minutes."
        : "The last sync of {{integrationName}} did not complete. Reconnecting the integration usually fixes this.",
    ctaLabel: state === "connected" ? "View integrations" : "Fix the integration",
    ctaVar: "integrationsUrl",
  });

const plan = (dir: "upgrade" | "downgrade") =>
  standard(dir === "upgrade" ? "Plan upgraded" : "Plan downgraded", {
    subject: dir === "upgrade" ? "Your plan is now {{toPlan}}" : "Your plan changed to {{toPlan}}",
    headline: `Hi {{name}}, your plan was ${dir === "upgrade" ? "upgraded" : "changed"}`,
    body: `Your workspace moved from {{fromPlan}} to {{toPlan}}. ${
      dir === "upgrade"
        ? "The new limits and features are available right away."
        : "Features outside the {{toPlan}} plan are no longer available."
    }`,
    ctaLabel: "Open your dashboard",
    ctaVar: "dashboardUrl",
  });

const SOURCES: Record<string, TemplateSource> = {
  welcome: standard("Welcome", {
    subject: "Welcome, {{name}}",
    headline: "Welcome aboard, {{name}}!",
    body: "Your account is ready. Finish a few setup steps to see your first growth insights.",
    ctaLabel: "Get started",
    ctaVar: "onboardingUrl",
  }),
  "onboarding-reminder": standard("Onboarding reminder", {
    subject: "{{name}}, finish setting up your account",
    headline: "You are almost there, {{name}}",
    body: "A few setup steps are still open. It takes about five minutes to finish them.",
    ctaLabel: "Continue setup",
    ctaVar: "onboardingUrl",
  }),
  invite: standard("Invitation", {
    subject: "{{inviterName}} invited you to {{orgName}}",
    headline: "Join {{orgName}}",
    body: "{{inviterName}} invited you to join {{orgName}} as {{role}}.",
    ctaLabel: "Accept invitation",
    ctaVar: "acceptUrl",
  }),
  "invite-accepted": standard("Invitation accepted", {
    subject: "{{member_name}} joined {{org_name}}",
    headline: "{{member_name}} accepted your invitation",
    body: "{{member_name}} is now a member of {{org_name}} with the role {{role}}.",
  }),
  "integration-connected": integration("connected"),
  "integration-sync-failed": integration("failed"),
  "integration-sync-complete": standard("Integration sync complete", {
    subject: "{{integrationName}} sync complete",
    headline: "{{integrationName}} is up to date",
    body: "We imported {{rowCount}} rows from {{integrationName}} in {{duration}}.",
    ctaLabel: "View performance",
    ctaVar: "performanceUrl",
  }),
  "password-reset": standard("Password reset", {
    subject: "Reset your password",
    headline: "Reset your password",
    body: "We received a request to reset your password. If you did not ask for this, you can ignore this email; your password stays the same.",
    ctaLabel: "Reset password",
    ctaVar: "resetUrl",
  }),
  "verification-code": {
    name: "Verification code",
    commType: "transactional",
    slots: {
      subject: "Your verification code",
      headline: "Your verification code",
      body: "Enter this code to continue. It expires soon, and nobody from our team will ever ask you for it.",
      caption: "If you did not request this code, you can ignore this email.",
    },
    blocks: [
      { type: "heading", text: "{{headline}}" },
      { type: "text", text: "{{body}}" },
      { type: "code", value: "{{code}}", caption: "{{caption}}" },
    ],
  },
  "experiment-started": experiment("started"),
  "experiment-completed": experiment("completed"),
  "badge-earned": growth("badge"),
  "level-up": growth("level"),
  "weekly-digest": standard("Weekly digest", {
    subject: "Your growth digest for {{period}}",
    headline: "Hi {{name}}, here is your week",
    body: "Your digest for {{period}} is ready: visitors, conversions and experiments at a glance.",
    ctaLabel: "Read the digest",
    ctaVar: "digestUrl",
  }),
  "anomaly-detected": standard("Anomaly detected", {
    subject: "Unusual change in {{metric}}",
    headline: "We noticed an unusual change in {{metric}}",
    body: "{{metric}} moved outside its expected range. Take a look to see what changed.",
    ctaLabel: "Investigate",
    ctaVar: "investigateUrl",
  }),
  "upgrade-nudge": standard("Upgrade nudge", {
    subject: "{{name}}, unlock {{featureCount}} more features",
    headline: "Get more from {{nextTier}}",
    body: "You are on the {{currentTier}} plan. Moving to {{nextTier}} unlocks {{featureCount}} more features.",
    ctaLabel: "Compare plans",
    ctaVar: "upgradeUrl",
  }),
  "plan-upgrade": plan("upgrade"),
  "plan-downgrade": plan("downgrade"),
  "portfolio-access-request": standard("Portfolio access request", {
    subject: "{{requesterName}} requested access to your portfolio",
    headline: "{{requesterName}} would like access",
    body: "{{requesterName}} asked for access to your portfolio. Approve the request to share it.",
    ctaLabel: "Review request",
    ctaVar: "approveUrl",
  }),
  "alert-fired": standard("Alert fired", {
    subject: "Alert: {{alertName}}",
    headline: "{{alertName}}",
    body: "{{seriesLabel}} was {{value}} for {{bucket}}: {{condition}}.",
    ctaLabel: "Open in Trends",
    ctaVar: "trendsUrl",
    extra: [optionalText("previousValue", "The bucket before: {{previousValue}}")],
  }),
  "portfolio-access-approved": standard("Portfolio access approved", {
    subject: "{{granterName}} shared a portfolio with you",
    headline: "You now have access",
    body: "{{granterName}} approved your request. The portfolio is ready for you.",
    ctaLabel: "Open portfolio",
    ctaVar: "portfolioUrl",
  }),
};

export const CATALOG_IDS = Object.keys(SOURCES);

export function builtinSource(id: string): TemplateSource | undefined {
  return Object.hasOwn(SOURCES, id) ? SOURCES[id] : undefined;
}

const compiled = new Map<string, Promise<CompiledTemplate>>();

/** A built-in template compiled once per process, on first use. */
export function builtinCompiled(id: string): Promise<CompiledTemplate> | undefined {
  const src = builtinSource(id);
  if (!src) return undefined;
  let p = compiled.get(id);
  if (!p) {
    p = compileTemplate(src);
    p.catch(() => compiled.delete(id));
    compiled.set(id, p);
  }
  return p;
}

/** What a send needs: the type and the precompiled template (the workspace's version first). */
export async function resolveForSend(
  handle: DbHandle,
  workspaceId: string,
  id: string,
): Promise<{ commType: CommTypeT; compiled: CompiledTemplate } | null> {
  // The small row first; the compiled JSON (tens of KB) is read only when this version is not cached.
  const row = await findCommunicationOverride(handle, workspaceId, id);
  if (row) {
    return {
      commType: row.comm_type,
      compiled: await compiledVersion(handle.db, workspaceId, id, row.updated_at),
    };
  }
  const builtin = builtinCompiled(id);
  return builtin ? { commType: "transactional", compiled: await builtin } : null;
}

// Parsed templates by (workspace, id, updated_at): a save changes updated_at, so a stale entry is
// never used.
const parsed = boundedCache<string, CompiledTemplate>(1000);
async function compiledVersion(
  db: DbOrTrx,
  workspaceId: string,
  id: string,
  version: string,
): Promise<CompiledTemplate> {
  const key = `${workspaceId}\n${id}\n${version}`;
  const hit = parsed.get(key);
  if (hit) return hit;
  const row = await db
    .selectFrom("communications")
    .select(["compiled", "updated_at"])
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  const c = JSON.parse(row.compiled) as CompiledTemplate;
  parsed.set(`${workspaceId}\n${id}\n${row.updated_at}`, c);
  return c;
}
