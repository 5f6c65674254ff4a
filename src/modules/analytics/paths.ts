import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { ReadDeps } from "../../platform/deps.js";
import { compileGlob } from "../../platform/glob.js";
import { validation } from "../../platform/errors.js";
import { eventRowPages } from "../events/service.js";
import type { PathsT } from "./explore-schema.js";
import { type Condition, eventRowWhere } from "./filter.js";
import { resolveFilter } from "./filtered.js";
import type { Period } from "./period.js";
import { DAY_MS } from "./rollup-store.js";

/**
 * Paths (issue 34): within each session, the `steps` events after (or before) the session's first
 * start event. A step is a page (a pageview, by its URL's path) or an event type; the same step
 * repeated in a row (a reload) counts once. Per session only the steps that can still matter are
 * kept (a bounded list), so memory grows with sessions, not events. A session's events are taken
 * in storage order, which is their order in time for one browser's session.
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

interface SessionPath {
  /** after: steps since the start (null until it); before: the last steps, until the start */
  started: boolean;
  nodes: number[];
}

/** Links per step keep this many nodes; the rest are "(other)". */
const NODES_PER_STEP = 8;
const OTHER = "(other)";
const MAX_DAYS = 90;

export async function analyticsPaths(
  deps: ReadDeps,
  project: ProjectRef,
  q: PathsQuery,
  period: Period,
  conds: Condition[],
): Promise<PathsT> {
  const { db } = deps;
  // Paths read every event of the period: bounded like a funnel's window.
  if (period.toDay - period.fromDay + 1 > MAX_DAYS)
    throw validation(`body.from: paths span at most ${MAX_DAYS} days`);
  const f = await resolveFilter(deps, project, conds);
  const page = q.start.page ? compileGlob(q.start.page) : null;
  const labels: string[] = [];
  const ids = new Map<string, number>();
  const idOf = (label: string) => {
    let id = ids.get(label);
    if (id === undefined) {
      id = labels.length;
      labels.push(label);
      ids.set(label, id);
    }
    return id;
  };
  const sessions = new Map<string, SessionPath>();
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  const extra = eventRowWhere(conds, f.postgres);
  const where = sql<boolean>`session_id <> ''${extra ? sql` and ${extra}` : sql``}`;
  type Row = { session_id: string; visitor_id: string; type: string; url: string };
  const startId = idOf(startLabel(q));
  const after = q.direction === "after";
  for await (const rows of eventRowPages<Row>(
    db,
    project,
    range,
    sql`session_id, visitor_id, type, url`,
    where,
  )) {
    for (const r of rows) {
      let s = sessions.get(r.session_id);
      // After: a session matters from its start on; most rows of other sessions stop here.
      if (after && s === undefined && r.type !== q.start.event) continue;
      if (f.people && !f.people.visitor(r.visitor_id)) continue;
      const path = r.type === "pageview" ? pathOf(r.url) : null;
      const isStart = r.type === q.start.event && (!page || page.test(path ?? pathOf(r.url)));
      if (!s) {
        if (after && !isStart) continue;
        s = { started: false, nodes: [] };
        sessions.set(r.session_id, s);
      }
      if (after) {
        if (!s.started) s.started = true;
        else if (s.nodes.length < q.steps) {
          const id = idOf(path ?? r.type);
          const prev = s.nodes.length > 0 ? s.nodes[s.nodes.length - 1] : startId;
          if (id !== prev) s.nodes.push(id);
        }
      } else if (!s.started) {
        if (isStart) s.started = true;
        else {
          const id = idOf(path ?? r.type);
          if (s.nodes[s.nodes.length - 1] !== id) s.nodes.push(id);
          if (s.nodes.length > q.steps) s.nodes.shift();
        }
      }
    }
  }
  const start = startLabel(q);
  const reached: number[][] = [];
  for (const s of sessions.values()) {
    if (!s.started) continue;
    // Before: the nearest step first; a step equal to the start (a reload into it) is dropped.
    let nodes = q.direction === "before" ? [...s.nodes].reverse() : s.nodes;
    if (q.direction === "before" && nodes[0] === ids.get(start)) nodes = nodes.slice(1);
    reached.push(nodes);
  }
  return {
    start,
    direction: q.direction,
    period: { from: period.from, to: period.to },
    sessions: reached.length,
    levels: levels(reached, q.steps),
    paths: topPaths(reached, labels, q.limit),
    links: flow(reached, labels, start, q.steps),
  };
}

const startLabel = (q: PathsQuery) => (q.start.page ? q.start.page : q.start.event);

function levels(reached: number[][], steps: number) {
  const out = [];
  let previous = reached.length;
  for (let k = 1; k <= steps; k++) {
    const n = reached.filter((p) => p.length >= k).length;
    out.push({ step: k, sessions: n, dropOff: previous - n });
    previous = n;
  }
  return out;
}

function topPaths(reached: number[][], labels: string[], limit: number) {
  const counts = new Map<string, { nodes: number[]; sessions: number }>();
  for (const p of reached) {
    if (p.length === 0) continue;
    const key = p.join(",");
    const c = counts.get(key);
    if (c) c.sessions++;
    else counts.set(key, { nodes: p, sessions: 1 });
  }
  return [...counts.values()]
    .map((c) => ({ nodes: c.nodes.map((id) => labels[id]!), sessions: c.sessions }))
    .sort((a, b) => b.sessions - a.sessions || a.nodes.join("\u0000").localeCompare(b.nodes.join("\u0000")))
    .slice(0, limit);
}

/** Per step, the links from the previous step's node to this one's, the 8 most common nodes kept. */
function flow(reached: number[][], labels: string[], start: string, steps: number) {
  const links: PathsT["links"] = [];
  let keep = (p: number[], k: number): string => (k === 0 ? start : labels[p[k - 1]!]!);
  for (let k = 1; k <= steps; k++) {
    const counts = new Map<number, number>();
    for (const p of reached) if (p.length >= k) counts.set(p[k - 1]!, (counts.get(p[k - 1]!) ?? 0) + 1);
    const top = new Set(
      [...counts]
        .sort((a, b) => b[1] - a[1] || labels[a[0]]!.localeCompare(labels[b[0]]!))
        .slice(0, NODES_PER_STEP)
        .map(([id]) => id),
    );
    const prevName = keep;
    const name = (p: number[], j: number): string =>
      j === k ? (top.has(p[k - 1]!) ? labels[p[k - 1]!]! : OTHER) : prevName(p, j);
    const pairs = new Map<string, { from: string; to: string; sessions: number }>();
    for (const p of reached) {
      if (p.length < k) continue;
      const from = name(p, k - 1);
      const to = name(p, k);
      const key = `${from}\u0000${to}`;
      const c = pairs.get(key);
      if (c) c.sessions++;
      else pairs.set(key, { from, to, sessions: 1 });
    }
    for (const c of [...pairs.values()].sort(
      (a, b) => b.sessions - a.sessions || a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
    ))
      links.push({ step: k, ...c });
    keep = name;
  }
  return links;
}
