import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recomputeConversionsStep } from "../../src/modules/analytics/ingest/goal-recompute.js";
import { CONVERSION_RECOMPUTE_JOB } from "../../src/modules/goals/service.js";
import {
  checkPage,
  type Dashboard,
  sendEvent,
  settled,
  signIn,
  startDashboard,
} from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

describe("a conversion goal's recount from history in Chromium", () => {
  it("shows the recount queued, its progress while it runs, and what it counted", async () => {
    const a = await d.t.tenant();
    for (const visitorId of ["s1", "s2", "s3"]) await sendEvent(d.base, a, { visitorId, type: "signup" });
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/goals`);
    await signIn(page, a.admin.email);
    await settled(page);

    await page.getByLabel("Conversion name").fill("Signup");
    await page.getByLabel("Event type").fill("signup");
    await page.getByRole("button", { name: "Add conversion goal" }).click();
    await page.getByText("History recount queued…").waitFor();

    // One page of one event: the list (which polls while a recount runs) shows its progress.
    const job = await d.t.app.db
      .selectFrom("jobs")
      .select("payload")
      .where("type", "=", CONVERSION_RECOMPUTE_JOB.type)
      .executeTakeFirstOrThrow();
    await recomputeConversionsStep(d.t.app.deps, JSON.parse(job.payload), { pageRows: 1, maxPages: 1 });
    await page
      .getByTestId("recompute-status")
      .getByText(/Recounting history: \d+% \(1 stored event so far\)/)
      .waitFor();
    await page.getByRole("progressbar", { name: /Recounting Signup from history/ }).waitFor();
    await checkPage(page, "conversion-goal-recount");

    await d.t.app.worker.drain();
    await page
      .getByTestId("recompute-status")
      .getByText("Counted from history (3 stored events of its type)")
      .waitFor();
    const summary = await a.get("/api/analytics/summary?period=7d");
    expect(summary.body.conversions).toBe(3);
    expect(problems).toEqual([]);
  });
});
