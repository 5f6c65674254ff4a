import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { AppState, type ServiceDeps, provide } from "../../platform/deps.js";
import { createInvite } from "./invites.js";
import { LIFT_MAILER } from "./lift-mailer.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const refuseAll = async () => ({ sendId: null, status: "suppressed", error: "not this app's" });

describe("the Lift mailer is the app's own (provided in its state)", () => {
  it("another app providing its own mailer does not change how this app mails invitations", async () => {
    const a = await t.tenant();
    // A second app in the process (same database here, its own state), whose email refuses every mail.
    const other: ServiceDeps = { ...t.app.deps, state: new AppState() };
    provide(other, LIFT_MAILER, refuseAll);
    const admin = { workspaceId: a.workspaceId, userId: a.admin.id, email: a.admin.email };
    const there = await createInvite(other, admin, { email: `o-${Date.now()}@example.com`, role: "member" });
    expect(there.delivery).toMatchObject({ status: "suppressed", sendId: null });
    const res = await a.post(
      "/api/workspace/invites",
      { email: `x-${Date.now()}@example.com`, role: "member" },
      { as: "admin" },
    );
    expect(res.status).toBe(201);
    expect(res.body.delivery).toMatchObject({ status: "outbox", sendId: expect.stringMatching(/^snd_/) });
  });
});
