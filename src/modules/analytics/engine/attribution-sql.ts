import { LOOKBACK_MS } from "../ingest/credit-store.js";
import { NONE_KEY } from "../ingest/dimensions.js";
import { type AttributionModel, TIME_DECAY_HALF_LIFE_MS } from "../ingest/models.js";
import type { AttributionBy } from "../schema.js";
import { type EngineQuery, personKeySql } from "./sql.js";
import { VISIT_VALUE } from "./web-sql.js";

/**
 * Attribution by a value of the touch's session, in the engine's SQL (docs/decisions/
 * identity-analytics.md, "Attribution by source, medium and campaign"): each conversion of `conv`
 * (the selection's, engine/selection.ts) split over the touches the credit store credits it over
 * (ingest/credit-store.ts: the person's sessions started in the lookback up to the conversion)
 * with the model's weights (ingest/models.ts), windows over each conversion's touches. Plain SQL
 * and windows, as ClickHouse has them; `arg_min(x, (a, b))` is ClickHouse's `argMin(x, (a, b))`.
 */

/**
 * One touch's share of its conversion, from `n` (its conversion's touches), `i` (its rank by start,
 * ties by session id) and `d`/`dsum` (its time-decay weight, their sum); a conversion without touches
 * is one row with n = i = 1 and takes the whole credit under every model.
 */
const CREDIT: Record<AttributionModel, string> = {
  first_touch: "case when i = 1 then 1.0 else 0.0 end",
  last_touch: "case when i = n then 1.0 else 0.0 end",
  linear: "1.0 / n",
  // 40/20/40; one touch 100%, two 50/50.
  position_based:
    "case when n = 1 then 1.0 when n = 2 then 0.5 when i = 1 or i = n then 0.4 else 0.2 / (n - 2) end",
  time_decay: "d / dsum",
};

/**
 * The query's tail after the selection's `with …` (which gives `links_p` and `conv`): rows
 * `(value, credited, revenue)`. A conversion with no touch in its lookback goes whole to its
 * recorded channel, as the credit store does, and for the other keys to the values of its person's
 * first session if that started before it (the session the recorded channel came from), else `(none)`.
 */
export function attributionSql(
  q: EngineQuery,
  projectId: string,
  to: number,
  model: AttributionModel,
  by: AttributionBy,
): string {
  const p = q.v(projectId);
  const person = personKeySql("s.visitor_id");
  // Every session of the converting people up to the range's end: the touches, and the first one.
  const psess = `psess as (select ${person} as person, s.session_id, s.ts, s.channel, s.source, s.campaign
    from sessions s left join links_p l on l.visitor_id = s.visitor_id
    where s.project_id = ${p} and s.ts < ${q.v(to)} and ${person} in (select distinct person from conv))`;
  const first = (col: string) => `arg_min(${col}, (ts, session_id)) as ${col}`;
  const ft = `ft as (select person, min(ts) as ts, ${first("session_id")}, ${first("source")}, ${first("campaign")}
    from psess group by person)`;
  const fallback = (col: string) =>
    `case when ps.session_id is not null then ps.${col} when ft.ts <= c.ts then ft.${col} end`;
  // The lookback is inclusive at both ends, as the credit store's.
  const touch = `touch as (select c.event_id, c.ts as cts, c.counted, c.revenue, coalesce(ps.channel, c.channel) as channel,
      ps.session_id, ps.ts, ${fallback("session_id")} as value_session, ${fallback("ts")} as value_ts,
      ${fallback("source")} as source, ${fallback("campaign")} as campaign
    from conv c left join psess ps on ps.person = c.person and ps.ts <= c.ts and ps.ts >= c.ts - ${LOOKBACK_MS}
    left join ft on ft.person = c.person)`;
  const decay = `pow(0.5, (cts - coalesce(ts, cts)) / ${TIME_DECAY_HALF_LIFE_MS}.0)`;
  const ranked = `ranked as (select t.*, count(*) over (partition by event_id) as n,
      row_number() over (partition by event_id order by ts, session_id) as i,
      ${decay} as d, sum(${decay}) over (partition by event_id) as dsum
    from touch t)`;
  const credited = `credited as (select r.*, ${CREDIT[model]} as credit from ranked r)`;
  const ctes = [psess, ft, touch, ranked, credited];
  let value: string;
  let from = "credited w";
  if (by === "medium") {
    // The landing URL of the touch's session as the web view reads it: its first web event's URL.
    ctes.push(`land as (select e.session_id, arg_min(e.url, e.ts) as landing_url from events e
      where e.project_id = ${p} and not e.is_bot and not e.is_server
        and e.ts >= (select min(value_ts) from touch) and e.ts < ${q.v(to)}
        and e.session_id in (select value_session from touch)
      group by e.session_id)`);
    from += " left join land v on v.session_id = w.value_session";
    value = VISIT_VALUE.utm_medium;
  } else value = `w.${by}`;
  return `, ${ctes.join(",\n  ")}
  select coalesce(${value}, ${q.v(NONE_KEY)}) as value, sum(w.credit * w.counted) as credited,
    sum(w.credit * w.revenue) as revenue
  from ${from} group by 1`;
}
