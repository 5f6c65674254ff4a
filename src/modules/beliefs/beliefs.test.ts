import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { MAX, MIN, updateConfidence } from "./update.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("beliefs API", () => {
  it("creates with default confidence 0.5, lists, and updates with evidence", async () => {
    const a = await t.tenant();
    const b = await a.post("/api/beliefs", { statement: "Shorter forms convert better", tags: ["forms"] });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ confidence: 0.5, tags: ["forms"], evidence: [] });
    const up = await a.post(`/api/beliefs/${b.body.id}/update-confidence`, {
      type: "experiment",
      experimentId: "exp_1",
      delta: 0.2,
      sampleSize: 400,
    });
    expect(up.status).toBe(200);
    expect(up.body.confidence).toBeGreaterThan(0.5);
    expect(up.body.evidence).toHaveLength(1);
    expect(up.body.evidence[0]).toMatchObject({
      type: "experiment",
      experimentId: "exp_1",
      delta: 0.2,
      sampleSize: 400,
      method: "reported",
      confidenceBefore: 0.5,
    });
    const down = await a.post(`/api/beliefs/${b.body.id}/update-confidence`, {
      type: "observation",
      delta: -0.5,
    });
    expect(down.body.confidence).toBeLessThan(up.body.confidence);
    expect(down.body.evidence).toHaveLength(2);
    const zero = await a.post(`/api/beliefs/${b.body.id}/update-confidence`, { type: "external", delta: 0 });
    expect(zero.body.confidence).toBe(down.body.confidence);
    const list = await a.get("/api/beliefs");
    expect(list.body[0].evidence).toHaveLength(3);
  });

  it.each([
    [{}, /statement/],
    [{ statement: "x", confidence: 1.5 }, /confidence/],
    [{ statement: "x", confidence: -0.1 }, /confidence/],
    [{ statement: "x", tags: "a,b" }, /tags/],
  ])("POST /api/beliefs %j → 400", async (body, field) => {
    const a = await t.tenant();
    const res = await a.post("/api/beliefs", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(field);
  });

  it("update-confidence validates type, delta and experimentId; unknown and foreign ids are 404", async () => {
    const a = await t.tenant();
    const other = await t.tenant();
    const b = await a.post("/api/beliefs", { statement: "x" });
    const url = `/api/beliefs/${b.body.id}/update-confidence`;
    expect((await a.post(url, { type: "rumour", delta: 1 })).status).toBe(400);
    expect((await a.post(url, { type: "observation" })).body.error).toMatch(/delta/);
    expect((await a.post(url, { type: "experiment", delta: 0.1 })).body.error).toMatch(/experimentId/);
    expect((await a.post(url, { type: "observation", delta: 0.1, sampleSize: -3 })).status).toBe(400);
    expect(
      (await a.post("/api/beliefs/blf_nope/update-confidence", { type: "observation", delta: 1 })).status,
    ).toBe(404);
    expect((await other.post(url, { type: "observation", delta: 1 })).status).toBe(404);
    expect((await a.post(url, { type: "observation", delta: 1 }, { as: "none" })).status).toBe(401);
  });

  it("GET /api/beliefs/:id reads one belief; another workspace's is 404 and not listed", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const mine = await a.post("/api/beliefs", { statement: "mine" });
    expect((await a.get(`/api/beliefs/${mine.body.id}`)).body).toMatchObject({
      id: mine.body.id,
      statement: "mine",
    });
    expect((await b.get(`/api/beliefs/${mine.body.id}`)).status).toBe(404);
    expect((await b.get("/api/beliefs")).body).toEqual([]);
    expect((await a.get("/api/beliefs", { as: "none" })).status).toBe(401);
  });
});

describe("updateConfidence (properties)", () => {
  const conf = fc.double({ min: MIN, max: MAX, noNaN: true });
  const n = fc.integer({ min: 0, max: 1_000_000 });
  it("supporting evidence never lowers confidence; contradicting never raises", () => {
    fc.assert(
      fc.property(conf, fc.double({ min: 1e-6, max: 50, noNaN: true }), n, (c, d, size) => {
        expect(updateConfidence(c, d, size)).toBeGreaterThanOrEqual(c);
        expect(updateConfidence(c, -d, size)).toBeLessThanOrEqual(c);
      }),
    );
  });
  it("a larger sample moves confidence at least as far", () => {
    fc.assert(
      fc.property(conf, fc.double({ min: -5, max: 5, noNaN: true }), n, n, (c, d, s1, s2) => {
        const [small, large] = s1 <= s2 ? [s1, s2] : [s2, s1];
        expect(Math.abs(updateConfidence(c, d, large) - c)).toBeGreaterThanOrEqual(
          Math.abs(updateConfidence(c, d, small) - c) - 1e-12,
        );
      }),
    );
  });
  it("stays within (0, 1) and delta 0 changes nothing", () => {
    fc.assert(
      fc.property(
        conf,
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.option(n, { nil: undefined }),
        (c, d, size) => {
          const next = updateConfidence(c, d, size);
          expect(next).toBeGreaterThan(0);
          expect(next).toBeLessThan(1);
          expect(updateConfidence(c, 0, size)).toBe(c);
        },
      ),
    );
  });
  it("strictly stronger with a larger sample away from the clamps", () => {
    expect(updateConfidence(0.5, 0.1, 1000) - 0.5).toBeGreaterThan(updateConfidence(0.5, 0.1, 10) - 0.5);
  });
});
