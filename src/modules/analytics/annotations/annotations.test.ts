import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

type Note = { id: string; date: string; endDate: string | null; text: string };
const texts = (list: Note[]) => list.map((n) => n.text);

describe("/api/annotations", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
  });

  it("creates, reads, changes and deletes; records who made it", async () => {
    const created = await a.post("/api/annotations", { date: "2025-03-04", text: "Pricing page launched" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      date: "2025-03-04",
      endDate: null,
      text: "Pricing page launched",
      createdBy: { kind: "apiKey" },
    });
    const byUser = await a.post(
      "/api/annotations",
      { date: "2025-03-01", endDate: "2025-03-07", text: "Spring campaign" },
      { as: "member" },
    );
    expect(byUser.body.createdBy.kind).toBe("user");
    const id = created.body.id as string;
    expect((await a.get(`/api/annotations/${id}`)).body).toEqual(created.body);

    const moved = await a.patch(`/api/annotations/${id}`, { date: "2025-03-05", endDate: "2025-03-06" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      date: "2025-03-05",
      endDate: "2025-03-06",
      text: "Pricing page launched",
    });
    const single = await a.patch(
      `/api/annotations/${id}`,
      { endDate: null, text: "Pricing v2" },
      { as: "admin" },
    );
    expect(single.body).toMatchObject({ endDate: null, text: "Pricing v2" });

    expect((await a.del(`/api/annotations/${id}`)).body).toEqual({ id, deleted: true });
    expect((await a.get(`/api/annotations/${id}`)).status).toBe(404);
    expect((await a.del(`/api/annotations/${id}`)).status).toBe(404);
    await a.del(`/api/annotations/${byUser.body.id}`);
  });

  it("lists newest day first; from/to keep those overlapping the days", async () => {
    const b = await t.tenant();
    const add = async (date: string, text: string, endDate?: string) =>
      expect((await b.post("/api/annotations", { date, text, ...(endDate ? { endDate } : {}) })).status).toBe(
        201,
      );
    await add("2025-03-02", "before");
    await add("2025-03-10", "after");
    await add("2025-02-25", "campaign", "2025-03-04");
    await add("2025-03-05", "inside");
    await add("2025-03-05", "inside, later");
    expect(texts((await b.get("/api/annotations")).body)).toEqual([
      "after",
      "inside, later",
      "inside",
      "before",
      "campaign",
    ]);
    const week = await b.get("/api/annotations", { query: { from: "2025-03-03", to: "2025-03-09" } });
    // the campaign started before the week and runs into it
    expect(texts(week.body)).toEqual(["inside, later", "inside", "campaign"]);
    expect(texts((await b.get("/api/annotations", { query: { to: "2025-03-02" } })).body)).toEqual([
      "before",
      "campaign",
    ]);
    expect((await b.get("/api/annotations", { query: { limit: "2" } })).body).toHaveLength(2);
  });

  it.each([
    [{ text: "x" }, /body\.date/],
    [{ date: "03/04/2025", text: "x" }, /^body\.date must be an ISO 8601 date/],
    [{ date: "2025-02-30", text: "x" }, /^body\.date must be a calendar date/],
    [{ date: "2025-03-04", endDate: "2025-03-03", text: "x" }, /^body\.endDate must not be before the date/],
    [{ date: "2025-03-04", endDate: "2025-13-01", text: "x" }, /^body\.endDate/],
    [{ date: "2025-03-04", text: "" }, /^body\.text/],
    [{ date: "2025-03-04", text: "x".repeat(501) }, /^body\.text/],
    [{ date: "2025-03-04", text: "x", colour: "red" }, /colour/],
  ])("POST %j is 400 naming the field", async (body, message) => {
    const res = await a.post("/api/annotations", body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(message);
  });

  it("PATCH and list refuse bad input with 400 naming the field", async () => {
    const n = (await a.post("/api/annotations", { date: "2025-03-04", endDate: "2025-03-06", text: "x" }))
      .body;
    const late = await a.patch(`/api/annotations/${n.id}`, { date: "2025-03-08" });
    expect(late.status).toBe(400);
    expect(late.body.error).toBe("body.date must not be after the endDate (2025-03-06)");
    expect((await a.patch(`/api/annotations/${n.id}`, {})).status).toBe(400);
    const list = await a.get("/api/annotations", { query: { from: "2025-03-09", to: "2025-03-01" } });
    expect(list.status).toBe(400);
    expect(list.body.error).toMatch(/^query\.from/);
    expect((await a.get("/api/annotations", { query: { from: "2025-02-31" } })).body.error).toMatch(
      /^query\.from/,
    );
    expect((await a.get("/api/annotations", { query: { limit: "0" } })).body.error).toMatch(/limit/);
  });

  it("another project's annotations are 404 and invisible; no credentials is 401", async () => {
    const mine = (await a.post("/api/annotations", { date: "2025-03-04", text: "mine" })).body;
    const other = await t.tenant();
    expect((await other.get(`/api/annotations/${mine.id}`)).status).toBe(404);
    expect((await other.patch(`/api/annotations/${mine.id}`, { text: "theirs" })).status).toBe(404);
    expect((await other.del(`/api/annotations/${mine.id}`)).status).toBe(404);
    expect((await other.get("/api/annotations")).body).toEqual([]);
    expect((await a.get("/api/annotations", { as: "none" })).status).toBe(401);
    expect((await a.post("/api/annotations", { date: "2025-03-04", text: "x" }, { as: "none" })).status).toBe(
      401,
    );
    expect((await a.get(`/api/annotations/${mine.id}`)).body.text).toBe("mine");
  });
});
