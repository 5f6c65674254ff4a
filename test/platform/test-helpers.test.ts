import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * One name for test-only code under src/: tests are `*.test.ts`, the helpers only tests use are
 * `*.testing.ts` (their data in a `fixtures/` folder), so the production build leaves them out by
 * two globs (tsconfig.build.json) instead of a hand-kept list, and no runtime file can lean on them.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === "node_modules" || d.name === "dist" ? [] : sourceFiles(p);
    return /\.tsx?$/.test(d.name) && !d.name.endsWith(".d.ts") ? [p] : [];
  });
}

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.[^"']+)["']/gm;

function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, "utf8").matchAll(SPECIFIERS)) {
    const base = path.resolve(path.dirname(file), m[1]!);
    const found = [`${base.replace(/\.js$/, "")}.ts`, `${base.replace(/\.js$/, "")}.tsx`, base].find(
      (c) => /\.tsx?$/.test(c) && existsSync(c),
    );
    if (found) out.push(found);
  }
  return out;
}

const SRC = path.join(ROOT, "src");
/** Tests, their helpers and the benches: code the production server never runs. */
const isDevCode = (f: string) =>
  f.startsWith(`${SRC}${path.sep}`)
    ? /\.test(ing)?\.tsx?$/.test(f)
    : f.startsWith(path.join(ROOT, "test")) || f.startsWith(path.join(ROOT, "bench"));
/** Loaded by their folder at run time, not imported (platform/db/migrate.ts). */
const MIGRATIONS = path.join(SRC, "platform/db/migrations");
const rel = (f: string) => path.relative(ROOT, f);

/** Every importer of each file, across the server, its tests, benches, tools and the dashboard. */
function importers(): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const dir of ["src", "test", "bench", "tools", "web/src"])
    for (const f of sourceFiles(path.join(ROOT, dir)))
      for (const target of importsOf(f)) by.set(target, [...(by.get(target) ?? []), f]);
  return by;
}

describe("test helpers under src/ are *.testing.ts", () => {
  const by = importers();

  it("a file under src/ that only tests and benches import is named *.testing.ts", () => {
    const misnamed = [...by]
      .filter(
        ([f, from]) =>
          f.startsWith(`${SRC}${path.sep}`) &&
          !f.startsWith(MIGRATIONS) &&
          !isDevCode(f) &&
          from.every(isDevCode),
      )
      .map(([f]) => rel(f));
    expect(misnamed).toEqual([]);
  });

  it("no runtime file imports a *.testing.ts", () => {
    const leaning = [...by]
      .filter(([f]) => f.endsWith(".testing.ts"))
      .flatMap(([f, from]) => from.filter((i) => !isDevCode(i)).map((i) => `${rel(i)} → ${rel(f)}`));
    expect(leaning).toEqual([]);
  });

  it("the production build leaves test code out by the two globs alone", () => {
    const build = JSON.parse(readFileSync(path.join(ROOT, "tsconfig.build.json"), "utf8")) as {
      exclude: string[];
    };
    expect(build.exclude).toEqual(["src/**/*.test.ts", "src/**/*.testing.ts"]);
  });
});
