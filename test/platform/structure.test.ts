import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Issue 36: imports point one way. No two files of the server (src/) or of the dashboard
 * (web/src/) import each other, directly or around a loop — type-only and lazy `import()` included,
 * since a loop of types is still a loop a reader must walk — and no two feature modules depend on
 * each other. A new cycle fails here with its files named.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === "node_modules" ? [] : sourceFiles(p);
    return /\.tsx?$/.test(d.name) && !/\.(test|d)\.tsx?$/.test(d.name) ? [p] : [];
  });
}

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.[^"']+)["']/gm;

/** The project files a file imports (relative specifiers resolved as TypeScript and Vite do). */
function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, "utf8").matchAll(SPECIFIERS)) {
    const base = path.resolve(path.dirname(file), m[1]!);
    const stem = base.replace(/\.js$/, "");
    const found = [
      `${stem}.ts`,
      `${stem}.tsx`,
      base,
      path.join(base, "index.ts"),
      path.join(base, "index.tsx"),
    ].find((c) => /\.tsx?$/.test(c) && existsSync(c));
    if (found) out.push(found);
  }
  return out;
}

/** Strongly connected components with more than one member (Tarjan): the import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const fileGraph = (dir: string) =>
  new Map(sourceFiles(path.join(ROOT, dir)).map((f) => [f, importsOf(f)] as [string, string[]]));
const named = (found: string[][]) => found.map((c) => c.map((f) => path.relative(ROOT, f)));

describe("structure", () => {
  it("no import cycle between the server's files", () => {
    expect(named(cycles(fileGraph("src")))).toEqual([]);
  });

  it("no import cycle between the dashboard's files", () => {
    expect(named(cycles(fileGraph("web/src")))).toEqual([]);
  });

  it("no two feature modules depend on each other, around any loop", () => {
    const modulesDir = path.join(ROOT, "src/modules");
    const moduleOf = (f: string) => {
      const rel = path.relative(modulesDir, f);
      return rel.startsWith("..") || !rel.includes(path.sep) ? null : rel.split(path.sep)[0]!;
    };
    const graph = new Map<string, string[]>();
    for (const [file, targets] of fileGraph("src/modules")) {
      const from = moduleOf(file);
      if (!from) continue; // modules/index.ts, the registry, imports every module.ts
      const to = new Set(graph.get(from) ?? []);
      for (const t of targets) {
        const m = moduleOf(t);
        if (m && m !== from) to.add(m);
      }
      graph.set(from, [...to]);
    }
    expect(cycles(graph)).toEqual([]);
  });

  it("finds a cycle when there is one (the check itself can fail)", () => {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(cycles(g)).toEqual([["a", "b", "c"]]);
  });
});
