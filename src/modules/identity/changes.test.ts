import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { type IdentityChange, onIdentityChanges, upsertLeadByEmail } from "./service.js";

let t: TestApp;
/** What each publication handed over, and whether its transaction already held the leads it names. */
const published: { changes: IdentityChange[]; leadsSeen: string[] }[] = [];
beforeAll(async () => {
  t = await startTestApp();
  onIdentityChanges(t.app.deps, async (trx, changes) => {
    const ids = changes.map((c) => c.leadId);
    const rows = await trx.selectFrom("identity_leads").select("id").where("id", "in", ids).execute();
    published.push({ changes, leadsSeen: rows.map((r) => r.id) });
  });
});
afterAll(async () => t.close());

const DAY = 86_400_000;
const ref = (a: Tenant) => ({ id: a.projectId, workspaceId: a.workspaceId });
/** The changes published since `from`, about this tenant's project. */
const since = (from: number, a: Tenant) =>
  published.slice(from).flatMap((p) => p.changes.filter((c) => c.project.id === a.projectId));

describe("identity's changes, handed to whoever derives data from them", () => {
  it("POST /api/identity: a new lead and its link, in the call's transaction; a repeat hands nothing", async () => {
    const a = await t.tenant();
    const from = published.length;
    const res = await a.post("/api/identity", { visitorId: "v1", leadId: "user_1" });
    expect(res.status).toBe(200);
    expect(since(from, a)).toEqual([
      {
        kind: "lead-created",
        project: ref(a),
        leadId: "user_1",
        channel: null,
        createdAt: expect.any(Number),
      },
      { kind: "visitor-linked", project: ref(a), visitorId: "v1", leadId: "user_1" },
    ]);
    expect(published.slice(from).flatMap((p) => p.leadsSeen)).toContain("user_1");
    const again = published.length;
    expect((await a.post("/api/identity", { visitorId: "v1", leadId: "user_1" })).status).toBe(200);
    expect(since(again, a)).toEqual([]);
  });

  it("a stitch, a batch userId and a server's earlier date: created, linked, moved", async () => {
    const a = await t.tenant();
    let from = published.length;
    const s = await a.post("/api/identity/stitch", {
      projectKey: a.publicKey,
      visitorId: "v2",
      email: "x@example.com",
    });
    expect(s.status).toBe(200);
    const stitched = since(from, a);
    expect(stitched.map((c) => c.kind)).toEqual(["lead-created", "visitor-linked"]);

    from = published.length;
    const batch = await a.post("/api/events", {
      projectKey: a.publicKey,
      userId: "user_9",
      visitorId: "app-9",
      events: [{ type: "pageview", url: "https://app.example.com/" }],
    });
    expect(batch.status).toBe(200);
    expect(since(from, a)).toEqual([
      {
        kind: "lead-created",
        project: ref(a),
        leadId: "user_9",
        channel: null,
        createdAt: expect.any(Number),
      },
      { kind: "visitor-linked", project: ref(a), visitorId: "app-9", leadId: "user_9" },
    ]);

    from = published.length;
    const earlier = new Date(Date.now() - 3 * DAY).toISOString();
    const moved = await a.post("/api/identity", { visitorId: "app-9", leadId: "user_9", timestamp: earlier });
    expect(moved.status).toBe(200);
    expect(since(from, a)).toEqual([
      {
        kind: "lead-moved",
        project: ref(a),
        leadId: "user_9",
        channel: "unattributed",
        from: expect.any(Number),
        to: Date.parse(earlier),
      },
    ]);
  });

  it("a lead created by another module (upsertLeadByEmail) is handed over too", async () => {
    const a = await t.tenant();
    const from = published.length;
    const { lead } = await upsertLeadByEmail(t.app.deps, ref(a), { email: "crm@example.com", source: "crm" });
    expect(since(from, a)).toEqual([
      {
        kind: "lead-created",
        project: ref(a),
        leadId: lead.id,
        channel: null,
        createdAt: expect.any(Number),
      },
    ]);
  });

  it("identity imports nothing from analytics: analytics derives its data from identity's changes", () => {
    const dir = path.dirname(new URL(import.meta.url).pathname);
    const importers = readdirSync(dir)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .filter((f) => /from "\.\.\/analytics\//.test(readFileSync(path.join(dir, f), "utf8")));
    expect(importers).toEqual([]);
  });
});
