/**
 * Time until each dashboard page shows its data, in Chromium, on a project holding N stored
 * events' worth of analytics (bench/analytics/seed.ts: rollups, touchpoints, conversions), on
 * SQLite. Measured from navigation start to the page's data on screen (no loading placeholder
 * left, the page's own marker visible), after one warm-up visit; the issue's target is 1 s.
 * Needs web/dist (`npm run build`).
 * Run: npx tsx bench/dashboard/pages.bench.ts          (BENCH_EVENTS=1000000, BENCH_RUNS=5)
 */
import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { chromium, type Page } from "playwright-core";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { seedAnalytics } from "../analytics/seed.js";
import { benchConfig } from "../lib/config.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PASSWORD = "bench password 1";
const PAGES: { name: string; path: string; ready: (page: Page) => Promise<unknown> }[] = [
  { name: "overview 30d", path: "/", ready: (p) => p.locator(".chart-canvas canvas").first().waitFor() },
  {
    name: "overview 7d",
    path: "/?period=7d",
    ready: (p) => p.locator(".chart-canvas canvas").first().waitFor(),
  },
  {
    name: "overview 90d",
    path: "/?period=90d",
    ready: (p) => p.locator(".chart-canvas canvas").first().waitFor(),
  },
  { name: "settings", path: "/settings", ready: (p) => p.getByTestId("snippet").waitFor() },
  {
    name: "attribution",
    path: "/attribution",
    ready: (p) =>
      p
        .getByRole("region", { name: "Credited conversions and revenue per channel under every model" })
        .waitFor(),
  },
  {
    name: "visitors & leads",
    path: "/visitors",
    ready: (p) => p.getByRole("heading", { name: "Live events" }).waitFor(),
  },
  {
    name: "experiments",
    path: "/experiments",
    ready: (p) => p.getByRole("heading", { name: "Experiments", level: 1 }).waitFor(),
  },
  {
    name: "goals & beliefs",
    path: "/goals",
    ready: (p) => p.getByRole("heading", { name: "Beliefs", exact: true }).waitFor(),
  },
];

const config = benchConfig("dashboard");
const app = await buildApp(config, { logger: false });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const p = await provisionWorkspace(app.db, {
    name: "bench",
    email: "bench@example.com",
    password: PASSWORD,
  });
  const started = performance.now();
  const counts = seedAnalytics(app.dbHandle.sqlite!, p.project.id, EVENTS, Date.now());
  app.dbHandle.sqlite!.exec("analyze");
  console.log(
    `seeded ${EVENTS.toLocaleString("en")} events' worth in ${((performance.now() - started) / 1000).toFixed(1)} s:`,
    counts,
  );
  await app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${base}/signin`);
  await page.getByLabel("Email").fill("bench@example.com");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Overview" }).waitFor();

  console.log(
    "| page | data on screen p50 | max | slowest API call p50 | runs |\n| --- | --- | --- | --- | --- |",
  );
  // BENCH_PAGES=goals,attribution measures only the pages whose name contains one of the words.
  const only = process.env.BENCH_PAGES?.split(",");
  for (const target of PAGES.filter((t) => !only || only.some((w) => t.name.includes(w)))) {
    const times: number[] = [];
    const api: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const t0 = performance.now();
      await page.goto(`${base}${target.path}`);
      await target.ready(page).catch((err) => {
        console.error(`${target.name}: ${err}`);
        throw err;
      });
      await page.waitForFunction(() => document.querySelector(".skeleton") === null);
      if (i === 0) continue; // the first visit warms caches
      times.push(performance.now() - t0);
      // the API's share, from the page's own resource timings
      api.push(
        await page.evaluate(() =>
          Math.max(
            0,
            ...performance
              .getEntriesByType("resource")
              .filter((e) => e.name.includes("/api/"))
              .map((e) => (e as PerformanceResourceTiming).responseEnd - e.startTime),
          ),
        ),
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `| ${target.name} | ${median(times).toFixed(0)} ms | ${Math.max(...times).toFixed(0)} ms | ${median(api).toFixed(0)} ms | ${RUNS} |`,
    );
  }
} finally {
  await browser.close();
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
