import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { endpointFiles } from "../../tools/endpoint-files.js";

/**
 * docs/architecture.md is read before the code: its import graph (§1) and its newcomer counts
 * (§5) are checked against the code, so that they stay true as the code moves.
 */
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MODULES = path.join(ROOT, "src/modules");
const DOC = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");

/** A reader follows at most this many files of the route's own module (issue's newcomer bound). */
const CORE_BOUND = 8;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(d.name) && !/\.(test|testing)\.ts$/.test(d.name) ? [p] : [];
  });
}

/** "from → to" for every module that imports another's service (tests and test helpers excluded). */
function codeEdges(): string[] {
  const edges = new Set<string>();
  for (const file of sourceFiles(MODULES)) {
    const rel = path.relative(MODULES, file).split(path.sep);
    if (rel.length < 2) continue; // modules/index.ts and read-tasks.ts wire every module
    for (const m of readFileSync(file, "utf8").matchAll(
      /(?:^|\n)\s*(?:import|export)[^;]*?from\s+"(\.[^"]+)"/g,
    )) {
      const target = path.relative(MODULES, path.resolve(path.dirname(file), m[1]!)).split(path.sep);
      if (target.length > 1 && !target[0]!.startsWith("..") && target[0] !== rel[0])
        edges.add(`${rel[0]} → ${target[0]}`);
    }
  }
  return [...edges].sort();
}

/** The mermaid graph's lines `a --> b & c`, as "a → b", "a → c". */
function docEdges(): string[] {
  const graph = /```mermaid\n([\s\S]*?)```/.exec(DOC)?.[1] ?? "";
  return graph
    .split("\n")
    .map((line) => /^\s*([\w-]+)\s*-->\s*(.+)$/.exec(line))
    .flatMap((m) => (m ? m[2]!.split("&").map((to) => `${m[1]} → ${to.trim()}`) : []))
    .sort();
}

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
  it("the import graph drawn in §1 is the modules' imports, edge for edge", () => {
    expect(docEdges().length).toBeGreaterThan(0);
    expect(codeEdges()).toEqual(docEdges());
  });

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
