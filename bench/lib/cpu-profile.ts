/** A V8 CPU profile (`--cpu-prof`) summed by where the time went, per request served. */
import { readFileSync } from "node:fs";
import path from "node:path";

const TOP = Number(process.env.BENCH_TOP ?? 25);
/** BENCH_CATEGORY="Node core" (or any category printed): the top functions of that part alone. */
const ONLY_CATEGORY = process.env.BENCH_CATEGORY;

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** A category for a profile frame: what part of the stack its self time belongs to. */
function categoryOf(url: string, fn: string): string {
  // Native functions without a script: the socket writes (`writev`) and V8's own entries.
  if (!url) return fn.startsWith("(") ? fn : `native ${fn}`;
  if (url.startsWith("node:")) return "Node core";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm)
    return /fastify|find-my-way|avvio|light-my-request|pino|fast-json|secure-json/.test(nm[1]!)
      ? "Fastify and its parts"
      : `package ${nm[1]}`;
  const mod = /src\/modules\/([^/]+)\//.exec(url);
  if (mod) return `Lift ${mod[1]}`;
  if (url.includes("/src/")) return "Lift platform/app";
  return `other ${path.basename(url)}`;
}

/**
 * Prints µs per request (or per `unit`) by category and the top functions, over the profile's last
 * `seconds` (the measured load: start-up and warm-up come before it).
 */
export function summarize(profileFile: string, requests: number, seconds: number, unit = "request"): void {
  const p = JSON.parse(readFileSync(profileFile, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const perCategory = new Map<string, number>();
  const perFunction = new Map<string, number>();
  let total = 0;
  // Only the measured load: the profile's last `SECONDS` (start-up and warm-up come before it;
  // after it, the stop is a few idle milliseconds).
  const span = p.timeDeltas.reduce((a, b) => a + b, 0);
  let at = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (at < span - seconds * 1e6) return;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const cat = categoryOf(url, functionName);
    perCategory.set(cat, (perCategory.get(cat) ?? 0) + dt);
    total += dt;
    const where = url.replace(/^file:\/\/.*?\/(src|node_modules|bench)\//, "$1/");
    const key = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
    if (ONLY_CATEGORY && cat !== ONLY_CATEGORY) return;
    perFunction.set(key, (perFunction.get(key) ?? 0) + dt);
  });
  const busy = total - (perCategory.get("(idle)") ?? 0);
  const line = ([k, v]: [string, number]) =>
    `  ${(v / requests).toFixed(2).padStart(7)} µs/${unit}  ${((100 * v) / busy).toFixed(1).padStart(5)}% of busy  ${k}`;
  console.log(
    `  busy ${(busy / requests).toFixed(2)} µs per ${unit} (${requests.toLocaleString("en")} ${unit}s)`,
  );
  for (const e of [...perCategory].sort((a, b) => b[1] - a[1])) if (e[0] !== "(idle)") console.log(line(e));
  console.log("  top functions:");
  for (const e of [...perFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(line(e));
}
