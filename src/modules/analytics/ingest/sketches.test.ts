import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { resolvePeriod } from "../reports/period.js";
import { DAY_MS } from "./rollup-store.js";
import { weekOf, weekStart } from "./sketches.js";
import { analyticsSummary } from "../reports/summary.js";
import { commitEvents, committed } from "../analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

describe("distinct visitors over any range (weekly + edge-day sketches)", () => {
  it("weeks start on Monday", () => {
    const monday = Date.UTC(2026, 10, 16) / DAY_MS; // 2026-11-16 was a Monday
    expect(weekStart(weekOf(monday))).toBe(monday);
    expect(weekOf(monday + 6)).toBe(weekOf(monday));
    expect(weekOf(monday + 7)).toBe(weekOf(monday) + 1);
  });

  it("equal the exact count for every range over three weeks", async () => {
    const a = await t.tenant();
    const scope = { projectId: a.projectId, workspaceId: a.workspaceId };
    const first = Date.UTC(2026, 9, 1) / DAY_MS;
    // visitor i is active on the days d where (d * (i + 1)) % 5 < 2, over 23 days
    const active = new Map<number, Set<string>>();
    const events = [];
    for (let d = 0; d < 23; d++) {
      for (let i = 0; i < 6; i++) {
        if ((d * (i + 1)) % 5 >= 2) continue;
        events.push(committed(scope, { visitorId: `v${i}`, timestamp: (first + d) * DAY_MS + 3_600_000 }));
        const set = active.get(d) ?? new Set<string>();
        set.add(`v${i}`);
        active.set(d, set);
      }
    }
    await commitEvents(t.app, events);
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    for (let from = 0; from < 23; from++) {
      for (let to = from; to < 23; to += 3) {
        const expected = new Set<string>();
        for (let d = from; d <= to; d++) for (const v of active.get(d) ?? []) expected.add(v);
        const period = resolvePeriod({
          period: "custom",
          from: isoDay(first + from),
          to: isoDay(first + to),
        });
        const summary = await analyticsSummary(t.app.db, project, period);
        expect({ from, to, visitors: summary.visitors }).toEqual({ from, to, visitors: expected.size });
        expect(summary.topChannels[0]?.visitors ?? 0).toBe(expected.size);
      }
    }
  });
});
