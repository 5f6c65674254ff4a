import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { validation } from "../../../platform/errors.js";
import { latestEvents } from "../../event-store/service.js";
import { latestLeadProperties } from "../../identity/service.js";
import { listCohorts } from "../cohorts/cohorts.js";
import { LANDING_TAG_KEYS, SESSION_KEYS } from "../filters/filter.js";
import { ALL_CHANNELS, dayOf } from "../ingest/rollup-store.js";
import { weekOf } from "../ingest/sketches.js";

/**
 * Pickers: event names, property keys and values as the data holds them, for
 * autocomplete. Names and session values come from the breakdown rollups (exact, every event
 * type and session value of the last 13 weeks, a few rows per key). Properties and pages come from
 * a bounded sample: the newest 5000 events (or 2000 leads) — no index is kept at ingest.
 */

export interface PickerItem {
  value: string;
  label?: string;
  count: number;
}
export interface PickerAnswer {
  items: PickerItem[];
  sampled: boolean;
}

const SAMPLE_EVENTS = 5000;
const SAMPLE_LEADS = 2000;
const WEEKS = 13;
const MAX_VALUE = 200;

const startsWith = (prefix: string | undefined) => {
  const p = prefix?.toLowerCase() ?? "";
  return (s: string) => s.toLowerCase().startsWith(p);
};

function top(
  counts: Map<string, number>,
  prefix: string | undefined,
  limit: number,
  label?: (v: string) => string,
) {
  const ok = startsWith(prefix);
  return [...counts]
    .filter(([v]) => ok(v))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, limit)
    .map(([value, count]) => (label ? { value, label: label(value), count } : { value, count }));
}

/** Keys of a dimension in the breakdown rollups of the last WEEKS weeks, by weeks seen. */
async function rollupKeys(db: DbOrTrx, project: ProjectRef, dimension: string): Promise<Map<string, number>> {
  const week = weekOf(dayOf(Date.now()));
  const counts = new Map<string, number>();
  if (dimension === "channel") {
    const rows = await db
      .selectFrom("analytics_weekly")
      .select("channel as key")
      .where("project_id", "=", project.id)
      .where("week", ">", week - WEEKS)
      .execute();
    for (const r of rows) if (r.key !== ALL_CHANNELS) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
    return counts;
  }
  const rows = await db
    .selectFrom("analytics_breakdown_weekly")
    .select("key")
    .where("project_id", "=", project.id)
    .where("dimension", "=", dimension)
    .where("week", ">", week - WEEKS)
    .execute();
  for (const r of rows) counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
  return counts;
}

export async function eventNames(
  db: DbOrTrx,
  project: ProjectRef,
  prefix: string | undefined,
  limit: number,
) {
  return { items: top(await rollupKeys(db, project, "event_type"), prefix, limit), sampled: false };
}

/** Data keys of the newest events (of one type), or property keys of the newest leads. */
export async function propertyKeys(
  deps: ReadDeps,
  project: ProjectRef,
  q: { scope?: "event" | "lead"; event?: string; prefix?: string; limit?: number },
): Promise<PickerAnswer> {
  const counts = new Map<string, number>();
  for (const json of await sample(deps, project, q.scope ?? "event", q.event))
    for (const k of Object.keys(parse(json)))
      if (!k.includes('"') && !k.includes("\\")) counts.set(k, (counts.get(k) ?? 0) + 1);
  return { items: top(counts, q.prefix, q.limit ?? 20), sampled: true };
}

async function sample(
  deps: ReadDeps,
  project: ProjectRef,
  scope: "event" | "lead",
  type?: string,
): Promise<string[]> {
  if (scope === "lead") return latestLeadProperties(deps.db, project, SAMPLE_LEADS);
  return (await latestEvents(deps.db, project, { type, limit: SAMPLE_EVENTS })).map((e) => e.data);
}

function parse(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const scalar = (v: unknown): string | null =>
  typeof v === "string"
    ? v.slice(0, MAX_VALUE)
    : typeof v === "number" || typeof v === "boolean"
      ? String(v)
      : null;

/** The most common values of a filter key. */
export async function keyValues(
  deps: ReadDeps,
  project: ProjectRef,
  q: { key: string; prefix?: string; limit?: number },
): Promise<PickerAnswer> {
  const { db } = deps;
  const limit = q.limit ?? 20;
  const { key } = q;
  if ((SESSION_KEYS as readonly string[]).includes(key) || key === "utm_campaign") {
    const column = key === "utm_campaign" ? "campaign" : key;
    return { items: top(await rollupKeys(db, project, column), q.prefix, limit), sampled: false };
  }
  if (key === "event") return eventNames(db, project, q.prefix, limit);
  if (key === "cohort") {
    const cohorts = await listCohorts(db, project);
    const names = new Map(cohorts.map((c) => [c.id, c.name]));
    const ok = startsWith(q.prefix);
    return {
      items: cohorts
        .filter((c) => ok(c.name) || ok(c.id))
        .slice(0, limit)
        .map((c) => ({ value: c.id, label: names.get(c.id), count: 1 })),
      sampled: false,
    };
  }
  const counts = new Map<string, number>();
  const add = (v: string | null) => {
    if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  };
  if (key === "page" || key === "page_no_query") {
    // The page filter compares whole URLs (as funnel steps and goals do): values without the query.
    for (const e of await latestEvents(db, project, { type: "pageview", limit: SAMPLE_EVENTS }))
      add(e.url.split(/[?#]/, 1)[0]!.slice(0, MAX_VALUE));
    return { items: top(counts, q.prefix, limit), sampled: true };
  }
  if ((LANDING_TAG_KEYS as readonly string[]).includes(key)) {
    // The tag as the filter reads it: decoded, trimmed; a campaign's visits carry it on their pages.
    for (const e of await latestEvents(db, project, { type: "pageview", limit: SAMPLE_EVENTS })) {
      const query = e.url.split("#", 1)[0]!.split("?")[1];
      const tag = query ? new URLSearchParams(query).get(key)?.trim() : undefined;
      if (tag) add(tag.slice(0, MAX_VALUE));
    }
    return { items: top(counts, q.prefix, limit), sampled: true };
  }
  let scope: "event" | "lead";
  let name: string;
  if (key === "country") [scope, name] = ["event", "$country"];
  else if (key.startsWith("event.")) [scope, name] = ["event", key.slice(6)];
  else if (key.startsWith("lead.")) [scope, name] = ["lead", key.slice(5)];
  else
    throw validation(
      "query.key must be a filter key (channel … os, utm_source … utm_content, country, page, page_no_query, event, cohort, event.<property>, lead.<property>)",
    );
  for (const json of await sample(deps, project, scope)) add(scalar(parse(json)[name]));
  return { items: top(counts, q.prefix, limit), sampled: true };
}
