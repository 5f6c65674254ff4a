/**
 * Which files a reader opens to follow one endpoint: from the route's registration, every
 * function, method and constant its handler refers to, and what those refer to in turn, by the
 * type checker's own resolution (not by file imports, which would count every other route of
 * the same file). Types are not followed: they hold no rule. A call through an interface stops at
 * the interface (the event store's implementations, one per database), and subscribers reached
 * through the event bus are their own walk.
 *
 *   npx tsx tools/endpoint-files.ts "PATCH /api/experiments" [...]
 *
 * prints, per endpoint, the core files (in the route's module) and the total (every file of
 * src/ reached). docs/architecture.md §5 states these counts, as of the day it names.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript5";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = path.join(ROOT, "src");

export interface EndpointFiles {
  endpoint: string;
  module: string;
  core: string[];
  total: string[];
}

function program(): ts.Program {
  const configPath = path.join(ROOT, "tsconfig.build.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, { noEmit: true }, configPath);
  return ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

/** The `app.<method>(path, …)` or `app.route({ method, url, … })` call registering the endpoint. */
function findRoute(p: ts.Program, method: string, url: string): ts.Node | null {
  let found: ts.Node | null = null;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const name = n.expression.name.text;
      const first = n.arguments[0];
      if (
        METHODS.has(name) &&
        name === method.toLowerCase() &&
        first &&
        ts.isStringLiteralLike(first) &&
        first.text === url
      ) {
        found = n;
        return;
      }
      if (name === "route" && first && ts.isObjectLiteralExpression(first)) {
        const prop = (key: string) =>
          first.properties.find(
            (pr): pr is ts.PropertyAssignment =>
              ts.isPropertyAssignment(pr) && ts.isIdentifier(pr.name) && pr.name.text === key,
          )?.initializer;
        const m = prop("method");
        const u = prop("url");
        if (
          m &&
          u &&
          ts.isStringLiteralLike(u) &&
          u.text === url &&
          m.getText().includes(method.toUpperCase())
        ) {
          found = n;
          return;
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  for (const sf of p.getSourceFiles()) {
    if (!sf.fileName.startsWith(path.join(SRC, "modules")) || !/routes[^/]*\.ts$/.test(sf.fileName)) continue;
    visit(sf);
    if (found) return found;
  }
  return null;
}

/** The code a declaration runs when referred to: a function's body, a constant's initializer. */
function bodyOf(d: ts.Declaration): ts.Node | null {
  if (
    ts.isFunctionDeclaration(d) ||
    ts.isMethodDeclaration(d) ||
    ts.isConstructorDeclaration(d) ||
    ts.isGetAccessorDeclaration(d) ||
    ts.isArrowFunction(d) ||
    ts.isFunctionExpression(d)
  )
    return d.body ?? null;
  if (ts.isVariableDeclaration(d) || ts.isPropertyDeclaration(d)) return d.initializer ?? null;
  if (ts.isClassDeclaration(d)) return d;
  return null;
}

export function endpointFiles(endpoints: string[]): EndpointFiles[] {
  const p = program();
  const checker = p.getTypeChecker();
  return endpoints.map((endpoint) => {
    const [method, url] = endpoint.split(" ") as [string, string];
    const route = findRoute(p, method, url);
    if (!route) throw new Error(`no route registers ${endpoint}`);
    const files = new Set<string>([route.getSourceFile().fileName]);
    const seen = new Set<ts.Node>();
    const walk = (n: ts.Node): void => {
      if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return;
      if (ts.isIdentifier(n)) {
        let symbol = checker.getSymbolAtLocation(n);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        for (const d of symbol?.declarations ?? []) {
          const file = d.getSourceFile().fileName;
          if (!file.startsWith(SRC) || seen.has(d)) continue;
          seen.add(d);
          const body = bodyOf(d);
          if (!body) continue;
          files.add(file);
          walk(body);
        }
      }
      ts.forEachChild(n, walk);
    };
    walk(route);
    const rel = [...files].map((f) => path.relative(SRC, f)).sort();
    const module = path.relative(SRC, route.getSourceFile().fileName).split(path.sep)[1]!;
    return {
      endpoint,
      module,
      core: rel.filter((f) => f.startsWith(`modules/${module}/`)),
      total: rel,
    };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const asked = process.argv.slice(2);
  for (const r of endpointFiles(asked)) {
    console.log(
      `${r.endpoint}: ${r.core.length} core files (modules/${r.module}/), ${r.total.length} in all`,
    );
    for (const f of r.total) console.log(`  ${r.core.includes(f) ? "*" : " "} ${f}`);
  }
}
