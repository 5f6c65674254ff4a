import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Each module's surface is its service.ts: another module may import only that file (types
 * included). Platform code imports no module. Tests may reach into modules to arrange state.
 */
const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) ? [p] : [];
  });
}

const importsOf = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"(\.[^"]+)"/g)].map((m) =>
    path.resolve(path.dirname(file), m[1]!),
  );

/** docs/architecture.md's import graph (§1's mermaid lines `a --> b & c`), as "a → b", "a → c". */
function documentedEdges(): string[] {
  const doc = readFileSync(path.join(SRC, "../docs/architecture.md"), "utf8");
  const graph = /```mermaid\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  return graph
    .split("\n")
    .map((line) => /^\s*([\w-]+)\s*-->\s*(.+)$/.exec(line))
    .flatMap((m) => (m ? m[2]!.split("&").map((to) => `${m[1]} → ${to.trim()}`) : []))
    .sort();
}

const moduleOf = (abs: string) => {
  const rel = path.relative(path.join(SRC, "modules"), abs);
  return rel.startsWith("..") || !rel.includes(path.sep) ? null : rel.split(path.sep)[0]!;
};

describe("module surfaces", () => {
  it("a module imports another module only through its service.ts", () => {
    const offending: string[] = [];
    for (const file of sourceFiles(path.join(SRC, "modules"))) {
      const own = moduleOf(file);
      // modules/index.ts is the registry: it imports each module's module.ts.
      if (!own) continue;
      for (const target of importsOf(file)) {
        const other = moduleOf(target);
        if (!other || other === own) continue;
        if (path.relative(path.join(SRC, "modules", other), target) !== "service.js")
          offending.push(`${path.relative(SRC, file)} → ${path.relative(SRC, target)}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("only module.ts and routes files see Fastify: services take their dependencies explicitly", () => {
    const offending = sourceFiles(path.join(SRC, "modules"))
      .filter(
        (file) =>
          !/(^|\/)(module|routes[^/]*|index)\.ts$/.test(path.relative(path.join(SRC, "modules"), file)),
      )
      .filter((file) => /\bFastifyInstance\b/.test(readFileSync(file, "utf8")))
      .map((file) => path.relative(SRC, file));
    expect(offending).toEqual([]);
  });

  it("the caller is one thing on a request: FastifyRequest carries principal, not per-module callers", () => {
    const added = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/interface FastifyRequest \{([^}]*)\}/g)].flatMap((m) =>
        [...m[1]!.matchAll(/^\s*(\w+)\??:/gm)].map((p) => p[1]),
      ),
    );
    expect(added.sort()).toEqual(["principal", "rateLimitKey", "rawBody"]);
  });

  it("the caller is set and keys are told apart in platform/auth alone, never in a module", () => {
    // A module takes its caller from the guard it declares (req.principal is read, never assigned)
    // and judges a key by the principal's keyKind; prefixes are written once, in platform/auth/keys.ts.
    const rules: [string, RegExp][] = [
      ["assigns req.principal", /\.principal\s*=(?!=)/],
      ["tests a key prefix", /startsWith\(\s*["'`](?:svc_|whsec_)/],
      ["writes a key prefix", /["'](?:svc_[a-z]+_|whsec_)["']|`(?:svc_[a-z]+_|whsec_)\$\{/],
    ];
    const offending = sourceFiles(path.join(SRC, "modules")).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return rules.filter(([, re]) => re.test(text)).map(([what]) => `${path.relative(SRC, file)} ${what}`);
    });
    expect(offending).toEqual([]);
  });

  it("the import graph drawn in docs/architecture.md §1 is the modules' imports, edge for edge", () => {
    const edges = new Set<string>();
    for (const file of sourceFiles(path.join(SRC, "modules"))) {
      const own = moduleOf(file);
      // test helpers (*.testing.ts) arrange other modules' state, as tests do
      if (!own || file.endsWith(".testing.ts")) continue;
      for (const target of importsOf(file)) {
        const other = moduleOf(target);
        if (other && other !== own) edges.add(`${own} → ${other}`);
      }
    }
    expect(documentedEdges().length).toBeGreaterThan(0);
    expect([...edges].sort()).toEqual(documentedEdges());
  });

  it("platform code imports no feature module", () => {
    const offending = sourceFiles(path.join(SRC, "platform")).flatMap((file) =>
      importsOf(file)
        .filter((t) => moduleOf(t) !== null)
        .map((t) => `${path.relative(SRC, file)} → ${path.relative(SRC, t)}`),
    );
    expect(offending).toEqual([]);
  });
});
