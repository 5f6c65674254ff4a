import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { exportRange } from "./export.js";
import { eventPages } from "./service.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const T0 = Date.parse("2026-03-10T12:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** Six events of project A over three days (one with commas and quotes), one of project B. */
async function seed(a: Tenant, b: Tenant): Promise<void> {
  const post = async (who: Tenant, body: Record<string, unknown>) => {
    const res = await who.post(
      "/api/events",
      { projectKey: who.publicKey, ...body },
      { as: "none", headers: { "user-agent": BROWSER_UA } },
    );
    expect(res.status).toBe(200);
  };
  await post(a, { type: "pageview", visitorId: "v1", url: "https://shop.example.com/", timestamp: iso(T0) });
  await post(a, {
    type: "note",
    visitorId: "v1",
    url: "https://shop.example.com/a,b",
    data: { text: 'said "hi", twice' },
    timestamp: iso(T0 + 60_000),
  });
  await post(a, {
    visitorId: "v2",
    events: [
      { type: "pageview", url: "https://shop.example.com/x", timestamp: iso(T0 + 86_400_000) },
      {
        type: "purchase",
        url: "https://shop.example.com/y",
        data: { revenue: 9 },
        timestamp: iso(T0 + 86_400_000 + 1),
      },
      { type: "pageview", url: "https://shop.example.com/z", timestamp: iso(T0 + 2 * 86_400_000) },
      { type: "pageview", url: "https://shop.example.com/w", timestamp: iso(T0 + 2 * 86_400_000 + 5) },
    ],
  });
  await post(b, {
    type: "pageview",
    visitorId: "other",
    url: "https://other.example.com/",
    timestamp: iso(T0),
  });
}

describe("GET /api/export/events", () => {
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
    b = await t.tenant();
    await seed(a, b);
  });

  it("streams the project's events as NDJSON, one per line, nothing of another project", async () => {
    const res = await a.get("/api/export/events");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="events-.*\.ndjson"$/);
    const lines = res.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(6);
    expect(lines.map((e) => e.url)).not.toContain("https://other.example.com/");
    expect(lines.find((e) => e.type === "note")).toMatchObject({
      visitorId: "v1",
      url: "https://shop.example.com/a,b",
      data: { text: 'said "hi", twice' },
      timestamp: iso(T0 + 60_000),
      origin: "web",
      isBot: false,
    });
    expect(lines.find((e) => e.type === "purchase")).toMatchObject({
      visitorId: "v2",
      origin: "server",
      data: { revenue: 9 },
    });
    expect(new Set(lines.map((e) => e.id)).size).toBe(6);
  });

  it("takes a range: a date is its whole UTC day, both ends included", async () => {
    const res = await a.get("/api/export/events?from=2026-03-11&to=2026-03-11");
    const types = res.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l).url);
    expect(types.sort()).toEqual(["https://shop.example.com/x", "https://shop.example.com/y"]);
    const upTo = await a.get(`/api/export/events?to=${encodeURIComponent(iso(T0 + 60_000))}`);
    expect(upTo.text.trimEnd().split("\n")).toHaveLength(2);
    const none = await a.get("/api/export/events?from=2030-01-01&to=2030-01-31");
    expect(none.status).toBe(200);
    expect(none.text).toBe("");
  });

  it("as CSV: a header, then one quoted row per event", async () => {
    const res = await a.get("/api/export/events?format=csv&from=2026-03-10&to=2026-03-10");
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const lines = res.text.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "id,timestamp,type,visitor_id,lead_id,session_id,url,referrer,channel,source,origin,is_bot,data",
    );
    expect(lines).toHaveLength(3);
    const note = lines.find((l) => l.includes(",note,"))!;
    expect(note).toContain(`,${iso(T0 + 60_000)},note,v1,,`);
    expect(note).toContain(',"https://shop.example.com/a,b",');
    expect(note.endsWith(',web,false,"{""text"":""said \\""hi\\"", twice""}"')).toBe(true);
  });

  it("needs a project API key or a workspace admin; bad ranges are 400", async () => {
    expect((await a.get("/api/export/events", { as: "admin" })).status).toBe(200);
    const member = await a.get<{ code: string }>("/api/export/events", { as: "member" });
    expect(member.status).toBe(403);
    expect((await a.get("/api/export/events", { as: "none" })).status).toBe(401);
    for (const q of ["from=yesterday", "to=2026-02-30T", "from=2026-03-12&to=2026-03-11", "format=xml"]) {
      const res = await a.get<{ code: string }>(`/api/export/events?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
  });

  it("reads page by page: every event once, in storage order, whatever the page size", async () => {
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const all = [];
    const sizes = [];
    for await (const page of eventPages(t.app.db, project, exportRange({}), { pageRows: 4 })) {
      sizes.push(page.length);
      all.push(...page);
    }
    expect(sizes).toEqual([4, 2]);
    expect(all.map((e) => e.id)).toEqual(
      (await a.get("/api/export/events")).text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    );
  });
});
