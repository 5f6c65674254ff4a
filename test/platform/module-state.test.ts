import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * One way to keep state: per app, in the dependencies (`ServiceDeps.state`, platform/app-state.ts).
 * A module-level `let` (or `var`) or a module-level `WeakMap`/`WeakSet` in a feature module is state
 * every app in the process shares, so two test apps, or an app and the next one, see each other's.
 * The few that hold no app's state are listed here, and each is named with its reason in
 * docs/decisions/platform.md ("Per-app state lives in the dependencies").
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MODULES = path.join(ROOT, "src/modules");
const DECISIONS = path.join(ROOT, "docs/decisions/platform.md");

/** Module-level state that is no app's, by file. */
const ALLOWED: Record<string, string> = {
  "src/modules/event-store/ids.ts": "the process's id generator (random pool, per-millisecond counter)",
  "src/modules/experiments/snippet-bundle.ts": "the snippet bundle, built once from the sources",
  "src/modules/event-store/store/visitor-index.ts": "the index tails of a SQLite connection",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(d.name) && !/\.(test|testing|d)\.ts$/.test(d.name) ? [p] : [];
  });
}

/** A thread's entry file (it reads `workerData`) is that thread's top: its state is the thread's. */
const isThreadEntry = (text: string) =>
  /\bworkerData\b/.test(text) && /["']node:worker_threads["']/.test(text);

/** Module-level declarations of mutable state: `let`/`var`, or a const holding a new WeakMap/WeakSet. */
const MODULE_STATE = [
  /^(?:export\s+)?(?:let|var)\s+(\w+)/gm,
  /^(?:export\s+)?const\s+(\w+)(?:\s*:[^=\n]+)?\s*=\s*new\s+Weak(?:Map|Set)\b/gm,
];

function moduleState(text: string): string[] {
  return MODULE_STATE.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
}

describe("state in feature modules is per app", () => {
  it("no module file keeps module-level mutable state, but the allowed ones", () => {
    const found: string[] = [];
    for (const file of sourceFiles(MODULES)) {
      const rel = path.relative(ROOT, file);
      const text = readFileSync(file, "utf8");
      if (rel in ALLOWED || isThreadEntry(text)) continue;
      for (const name of moduleState(text)) found.push(`${rel}: ${name}`);
    }
    expect(found, "keep it in an app slot (platform/app-state.ts), or justify it").toEqual([]);
  });

  it("each allowed file still has such state and is named in docs/decisions/platform.md", () => {
    const decisions = readFileSync(DECISIONS, "utf8");
    for (const rel of Object.keys(ALLOWED)) {
      expect(moduleState(readFileSync(path.join(ROOT, rel), "utf8")), rel).not.toEqual([]);
      const name = `\`${rel.replace(/^src\/modules\//, "")}\``;
      expect(decisions.includes(name), `${name} is named in docs/decisions/platform.md`).toBe(true);
    }
  });

  it("recognises the shapes it refuses", () => {
    const sample = [
      "let reader: LeadReader | null = null;",
      "export let count = 0;",
      "const caches = new WeakMap<object, Cache>();",
      "  let local = 1;", // inside a function: fine
      'const SLOT = appSlot("x", () => new WeakMap());', // per app: fine
    ].join("\n");
    expect(moduleState(sample)).toEqual(["reader", "count", "caches"]);
  });
});
