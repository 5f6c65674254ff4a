import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { upsertLeadByEmail } from "./service.js";

/** Which properties a browser wrote (property-marks.ts): every path that writes a lead's properties. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const send = async (a: Tenant, key: "public" | "secret", path: string, body: Record<string, unknown>) => {
  const writeKey = key === "public" ? a.publicKey : a.apiKey;
  const res = await a.post(path, path.startsWith("/v1/") ? body : { projectKey: writeKey, ...body }, {
    as: "none",
    headers: {
      "user-agent": BROWSER_UA,
      ...(path.startsWith("/v1/")
        ? { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}` }
        : {}),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
/** One server-format event (a batch), with the batch's `userId` when given. */
const event = (
  a: Tenant,
  key: "public" | "secret",
  { userId, visitorId, data }: { userId?: string; visitorId: string; data: Record<string, unknown> },
) =>
  send(a, key, "/api/events", {
    ...(userId ? { userId } : {}),
    visitorId,
    events: [{ type: "signup", url: "https://shop.example/", data }],
  });
const marksOf = async (a: Tenant, id: string) => {
  const row = await t.app.db
    .selectFrom("identity_leads")
    .select(["browser_properties", "properties"])
    .where("project_id", "=", a.projectId)
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return { marks: JSON.parse(row.browser_properties ?? "[]"), properties: JSON.parse(row.properties) };
};

describe("browser-written properties", () => {
  it("a public key's fills are marked; a server's write of a name clears it, even with the same value", async () => {
    const a = await t.tenant();
    await event(a, "public", { userId: "u1", visitorId: "v1", data: { $set: { plan: "pro", seats: 3 } } });
    expect(await marksOf(a, "u1")).toEqual({
      marks: ["plan", "seats"],
      properties: { plan: "pro", seats: 3 },
    });
    // the public key only fills: a second value changes nothing, the mark stays
    await event(a, "public", { userId: "u1", visitorId: "v1", data: { $set: { seats: 5 } } });
    expect(await marksOf(a, "u1")).toEqual({
      marks: ["plan", "seats"],
      properties: { plan: "pro", seats: 3 },
    });
    await event(a, "secret", { userId: "u1", visitorId: "v1", data: { $set: { plan: "pro" } } });
    expect(await marksOf(a, "u1")).toEqual({ marks: ["seats"], properties: { plan: "pro", seats: 3 } });
    await send(a, "secret", "/v1/identify", { userId: "u1", traits: { seats: 4 } });
    expect(await marksOf(a, "u1")).toEqual({ marks: [], properties: { plan: "pro", seats: 4 } });
    // a server's $set_once of a name it does not fill leaves the mark where it is
    await event(a, "public", { userId: "u1", visitorId: "v1", data: { $set: { color: "red" } } });
    await event(a, "secret", { userId: "u1", visitorId: "v1", data: { $set_once: { color: "blue" } } });
    expect((await marksOf(a, "u1")).marks).toEqual(["color"]);
  });

  it("group traits: a browser's fill marks `groups`, a server's traits for one group keep the mark", async () => {
    const a = await t.tenant();
    await send(a, "public", "/v1/group", { userId: "g1", groupId: "acme", traits: { plan: "team" } });
    expect((await marksOf(a, "g1")).marks).toEqual(["groups"]);
    await send(a, "secret", "/v1/group", { userId: "g1", groupId: "globex", traits: { plan: "enterprise" } });
    expect(await marksOf(a, "g1")).toEqual({
      marks: ["groups"],
      properties: { groups: { acme: { plan: "team" }, globex: { plan: "enterprise" } } },
    });
    await send(a, "secret", "/v1/group", { userId: "g2", groupId: "acme", traits: { plan: "team" } });
    expect((await marksOf(a, "g2")).marks).toEqual([]);
  });

  it("an anonymous visitor's marks join its lead; a connector's properties clear theirs", async () => {
    const a = await t.tenant();
    await event(a, "secret", { visitorId: "anon", data: { $set: { plan: "pro" } } });
    await event(a, "public", { visitorId: "anon", data: { $set: { color: "red" } } });
    const linked = await a.post("/api/identity", { visitorId: "anon", leadId: "L" });
    expect(linked.status).toBe(200);
    expect(await marksOf(a, "L")).toEqual({ marks: ["color"], properties: { plan: "pro", color: "red" } });

    const stitch = await a.post(
      "/api/identity/stitch",
      { projectKey: a.publicKey, visitorId: "v-crm", email: "crm@example.com", traits: { company: "Acme" } },
      { as: "none", headers: { "user-agent": BROWSER_UA } },
    );
    expect(stitch.status).toBe(200);
    const { id } = await t.app.db
      .selectFrom("identity_leads")
      .select("id")
      .where("project_id", "=", a.projectId)
      .where("email", "=", "crm@example.com")
      .executeTakeFirstOrThrow();
    expect((await marksOf(a, id)).marks).toEqual(["company"]);
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const { lead } = await upsertLeadByEmail(t.app.deps, project, {
      email: "crm@example.com",
      source: "crm",
      properties: { company: "Acme" },
    });
    expect(lead.id).toBe(id);
    expect((await marksOf(a, id)).marks).toEqual([]);
  });
});
