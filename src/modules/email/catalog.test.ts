import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { txTenant } from "./email.testing.js";

let t: TestApp;
let a: Awaited<ReturnType<typeof txTenant>>;
beforeAll(async () => {
  t = await startTestApp();
  a = await txTenant(t);
});
afterAll(async () => t.close());

/** The spec's catalog table, verbatim ("?" = optional). */
const CATALOG: Record<string, string[]> = {
  welcome: ["onboardingUrl", "name"],
  "onboarding-reminder": ["onboardingUrl", "name"],
  invite: ["acceptUrl", "inviterName", "orgName", "role"],
  "invite-accepted": ["member_name", "org_name", "role"],
  "integration-connected": ["integrationsUrl", "integrationName"],
  "integration-sync-failed": ["integrationsUrl", "integrationName"],
  "integration-sync-complete": ["performanceUrl", "integrationName", "rowCount", "duration"],
  "password-reset": ["resetUrl"],
  "verification-code": ["code"],
  "experiment-started": ["experimentUrl", "experimentName", "resultLabel?"],
  "experiment-completed": ["experimentUrl", "experimentName", "resultLabel?"],
  "badge-earned": ["growthJourneyUrl", "badgeName?", "level?", "score?", "impactMessage?"],
  "level-up": ["growthJourneyUrl", "badgeName?", "level?", "score?", "impactMessage?"],
  "weekly-digest": ["digestUrl", "name", "period"],
  "anomaly-detected": ["investigateUrl", "metric"],
  "upgrade-nudge": ["upgradeUrl", "currentTier", "nextTier", "name", "featureCount"],
  "plan-upgrade": ["dashboardUrl", "name", "fromPlan", "toPlan"],
  "plan-downgrade": ["dashboardUrl", "name", "fromPlan", "toPlan"],
  "portfolio-access-request": ["approveUrl", "requesterName"],
  "portfolio-access-approved": ["portfolioUrl", "granterName"],
};

const sampleValue = (key: string) =>
  /Url$/.test(key) ? `https://app.example.com/${key}?a=1&b=2` : key === "rowCount" ? 1234 : `${key}<&>"'v`;
const sampleVars = (id: string) =>
  Object.fromEntries(CATALOG[id]!.map((k) => k.replace("?", "")).map((k) => [k, sampleValue(k)]));
const required = (id: string) => CATALOG[id]!.filter((k) => !k.endsWith("?")).sort();

