import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { MAX_ATTEMPTS } from "./delivery.js";

// A smaller scale than the usual 0.001 so the 5-day rule (2.16 s here) is reached in a test:
// the 7 retry steps (99,305 s) take 0.5 s.
const SCALE = 0.000005;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true, retryScale: SCALE });
});
afterAll(async () => t.close());

/** A port nobody listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("receiver down for the whole schedule", () => {
  it("exhausts every attempt, disables the endpoint after 5 (scaled) days, and keeps the whole log", async () => {
    const a = await t.tenant();
    const wh = await a.post("/api/webhooks", {
      url: `https://127.0.0.1:${await closedPort()}/`,
      events: ["lead.created"],
    });
    expect(wh.status).toBe(201);
    const emitted: string[] = [];
    const deadline = Date.now() + 20_000;
    let status = "active";
    // Events keep coming while the receiver is down, as they would for 5 real days.
    while (status === "active" && Date.now() < deadline) {
      emitted.push(
        await emitServiceEvent(
          t.app.db,
          { workspaceId: a.workspaceId, projectId: a.projectId },
          "lead.created",
          { n: emitted.length },
        ),
      );
      await t.app.worker.drain();
      await new Promise((r) => setTimeout(r, 50));
      status = (await a.get("/api/webhooks")).body[0].status;
    }
    expect(status).toBe("disabled");
    const ep = (await a.get("/api/webhooks")).body[0];
    expect(ep.disabledReason).toMatch(/5 days/);
    // Let every pending job finish (they stop without sending now that the endpoint is disabled).
    await t.app.worker.drain();

    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: "100", ...(cursor ? { cursor } : {}) };
      const page = await a.get(`/api/webhooks/${wh.body.id}/deliveries`, { query });
      all.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    // Nothing lost: one delivery per event dispatched while active (the last event may have been
    // dispatched after the endpoint was disabled in the same drain), none left pending.
    const delivered = all.map((d) => d.eventId);
    expect(new Set(delivered).size).toBe(delivered.length);
    for (const id of emitted.slice(0, -1)) expect(delivered).toContain(id);
    for (const id of delivered) expect(emitted).toContain(id);
    expect(all.every((d) => d.status === "failed")).toBe(true);
    const first = all.find((d) => d.eventId === emitted[0])!;
    expect(first.attemptCount).toBe(MAX_ATTEMPTS);
    expect(first.attempts.map((x: any) => x.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const d of all) {
      expect(d.attempts).toHaveLength(d.attemptCount);
      for (const x of d.attempts)
        expect(x).toMatchObject({
          succeeded: false,
          statusCode: null,
          error: expect.stringMatching(/ECONNREFUSED/),
        });
    }
    // A disabled endpoint gets no new deliveries.
    await emitServiceEvent(
      t.app.db,
      { workspaceId: a.workspaceId, projectId: a.projectId },
      "lead.created",
      {},
    );
    await t.app.worker.drain();
    const after = await a.get(`/api/webhooks/${wh.body.id}/deliveries`, { query: { limit: "100" } });
    expect(after.body.data.length).toBeLessThanOrEqual(100);
    expect(after.body.data.some((d: any) => !emitted.includes(d.eventId))).toBe(false);
  });
});
