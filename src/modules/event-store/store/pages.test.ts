import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import type { SnippetEventBody } from "../../events/schema.js";
import { eventPages, writerFor } from "../service.js";
import { snippetToIncoming } from "../../events/validate.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

const DAY = 86_400_000;
const T0 = Date.parse("2026-06-01T12:00:00Z");

/** Events received on `day` (the clock set there), their times `lag` days before it. */
async function receive(project: { id: string; workspaceId: string }, day: number, lag = 0, n = 3) {
  const now = T0 + day * DAY;
  vi.spyOn(Date, "now").mockReturnValue(now);
  const events = Array.from({ length: n }, (_, i) =>
    snippetToIncoming(
      {
        type: "pageview",
        visitorId: `d${day}-${i}`,
        url: "https://a.example/",
        timestamp: new Date(now - lag * DAY + i).toISOString(),
      } as SnippetEventBody,
      undefined,
      now,
    ),
  );
  await writerFor(t.app.deps).write(project, events, "web");
  vi.restoreAllMocks();
}

const collect = async (project: { id: string; workspaceId: string }, from: number, to: number) => {
  const out: string[] = [];
  for await (const page of eventPages(t.app.db, project, { from, to }, { pageRows: 2 }))
    out.push(...page.map((r) => r.visitor_id));
  return out.sort();
};

describe("reads bounded by arrival", () => {
  it("a range read starts at the rows received from a day before it, and misses no event of the range", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    for (let day = 0; day < 10; day++) {
      await receive(project, day);
      // Received on day 1 with a time 19 hours later (a client clock ahead: allowed up to a day).
      if (day === 1) await receive(project, 1, -0.8, 1);
    }
    // Received on day 9, but their times say day 2: arrival order is not event time.
    await receive(project, 9, 7, 2);
    const days = (from: number, to: number) =>
      collect(project, T0 + from * DAY - DAY / 2, T0 + to * DAY + DAY / 2);
    expect(await days(5, 7)).toEqual([
      "d5-0",
      "d5-1",
      "d5-2",
      "d6-0",
      "d6-1",
      "d6-2",
      "d7-0",
      "d7-1",
      "d7-2",
    ]);
    expect(await days(2, 2)).toEqual(["d1-0", "d2-0", "d2-1", "d2-2", "d9-0", "d9-1"]);
    expect(await days(0, 9)).toHaveLength(33);
  });

  it("receipt times never go back, even when the clock does", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    await receive(project, 40);
    await receive(project, 38, 0, 1); // the clock set back two days
    const rows = await t.app.db
      .selectFrom("events")
      .select(["received_at", "ts"])
      .where("project_id", "=", a.projectId)
      .execute();
    // The request made while the clock read day 38 is stamped as received on day 40.
    const late = rows.find((r) => Number(r.ts) === T0 + 38 * DAY)!;
    expect(Number(late.received_at)).toBe(T0 + 40 * DAY);
    expect(rows.every((r) => Number(r.received_at) === T0 + 40 * DAY)).toBe(true);
  });
});