describe("the built-in catalog", () => {
  it("every catalog template exists in every workspace, transactional, with exactly the listed variables", async () => {
    const list = await a.get("/api/communications");
    expect(list.status).toBe(200);
    const ids = list.body.map((c: { id: string }) => c.id);
    for (const id of Object.keys(CATALOG)) expect(ids).toContain(id);
    for (const [id, vars] of Object.entries(CATALOG)) {
      const c = list.body.find((x: { id: string }) => x.id === id);
      expect(c.commType, id).toBe("transactional");
      expect(c.builtIn).toBe(true);
      expect([...c.variables].sort(), id).toEqual([...vars].sort());
    }
  });

  it.each(Object.keys(CATALOG))(
    "%s renders with its variables: escaped html, raw text, nothing left over",
    async (id) => {
      const vars = sampleVars(id);
      const p = await a.post(`/api/communications/${id}/preview`, { variables: vars });
      expect(p.status).toBe(200);
      expect(p.body.missing).toEqual([]);
      for (const part of [p.body.subject, p.body.html, p.body.text]) expect(part).not.toMatch(/\{\{/);
      expect(p.body.html).toMatch(/^<!doctype html>/i);
      expect(p.body.html.toLowerCase()).not.toContain("unsubscribe");
      for (const [k, v] of Object.entries(vars)) {
        const s = String(v);
        if (/Url$/.test(k)) {
          expect(p.body.html, k).toContain(`href="${s.replace(/&/g, "&amp;")}"`);
          expect(p.body.text, k).toContain(s);
        } else {
          expect(p.body.html, k).toContain(
            s
              .replace(/&/g, "&amp;")
              .replace(/</g, "&lt;")
              .replace(/>/g, "&gt;")
              .replace(/"/g, "&quot;")
              .replace(/'/g, "&#39;"),
          );
          expect(p.body.html, k).not.toContain(s.includes("<") ? s : "\u0000");
          expect(`${p.body.subject}\n${p.body.text}`, k).toContain(s);
        }
      }
      const sent = await a.send({ to: "qa@sandbox.svc.test", commId: id, variables: vars, strict: true });
      expect(sent.status).toBe(200);
    },
  );

  it.each(Object.keys(CATALOG))(
    "%s in strict mode lists exactly its required variables as missing",
    async (id) => {
      const res = await a.send({ to: "qa@sandbox.svc.test", commId: id, strict: true });
      const req = required(id);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: "missing_variables",
        message: expect.any(String),
        missing: req,
        requestId: expect.any(String),
      });
      // one variable short → only that one
      const vars = sampleVars(id);
      delete vars[req[0]!];
      const short = await a.send({ to: "qa@sandbox.svc.test", commId: id, variables: vars, strict: true });
      expect(short.body.error.missing).toEqual([req[0]]);
    },
  );

  it("non-strict keeps a missing placeholder as literal text", async () => {
    const p = await a.post("/api/communications/welcome/preview", {
      variables: { onboardingUrl: "https://x.io/start" },
    });
    expect(p.body.subject).toBe("Welcome, {{name}}");
    expect(p.body.text).toContain("Welcome aboard, {{name}}!");
    expect(p.body.missing).toEqual(["name"]);
    const sent = await a.send({
      to: "qa@sandbox.svc.test",
      commId: "welcome",
      variables: { onboardingUrl: "https://x.io/start" },
    });
    expect(sent.status).toBe(200);
  });

  it("verification-code puts {{code}} in its monospace Code block", async () => {
    const p = await a.post("/api/communications/verification-code/preview", {
      variables: { code: "482913" },
    });
    expect(p.body.html).toMatch(/<div style="font-family:[^"]*monospace[^"]*">482913<\/div>/);
    expect(p.body.text).toContain("    482913");
  });

  it("optional variables show their block only when given", async () => {
    const base = { growthJourneyUrl: "https://x.io/j" };
    const without = await a.post("/api/communications/badge-earned/preview", { variables: base });
    expect(without.body.text).not.toContain("Badge:");
    expect(without.body.missing).toEqual([]);
    const withBadge = await a.post("/api/communications/badge-earned/preview", {
      variables: { ...base, badgeName: "Explorer", level: 3 },
    });
    expect(withBadge.body.text).toContain("Badge: Explorer");
    expect(withBadge.body.text).toContain("Level: 3");
    expect(withBadge.body.text).not.toContain("Score:");
  });

  it("slot variables replace a slot; dotted keys read nested objects", async () => {
    const res = await a.send({
      to: "qa@sandbox.svc.test",
      commId: "password-reset",
      variables: {
        resetUrl: "https://x.io/r",
        subject: "Reset for <you>",
        ctaLabel: "Choose a new password",
      },
      strict: true,
    });
    expect(res.status).toBe(200);
    const p = await a.post("/api/communications/password-reset/preview", {
      variables: {
        resetUrl: "https://x.io/r",
        subject: "Reset for <you>",
        ctaLabel: "Choose a new password",
      },
    });
    expect(p.body.subject).toBe("Reset for <you>");
    expect(p.body.html).toContain("<title>Reset for &lt;you&gt;</title>");
    expect(p.body.html).toContain("Choose a new password");
    expect(p.body.html).not.toMatch(/>\s*Reset password\s*</);
    const plain = await a.post("/api/communications/password-reset/preview", {
      variables: { resetUrl: "https://x.io/r" },
    });
    expect(plain.body.html).toMatch(/>\s*Reset password\s*</);
  });
});
