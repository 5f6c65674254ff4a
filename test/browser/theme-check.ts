import type { Page } from "playwright-core";
import { expect } from "vitest";
import { checkPage } from "./dashboard-harness.js";

/** A colour each scheme names differently (styles.css): proof the page follows the emulated scheme. */
const PROBE = { light: "#eef2ff", dark: "#1e1b4b" } as const;

/**
 * checkPage (axe, no overflow, screenshots at 1280 and 390 px) in the system's light scheme, then
 * in its dark one (prefers-color-scheme emulated on the open page), then back to light.
 */
export async function checkThemes(page: Page, name: string): Promise<void> {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const probe = await page.evaluate(() =>
      getComputedStyle(document.documentElement).getPropertyValue("--info-bg").trim(),
    );
    expect(probe, `${name}: the ${colorScheme} palette`).toBe(PROBE[colorScheme]);
    await checkPage(page, `${name}-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}
