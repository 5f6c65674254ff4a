import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { endpointFiles } from "../../tools/endpoint-files.js";

/**
 * docs/architecture.md is read before the code: its newcomer counts (§5) are checked against
 * tools/endpoint-files.ts, so that they stay true as the code moves (its import graph, §1, is
 * checked in module-surfaces.test.ts).
 */
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DOC = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");

/** A reader follows at most this many files of the route's own module (the bound this section promises). */
const CORE_BOUND = 8;

/** §5's table rows: endpoint, core files, in all. */
function documentedCounts(): { endpoint: string; core: number; total: number }[] {
  const section = DOC.slice(DOC.indexOf("## 5."), DOC.indexOf("## 6."));
  return [...section.matchAll(/^\| `([A-Z]+ [^`]+)`[^|]*\| (\d+) \| (\d+) \|/gm)].map((m) => ({
    endpoint: m[1]!,
    core: Number(m[2]),
    total: Number(m[3]),
  }));
}

describe("docs/architecture.md against the code", () => {
  it("§5's counts are the tool's, and each endpoint is within the newcomer bound", {
    timeout: 120_000,
  }, () => {
    const documented = documentedCounts();
    expect(documented.map((d) => d.endpoint)).toHaveLength(4);
    const measured = endpointFiles(documented.map((d) => d.endpoint));
    expect(
      measured.map((m) => ({ endpoint: m.endpoint, core: m.core.length, total: m.total.length })),
    ).toEqual(documented);
    for (const m of measured) expect(m.core.length, m.endpoint).toBeLessThanOrEqual(CORE_BOUND);
  });
});
