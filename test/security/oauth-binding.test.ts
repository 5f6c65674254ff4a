import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL, platformConfig } from "../../src/modules/connectors/connectors.testing.js";
import { type TestApp, startTestApp } from "../helpers/app.js";
import { startHubspotFake } from "../fakes/hubspot.js";
import { type FakePlatform, consent } from "../fakes/server.js";

/**
 * Issue 31, item 6: an OAuth callback completes only in the browser session that started the
 * flow. Before, a consent link started in an attacker's workspace and completed by a victim stored
 * the victim's platform tokens in the attacker's project.
 */
let t: TestApp;
let hubspot: FakePlatform;
const client = { id: "hs-client", secret: "hs-secret" };
beforeAll(async () => {
  hubspot = await startHubspotFake(client);
  t = await startTestApp(platformConfig([["crm", hubspot, client]]));
});
afterAll(async () => {
  await t?.close();
  await hubspot?.close();
});

const connectors = (projectId: string) =>
  t.app.db.selectFrom("connectors").selectAll().where("project_id", "=", projectId).execute();

describe("the OAuth callback is bound to its starter's session", () => {
  it("a link started by one workspace and completed by another's signed-in admin stores nothing", async () => {
    const attacker = await t.tenant();
    const victim = await t.tenant();
    const started = await attacker.get("/api/connectors/crm/auth", { as: "admin" });
    expect(started.status).toBe(302);
    // The victim consents on the platform with their own account and lands on the callback.
    const { code, state } = consent(hubspot, String(started.headers.location));
    const cb = await victim.get("/api/connectors/crm/callback", { as: "admin", query: { code, state } });
    expect(cb.status).toBe(302);
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=session_mismatch`);
    expect(await connectors(attacker.projectId)).toHaveLength(0);
    expect(await connectors(victim.projectId)).toHaveLength(0);
  });

  it("without any session, or in another session of the same user, nothing is stored either", async () => {
    const a = await t.tenant();
    const started = await a.get("/api/connectors/crm/auth", { as: "admin" });
    const { code, state } = consent(hubspot, String(started.headers.location));
    const anonymous = await a.get("/api/connectors/crm/callback", { as: "none", query: { code, state } });
    expect(anonymous.headers.location).toBe(`${PUBLIC_URL}/integrations?error=session_mismatch`);
    const login = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      payload: { email: a.admin.email, password: "correct horse battery" },
    });
    const otherSession = String(login.headers["set-cookie"]).split(";")[0]!;
    const elsewhere = await a.get("/api/connectors/crm/callback", {
      as: "none",
      headers: { cookie: otherSession },
      query: { code, state },
    });
    expect(elsewhere.headers.location).toBe(`${PUBLIC_URL}/integrations?error=session_mismatch`);
    expect(await connectors(a.projectId)).toHaveLength(0);
    // The flow's own browser can still finish it: a mismatch did not use the state up.
    const own = await a.get("/api/connectors/crm/callback", { as: "admin", query: { code, state } });
    expect(own.headers.location).toBe(`${PUBLIC_URL}/integrations?connected=crm`);
    expect(await connectors(a.projectId)).toHaveLength(1);
  });

  it("the dashboard explains the refusal in words", async () => {
    const { readFileSync } = await import("node:fs");
    const page = readFileSync("web/src/pages/integrations/IntegrationsPage.tsx", "utf8");
    expect(page).toMatch(/session_mismatch:\s*\n?\s*"this connection was started in another browser/);
  });
});
