import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { validation } from "../../../platform/errors.js";
import { pathsSql } from "../engine/paths-sql.js";
import { EngineQuery } from "../engine/sql.js";
import type { PathsT } from "./explore-schema.js";
import type { Condition } from "../filters/filter.js";
import type { Period } from "./period.js";
import { DAY_MS } from "../ingest/rollup-store.js";

/**
 * Paths: within each session, the `steps` events after (or before) the session's first
 * start event. A step is a page (a pageview, by its URL's path) or an event type; the same step
 * repeated in a row (a reload) counts once. A session's events are taken in the order of their
 * times. One query on the analytics engine (engine/paths-sql.ts) counts the paths, each step's
 * nodes and the links between them; here only ties are broken and names folded, on a few rows.
 */

export interface PathsQuery {
  start: { event: string; page?: string };
  direction: "after" | "before";
  steps: number;
  limit: number;
}

/** A URL's path: what follows the host, up to the query or fragment ("/" when empty). */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  let from = 0;
  if (scheme >= 0) {
    const slash = url.indexOf("/", scheme + 3);
    if (slash < 0) return "/";
    from = slash;
  }
  let end = url.length;
  for (const c of ["?", "#"]) {
    const at = url.indexOf(c, from);
    if (at >= 0 && at < end) end = at;
  }
  return url.slice(from, end) || "/";
}

/** Links per step keep this many nodes; the rest are "(other)". */
const NODES_PER_STEP = 8;
const OTHER = "(other)";
const MAX_DAYS = 90;

interface PathsRow {
  sessions: number;
  lengths: { len: number; n: number }[] | null;
  top: { nodes: string[]; n: number }[] | null;
  nodes: { k: number; node: string; n: number }[] | null;
  links: { k: number; src: string; dst: string; n: number }[] | null;
}

export async function analyticsPaths(
  deps: ReadDeps,
  project: ProjectRef,
  q: PathsQuery,
  period: Period,
  conds: Condition[],
): Promise<PathsT> {
  // Paths read every event of the period: bounded like a funnel's window.
  if (period.toDay - period.fromDay + 1 > MAX_DAYS)
    throw validation(`body.from: paths span at most ${MAX_DAYS} days`);
  const start = q.start.page ? q.start.page : q.start.event;
  const eq = new EngineQuery();
  const text = await pathsSql(
    eq,
    deps,
    project,
    { ...q, label: start, nodesPerStep: NODES_PER_STEP, other: OTHER },
    { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS },
    conds,
  );
  const [row] = await deps.engine.query<PathsRow>(...eq.bound(text));
  const sessions = Number(row!.sessions);
  return {
    start,
    direction: q.direction,
    period: { from: period.from, to: period.to },
    sessions,
    levels: levels(sessions, row!.lengths ?? [], q.steps),
    paths: topPaths(row!.top ?? [], q.limit),
    links: flow(row!.nodes ?? [], row!.links ?? [], q.steps),
  };
}

/** Per step, the sessions that reached it and those that ended one step nearer the start. */
function levels(sessions: number, lengths: PathsRow["lengths"] & {}, steps: number) {
  const out = [];
  let previous = sessions;
  for (let k = 1; k <= steps; k++) {
    const n = lengths.reduce((sum, l) => sum + (Number(l.len) >= k ? Number(l.n) : 0), 0);
    out.push({ step: k, sessions: n, dropOff: previous - n });
    previous = n;
  }
  return out;
}

const pathKey = (nodes: string[]) => nodes.join("\u0000");

function topPaths(top: PathsRow["top"] & {}, limit: number) {
  return top
    .map((p) => ({ nodes: [...p.nodes], sessions: Number(p.n) }))
    .sort((a, b) => b.sessions - a.sessions || pathKey(a.nodes).localeCompare(pathKey(b.nodes)))
    .slice(0, limit);
}

/**
 * Per step, the links from the previous step's node to this one's, the 8 most common nodes kept
 * (ties broken by name) and the rest "(other)". The query folded every node past the ties already.
 */
function flow(nodes: PathsRow["nodes"] & {}, links: PathsRow["links"] & {}, steps: number) {
  const kept = new Map<number, Set<string>>();
  for (let k = 1; k <= steps; k++)
    kept.set(
      k,
      new Set(
        nodes
          .filter((c) => Number(c.k) === k)
          .map((c) => ({ node: c.node, n: Number(c.n) }))
          .sort((a, b) => b.n - a.n || a.node.localeCompare(b.node))
          .slice(0, NODES_PER_STEP)
          .map((c) => c.node),
      ),
    );
  // Step 0 is the start itself, never folded.
  const name = (k: number, node: string) => (k === 0 || kept.get(k)!.has(node) ? node : OTHER);
  const out: PathsT["links"] = [];
  for (let k = 1; k <= steps; k++) {
    const pairs = new Map<string, { from: string; to: string; sessions: number }>();
    for (const l of links) {
      if (Number(l.k) !== k) continue;
      const from = name(k - 1, l.src);
      const to = name(k, l.dst);
      const key = `${from}\u0000${to}`;
      const c = pairs.get(key);
      if (c) c.sessions += Number(l.n);
      else pairs.set(key, { from, to, sessions: Number(l.n) });
    }
    for (const c of [...pairs.values()].sort(
      (a, b) => b.sessions - a.sessions || a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
    ))
      out.push({ step: k, ...c });
  }
  return out;
}
