import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFilterProject } from "../../src/modules/analytics/filters/filter-fixture.testing.js";
import type { Tenant } from "../helpers/app.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * Issue 34's rule: every page of the dashboard at 1280 and 390 px (checkPage: axe, no sideways
 * overflow, a screenshot per width) in the light and the dark scheme. Every area of the
 * navigation, then the pages no link in it reaches: a dashboard of saved insights, its public
 * link and an invitation's accept page (both opened without a session), and the not-found page.
 * Each area's own test drives its sub-pages; the first run is in team.test.ts, in both schemes.
 */
let d: Dashboard;
let a: Tenant;
let dashboardId: string;
let shareToken: string;
let inviteToken: string;
beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  // data in every report, so the pages are checked with tables and charts, not empty states
  await seedFilterProject(a);
  const insight = await a.post("/api/insights", {
    kind: "breakdown",
    name: "Visitors by device",
    settings: { by: "device", period: "7d" },
  });
  expect(insight.status).toBe(201);
  const board = await a.post("/api/dashboards", {
    name: "Monday numbers",
    items: [{ insightId: insight.body.id, x: 0, y: 0, w: 12, h: 1 }],
  });
  expect(board.status).toBe(201);
  dashboardId = board.body.id;
  shareToken = (await a.post(`/api/dashboards/${dashboardId}/share`)).body.token;
  // no mail server here: the invitation stands and its link is returned (invites.test.ts)
  const invite = await a.post(
    "/api/workspace/invites",
    { email: "new-hire@example.com", role: "member" },
    { as: "admin" },
  );
  expect(invite.status).toBe(201);
  inviteToken = (invite.body.acceptUrl as string).split("/invite/")[1]!;
}, 60_000);
afterAll(async () => d?.close());

/** The paths of the main navigation's links, as the signed-in admin sees them. */
const navigationPaths = (page: Page) =>
  page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link")
    .evaluateAll((els) => els.map((el) => new URL((el as HTMLAnchorElement).href).pathname));

const nameOf = (path: string) => (path === "/" ? "overview" : path.slice(1).replaceAll("/", "-"));

describe("every page in Chromium", () => {
  for (const scheme of ["light", "dark"] as const) {
    it(`every page at 1280 and 390 px in the ${scheme} scheme`, async () => {
      const { page, problems } = await d.open({ colorScheme: scheme });
      await page.goto(`${d.base}/signin`);
      await checkPage(page, `${scheme}-signin`);
      await signIn(page, a.admin.email);
      await settled(page);
      // the scheme's own palette is in use (not the light one inside a dark browser frame)
      const background = await page.evaluate(
        () => getComputedStyle(document.documentElement).backgroundColor,
      );
      expect(background).toBe(scheme === "dark" ? "rgb(15, 23, 42)" : "rgb(249, 250, 251)");

      const paths = await navigationPaths(page);
      expect(paths).toEqual(expect.arrayContaining(["/", "/dashboards", "/cohorts", "/flags", "/settings"]));
      for (const path of paths) {
        await page.goto(`${d.base}${path}`);
        await page.getByRole("heading", { level: 1 }).waitFor();
        expect(await page.getByRole("heading", { name: "Page not found" }).count()).toBe(0);
        await checkPage(page, `${scheme}-area-${nameOf(path)}`);
      }

      await page.goto(`${d.base}/dashboards/${dashboardId}`);
      await page.getByRole("heading", { name: "Monday numbers", level: 1 }).waitFor();
      await page.getByRole("region", { name: "Visitors by device, table", exact: true }).waitFor();
      await checkPage(page, `${scheme}-dashboard`);

      await page.goto(`${d.base}/no/such/page`);
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
      await checkPage(page, `${scheme}-not-found`);
      expect(problems).toEqual([]);

      // the pages for people without a session: a fresh browser profile each
      const shared = await d.open({ colorScheme: scheme });
      await shared.page.goto(`${d.base}/share/${shareToken}`);
      await shared.page.getByRole("heading", { name: "Monday numbers", level: 1 }).waitFor();
      await shared.page.getByRole("region", { name: "Visitors by device, table", exact: true }).waitFor();
      await checkPage(shared.page, `${scheme}-shared-dashboard`);
      expect(shared.problems).toEqual([]);

      const invited = await d.open({ colorScheme: scheme });
      await invited.page.goto(`${d.base}/invite/${inviteToken}`);
      await invited.page.getByText(`${a.admin.email} invited you to`).waitFor();
      await checkPage(invited.page, `${scheme}-accept-invite`);
      expect(invited.problems).toEqual([]);
    }, 300_000);
  }
});
