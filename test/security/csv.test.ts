import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { neutraliseCell, toCsv } from "../../src/platform/csv.js";
import { toCsv as tableCsv } from "../../web/src/components/csv.js";
import { BROWSER_UA, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Issue 31, item 8: CSV cells are neutralised as OWASP describes. Before, an event type
 * `=HYPERLINK(…)` sent with a page's public key landed live in an admin's spreadsheet.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe("CSV export", () => {
  it("prefixes cells a spreadsheet would run with a quote; other cells stay as they were", async () => {
    const a = await t.tenant();
    const hostile = ['=HYPERLINK("https://evil.example","x")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"];
    for (const [i, type] of hostile.entries()) {
      const res = await a.post(
        "/api/events",
        { projectKey: a.publicKey, visitorId: `v${i}`, type, url: `https://shop.example/p?q=${i}` },
        { as: "none", headers: { "user-agent": BROWSER_UA } },
      );
      expect(res.status).toBe(200);
    }
    const plain = await a.post(
      "/api/events",
      { projectKey: a.publicKey, visitorId: "v-plain", type: "pageview", url: "https://shop.example/" },
      { as: "none", headers: { "user-agent": BROWSER_UA } },
    );
    expect(plain.status).toBe(200);
    const csv = await a.get("/api/export/events?format=csv");
    expect(csv.status).toBe(200);
    const rows: Record<string, string>[] = parse(csv.text, { columns: true });
    const types = rows.map((r) => r.type!).sort();
    expect(types).toEqual([...hostile.map((h) => `'${h}`), "pageview"].sort());
    for (const r of rows) for (const cell of Object.values(r)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it("neutraliseCell: the OWASP characters, and nothing else", () => {
    expect(neutraliseCell("=1")).toBe("'=1");
    expect(neutraliseCell("a=1")).toBe("a=1");
    expect(neutraliseCell("")).toBe("");
    expect(neutraliseCell("12.5")).toBe("12.5");
  });

  it("a table downloaded from the dashboard reads back exactly as the API's CSV of the same cells", () => {
    // Cells as spreadsheets see them: formulas, quotes, commas, line breaks, tabs, unicode.
    const cell = fc.oneof(
      fc.string({
        unit: fc.constantFrom("=", "+", "-", "@", "\t", "\r", "\n", '"', ",", "a", "1", " ", "é"),
      }),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        (rows) => {
          const width = rows[0]!.length;
          const table = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ""));
          const fromApi = parse(toCsv(table), { relax_column_count: true });
          const fromTable = parse(tableCsv(table), { relax_column_count: true });
          expect(fromTable).toEqual(fromApi);
          for (const row of fromTable) for (const c of row) expect(c).not.toMatch(/^[=+\-@\t\r]/);
        },
      ),
      { numRuns: 500 },
    );
  });
});
