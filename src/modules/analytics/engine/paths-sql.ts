import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { type Condition, hasLevel } from "../filters/filter.js";
import { linksCte, personConditions } from "./people.js";
import type { Range } from "./selection.js";
import {
  type EngineQuery,
  allOf,
  eventConditions,
  globToRegex,
  personKeySql,
  sessionConditions,
} from "./sql.js";

/**
 * A URL's path in the engine's SQL, exactly as `pathOf` (paths.ts) reads it: after the first
 * `://`, from the first `/` that follows ("/" when none); without a scheme, from the start; up to
 * the first `?` or `#` from there on; "/" when empty. RE2 patterns (linear time): `regexp_extract`
 * is DuckDB's name, ClickHouse's `extract` takes the same patterns.
 */
export const pathSql = (url: string): string =>
  `coalesce(nullif(case when strpos(${url}, '://') > 0
    then regexp_extract(${url}, '://[^/]*(/[^?#]*)', 1)
    else regexp_extract(${url}, '^[^?#]*') end, ''), '/')`;

export interface PathsSqlQuery {
  start: { event: string; page?: string };
  /** the start's node name: the page pattern, or the event type */
  label: string;
  direction: "after" | "before";
  steps: number;
  limit: number;
  /** links per step keep this many nodes, the rest fold into `other` */
  nodesPerStep: number;
  other: string;
}

/**
 * Paths in one query (paths.ts has the rules). Per session, its events in time order (receipt,
 * then id, break ties), each a node; the session's first start event splits them; the same node
 * twice in a row counts once (`lag`); steps are numbered from the start outwards. The answer is
 * one row of small lists: the number of sessions with a start, how many reached each length, the
 * most common paths (ties at the cut included), each step's most common nodes (ties at the cut
 * included) and the links between steps with every other node folded into `other`: the caller
 * breaks the ties as the report orders names. DuckDB-only: `list(x order by y)`, struct literals
 * `{…}` (ClickHouse: `groupArray` over a sorted subquery, tuples), `strpos` (`position`), `lag`
 * (`lagInFrame`), `regexp_full_match` for the start page (`match(path, '^(?:…)$')`, RE2 on both).
 */
export async function pathsSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  p: PathsSqlQuery,
  range: Range,
  conds: Condition[],
): Promise<string> {
  const pid = q.v(project.id);
  const label = q.v(p.label);
  const start = q.v(p.start.event);
  const steps = q.v(p.steps);
  const other = q.v(p.other);
  const persons = hasLevel(conds, "person");
  const session = sessionConditions(q, conds, "s");
  const people = persons
    ? await personConditions(q, deps, project, conds, personKeySql("e.visitor_id"), "l.lead_id")
    : null;
  // Only pageviews (and start events, for their page) need their URL's path.
  const needsPath = p.start.page ? `e.type = 'pageview' or e.type = ${start}` : "e.type = 'pageview'";
  const isStart = p.start.page
    ? `x.type = ${start} and regexp_full_match(x.path, ${q.v(globToRegex(p.start.page))})`
    : `x.type = ${start}`;
  const ev = `ev as (select x.session_id, x.ts, x.received_at, x.id,
      case when x.type = 'pageview' then x.path else x.type end as node, coalesce(${isStart}, false) as is_start
    from (select e.session_id, e.ts, e.received_at, e.id, e.type,
        case when ${needsPath} then ${pathSql("e.url")} end as path
      from events e${persons ? " left join links_p l on l.visitor_id = e.visitor_id" : ""}
      where ${allOf(
        `e.project_id = ${pid} and e.ts >= ${q.v(range.from)} and e.ts < ${q.v(range.to)} and not e.is_bot and e.session_id <> ''`,
        eventConditions(q, conds, "e"),
        session &&
          `e.session_id in (select s.session_id from sessions s where s.project_id = ${pid} and ${session})`,
        people,
      )}) x)`;
  const ordered = `ordered as (select session_id, node, is_start,
    row_number() over (partition by session_id order by ts, received_at, id) as rn from ev)`;
  const starts = `starts as (select session_id, min(rn) as srn from ordered where is_start group by session_id)`;
  // After: the steps since the start, the first compared with the start's own name. Before: the
  // steps until it, nearest first, a nearest one equal to the start's name (a reload into it) dropped.
  const walk =
    p.direction === "after"
      ? `seq as (select o.session_id, o.rn, o.node, lag(o.node, 1, ${label}) over (partition by o.session_id order by o.rn) as prev
          from ordered o join starts s on s.session_id = o.session_id where o.rn > s.srn),
        steps as (select session_id, k, node from (select session_id, node,
          row_number() over (partition by session_id order by rn) as k from seq where node <> prev) t where k <= ${steps})`
      : `seq as (select o.session_id, o.rn, o.node, lag(o.node) over (partition by o.session_id order by o.rn) as prev
          from ordered o join starts s on s.session_id = o.session_id where o.rn < s.srn),
        back as (select session_id, node, row_number() over (partition by session_id order by rn desc) as b
          from seq where prev is null or node <> prev),
        steps as (select session_id, k, node from (select session_id, node,
          b - max(case when b = 1 and node = ${label} then 1 else 0 end) over (partition by session_id) as k
          from back where b <= ${steps}) t where k >= 1)`;
  return `with ${persons ? `${linksCte(q, project)}, ` : ""}${ev}, ${ordered}, ${starts}, ${walk},
    paths as (select session_id, list(node order by k) as nodes, count(*) as len from steps group by session_id),
    cand as (select k, node, count(*) as n, rank() over (partition by k order by count(*) desc) as r
      from steps group by k, node),
    folded as (select st.session_id, st.k, case when c.r <= ${q.v(p.nodesPerStep)} then st.node else ${other} end as name
      from steps st join cand c on c.k = st.k and c.node = st.node),
    pairs as (select t.k, coalesce(f.name, ${label}) as src, t.name as dst, count(*) as n
      from folded t left join folded f on f.session_id = t.session_id and f.k = t.k - 1 group by 1, 2, 3)
    select
      (select count(*) from starts) as sessions,
      (select list({len: len, n: n}) from (select len, count(*) as n from paths group by len) t) as lengths,
      (select list({nodes: nodes, n: n}) from (select nodes, count(*) as n, rank() over (order by count(*) desc) as r
        from paths group by nodes) t where r <= ${q.v(p.limit)}) as top,
      (select list({k: k, node: node, n: n}) from cand where r <= ${q.v(p.nodesPerStep)}) as nodes,
      (select list({k: k, src: src, dst: dst, n: n}) from pairs) as links`;
}
