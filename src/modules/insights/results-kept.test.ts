import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { KeptAnswers } from "./kept.js";
import { dashboardResults } from "./results.js";

/**
 * The signed-in dashboard view answers from a kept answer per dashboard version, so a
 * signed-in dashboard opens without recomputing. Each test has its own project; a new web visitor is how a test sees
 * whether an answer was computed again. Ages past a minute go through the service's `now`.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const MINUTE = 60_000;

async function boardOf(as: Tenant) {
  const insight = await as.post("/api/insights", {
    kind: "summary",
    name: "Visitors",
    settings: { period: "7d" },
  });
  expect(insight.status).toBe(201);
  const board = await as.post("/api/dashboards", {
    name: "Weekly",
    items: [{ insightId: insight.body.id, x: 0, y: 0, w: 12, h: 1 }],
  });
  expect(board.status).toBe(201);
  return { insightId: insight.body.id as string, id: board.body.id as string };
}

const visit = async (as: Tenant, visitorId: string) => {
  const res = await as.post(
    "/api/events",
    { projectKey: as.publicKey, type: "pageview", visitorId, url: "https://shop.example.com/" },
    { as: "none", headers: { "user-agent": BROWSER_UA } },
  );
  expect(res.status).toBeLessThan(300);
};

/** The first tile's visitors (a summary tile), from the HTTP body or the service's answer. */
const visitorsOf = (body: { tiles: { answer: unknown }[] }) =>
  (body.tiles[0]!.answer as { result: { visitors: number } }).result.visitors;

describe("GET /api/dashboards/:id/results keeps its answer", () => {
  it("answers a second request within the minute with the same computedAt; refresh=true computes anew", async () => {
    const a = await t.tenant();
    const board = await boardOf(a);
    const first = await a.get(`/api/dashboards/${board.id}/results`);
    expect(first.status).toBe(200);
    expect(visitorsOf(first.body)).toBe(0);
    await visit(a, "v1");
    // sharing does not make a new version, but the dashboard in the answer is today's
    await a.post(`/api/dashboards/${board.id}/share`);
    const second = await a.get(`/api/dashboards/${board.id}/results`);
    expect(second.body.computedAt).toBe(first.body.computedAt);
    expect(visitorsOf(second.body)).toBe(0);
    expect(second.body.dashboard.shared).not.toBeNull();

    const refreshed = await a.get(`/api/dashboards/${board.id}/results?refresh=true`);
    expect(refreshed.status).toBe(200);
    expect(visitorsOf(refreshed.body)).toBe(1);
    expect(refreshed.body.computedAt).not.toBe(first.body.computedAt);
    // the refreshed answer is the one kept from now on
    expect((await a.get(`/api/dashboards/${board.id}/results`)).body).toEqual(refreshed.body);
  });

  it("computes anew after an edit of the dashboard, and after an edit of one of its insights", async () => {
    const a = await t.tenant();
    const board = await boardOf(a);
    const first = (await a.get(`/api/dashboards/${board.id}/results`)).body;
    await visit(a, "v1");
    expect((await a.patch(`/api/dashboards/${board.id}`, { name: "Weekly (v2)" })).status).toBe(200);
    const afterDashboard = (await a.get(`/api/dashboards/${board.id}/results`)).body;
    expect(afterDashboard.dashboard.name).toBe("Weekly (v2)");
    expect(visitorsOf(afterDashboard)).toBe(1);
    expect(afterDashboard.computedAt).not.toBe(first.computedAt);

    await visit(a, "v2");
    const patched = await a.patch(`/api/insights/${board.insightId}`, {
      name: "Visitors, 30 days",
      settings: { period: "30d" },
    });
    expect(patched.status).toBe(200);
    const afterInsight = (await a.get(`/api/dashboards/${board.id}/results`)).body;
    expect(afterInsight.tiles[0]).toMatchObject({ name: "Visitors, 30 days" });
    expect(visitorsOf(afterInsight)).toBe(2);
    expect(afterInsight.computedAt).not.toBe(afterDashboard.computedAt);
  });

  it("past a minute answers at once with the kept answer and recomputes in the background; past 15 minutes waits", async () => {
    const a = await t.tenant();
    const board = await boardOf(a);
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const first = (await a.get(`/api/dashboards/${board.id}/results`)).body;
    await visit(a, "v1");

    // a minute past when the first answer finished (its age counts from there), with margin
    const later = Date.parse(first.computedAt) + MINUTE + 5_000;
    const stale = await dashboardResults(t.app.deps, project, board.id, {}, later);
    expect(stale.computedAt).toBe(first.computedAt);
    expect(visitorsOf(stale)).toBe(0);
    // the background computation started at `later` replaces it
    const next = await vi.waitFor(
      async () => {
        const res = await a.get(`/api/dashboards/${board.id}/results`);
        expect(res.body.computedAt).not.toBe(first.computedAt);
        return res.body;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(next.computedAt).toBe(new Date(later).toISOString());
    expect(visitorsOf(next)).toBe(1);

    await visit(a, "v2");
    // 15 minutes past the background answer's finish (its age counts from there), with margin
    const muchLater = later + 16 * MINUTE;
    const awaited = await dashboardResults(t.app.deps, project, board.id, {}, muchLater);
    expect(awaited.computedAt).toBe(new Date(muchLater).toISOString());
    expect(visitorsOf(awaited)).toBe(2);
  });

  it("runs one computation per version at a time, refresh included", async () => {
    const a = await t.tenant();
    const board = await boardOf(a);
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const now = Date.now();
    // The first computation is held until the second request has asked for the answer, so the two
    // overlap however slowly the machine reads the dashboard's rows (CI once let the first finish).
    const reads = t.app.deps.reads;
    let computations = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const deps = {
      ...t.app.deps,
      reads: {
        ...reads,
        run: (async (...args: Parameters<typeof reads.run>) => {
          computations++;
          await held;
          return reads.run(...args);
        }) as typeof reads.run,
      },
    };
    const asks = vi.spyOn(KeptAnswers.prototype, "get");
    const both = Promise.all([
      dashboardResults(deps, project, board.id, { refresh: true }, now),
      dashboardResults(deps, project, board.id, { refresh: true }, now + 5),
    ]);
    await vi.waitFor(() => expect(asks).toHaveBeenCalledTimes(2));
    asks.mockRestore();
    release();
    const [one, two] = await both;
    expect(computations).toBe(1);
    expect(two.computedAt).toBe(one.computedAt);
    expect(one.computedAt).toBe(new Date(now).toISOString());
  });

  it("another project gets 404, with or without refresh, kept answer or not", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const board = await boardOf(a);
    expect((await a.get(`/api/dashboards/${board.id}/results`)).status).toBe(200);
    for (const url of [
      `/api/dashboards/${board.id}/results`,
      `/api/dashboards/${board.id}/results?refresh=true`,
    ]) {
      const res = await b.get(url);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: "NOT_FOUND" });
    }
    expect((await a.get(`/api/dashboards/${board.id}/results?refresh=maybe`)).status).toBe(400);
  });
});
