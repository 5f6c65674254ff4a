import { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { ServiceDeps } from "../../platform/deps.js";
import {
  AnalyticsSummary,
  Annotation,
  Breakdown,
  BreakdownQuery,
  CreateAnnotationBody,
  Funnel,
  FunnelBody,
  Retention,
  RetentionQuery,
  SummaryQuery,
  Timeseries,
  TimeseriesQuery,
  breakdownTask,
  createAnnotation,
  funnelTask,
  parseFilter,
  parseFilterParam,
  resolvePeriod,
  retentionTask,
  summaryTask,
  Trends,
  TrendsBody,
  planTrends,
  timeseriesTask,
  trendsTask,
} from "../analytics/service.js";
import {
  Experiment,
  IdParam,
  ListExperimentsQuery,
  getExperiment,
  listExperiments,
} from "../experiments/service.js";
import { Evaluation, Flag, ListFlagsQuery, evaluateFlag, listFlags, updateFlag } from "../flags/service.js";
import { LeadParams, LeadProfile, getLeadProfile } from "../identity/service.js";
import { EvaluateFlagArgs, SetFlagEnabledArgs } from "./schema.js";

/**
 * The MCP endpoint's tools: each is an HTTP route's question, with that route's TypeBox schema as
 * its input schema and the same service call or read task behind it, so an agent gets what the
 * API answers (reports run on the read pool, off the request thread, as the routes run them).
 */

/** Who calls a tool: the project its secret key belongs to, and the key (the author of a change). */
export interface ToolContext {
  deps: ServiceDeps;
  project: ProjectRef;
  keyId: string;
  /** The answer as JSON text, written by the HTTP route's serializer for `schema` (same fields). */
  serialize(schema: TSchema, answer: unknown): string;
}

export interface Tool<S extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** The route's 200 response schema: the answer is serialized by it, as the route's is. */
  output: TSchema;
  /** Changes the project: listed and callable only for a caller that may write. */
  writes: boolean;
  run(ctx: ToolContext, args: Static<S>): Promise<unknown>;
  /** One line for a person reading the agent's transcript; the JSON answer follows it. */
  summarize?(answer: never): string;
}

const tool = <S extends TObject>(t: Tool<S>): Tool => t as unknown as Tool;

/** Names the fields of an argument error as a route names its query's (`arguments.from`). */
const WHERE = "arguments";
const periodOf = (args: { period?: string; from?: string; to?: string }) =>
  resolvePeriod(args, Date.now(), WHERE);
const range = (p: { from: string; to: string }) => `${p.from} to ${p.to}`;

export const TOOLS: Tool[] = [
  tool({
    name: "analytics_summary",
    title: "Analytics summary",
    description:
      "Visitors, leads, conversions, conversion rate, revenue and top channels for a period (GET /api/analytics/summary). period: 7d (today and the 6 days before, UTC), 30d (default), 90d, or custom with from/to.",
    input: SummaryQuery,
    output: AnalyticsSummary,
    writes: false,
    run: ({ deps, project }, q) =>
      deps.reads.run(summaryTask, project, {
        period: periodOf(q),
        conds: parseFilterParam(q.filter, `${WHERE}.filter`),
        goal: q.goal,
      }),
    summarize: (s: { visitors: number; conversions: number; conversionRate: number }) =>
      `${s.visitors} visitors, ${s.conversions} conversions, conversion rate ${s.conversionRate}.`,
  }),
  tool({
    name: "analytics_breakdown",
    title: "Analytics breakdown",
    description:
      "Visitors, conversions, conversion rate (first touch) and revenue per value of a dimension such as channel, source, campaign, landing_page, device (GET /api/analytics/breakdown).",
    input: BreakdownQuery,
    output: Breakdown,
    writes: false,
    run: ({ deps, project }, q) =>
      deps.reads.run(breakdownTask, project, {
        by: q.by,
        period: periodOf(q),
        limit: q.limit ?? 10,
        conds: parseFilterParam(q.filter, `${WHERE}.filter`),
        goal: q.goal,
      }),
    summarize: (b: { by: string; rows: unknown[]; period: { from: string; to: string } }) =>
      `${b.rows.length} ${b.by} rows, ${range(b.period)}.`,
  }),
  tool({
    name: "analytics_timeseries",
    title: "Analytics time series",
    description:
      "Visitors, leads, conversions and revenue per day or week, zero-filled (GET /api/analytics/timeseries).",
    input: TimeseriesQuery,
    output: Timeseries,
    writes: false,
    run: ({ deps, project }, q) =>
      deps.reads.run(timeseriesTask, project, {
        period: periodOf(q),
        interval: q.interval ?? "day",
        conds: parseFilterParam(q.filter, `${WHERE}.filter`),
        goal: q.goal,
      }),
  }),
  tool({
    name: "analytics_funnel",
    title: "Funnel",
    description:
      "How many people went through 2–10 steps in order within a window from their first step (POST /api/analytics/funnel).",
    input: FunnelBody,
    output: Funnel,
    writes: false,
    run: ({ deps, project }, { steps, windowDays, period, from, to, breakdownBy, filter }) =>
      deps.reads.run(funnelTask, project, {
        steps,
        windowDays: windowDays ?? 14,
        period: periodOf({ period, from, to }),
        breakdownBy,
        conds: parseFilter(filter, `${WHERE}.filter`),
      }),
  }),
  tool({
    name: "analytics_retention",
    title: "Retention",
    description:
      "Cohorts by a person's first start event, and how many came back in each later interval (GET /api/analytics/retention).",
    input: RetentionQuery,
    output: Retention,
    writes: false,
    run: ({ deps, project }, q) =>
      deps.reads.run(retentionTask, project, {
        period: periodOf(q),
        interval: q.interval ?? "week",
        startEvent: q.startEvent ?? "pageview",
        returnEvent: q.returnEvent ?? null,
        conds: parseFilterParam(q.filter, `${WHERE}.filter`),
      }),
  }),
  tool({
    name: "analytics_trends",
    title: "Trends",
    description:
      "Series of events over time: total, unique people, DAU/WAU/MAU, sum/avg/min/max/median/p90 of a numeric property; interval hour/day/week/month; breakdown by a property; formulas over series (A / B * 100); the previous period (POST /api/analytics/trends).",
    input: TrendsBody,
    output: Trends,
    writes: false,
    run: ({ deps, project }, body) => deps.reads.run(trendsTask, project, planTrends(body)),
  }),
  tool({
    name: "list_experiments",
    title: "List experiments",
    description: "The project's experiments, newest first, optionally of one status (GET /api/experiments).",
    input: ListExperimentsQuery,
    output: Type.Array(Experiment),
    writes: false,
    run: ({ deps, project }, q) => listExperiments(deps.db, project, q.status),
    summarize: (list: unknown[]) => `${list.length} experiments.`,
  }),
  tool({
    name: "get_experiment",
    title: "Experiment results",
    description:
      "One experiment with its variants' results and the verdict in plain words (`results.verdict`) (GET /api/experiments/:id).",
    input: IdParam,
    output: Experiment,
    writes: false,
    run: ({ deps, project }, { id }) => getExperiment(deps.db, project, id),
    summarize: (e: { name: string; results?: { verdict?: { text?: string } } }) =>
      `${e.name}: ${e.results?.verdict?.text ?? "no verdict"}`,
  }),
  tool({
    name: "list_flags",
    title: "List feature flags",
    description: "The project's feature flags, newest first (GET /api/flags).",
    input: ListFlagsQuery,
    output: Type.Array(Flag),
    writes: false,
    run: (ctx, q) => listFlags(ctx.deps, ctx.project, q),
    summarize: (list: unknown[]) => `${list.length} flags.`,
  }),
  tool({
    name: "evaluate_flag",
    title: "Evaluate a feature flag",
    description:
      "What an SDK with these attributes gets for the flag, and which rule decided (POST /api/flags/:key/evaluate).",
    input: EvaluateFlagArgs,
    output: Evaluation,
    writes: false,
    run: (ctx, { key, attributes }) => evaluateFlag(ctx.deps, ctx.project, key, attributes),
    summarize: (e: { value: unknown; source: string }) =>
      `value ${JSON.stringify(e.value)} (from ${e.source}).`,
  }),
  tool({
    name: "get_lead",
    title: "Look up a lead",
    description:
      "A lead's profile by its id: email, name, properties, first-touch attribution (GET /api/leads/:id).",
    input: LeadParams,
    output: LeadProfile,
    writes: false,
    run: ({ deps, project }, { id }) => getLeadProfile(deps, project, id),
  }),
  tool({
    name: "create_annotation",
    title: "Create an annotation",
    description:
      "Note what happened on a day (or over days), shown on every time chart (POST /api/annotations).",
    input: CreateAnnotationBody,
    output: Annotation,
    writes: true,
    run: ({ deps, project, keyId }, body) =>
      createAnnotation(deps.db, project, { kind: "apiKey", id: keyId }, body),
    summarize: (a: { id: string; date: string }) => `Annotation ${a.id} created on ${a.date}.`,
  }),
  tool({
    name: "set_flag_enabled",
    title: "Switch a feature flag on or off",
    description:
      "enabled: false is the kill switch (everyone gets the default value); true switches the flag back on (PATCH /api/flags/:key).",
    input: SetFlagEnabledArgs,
    output: Flag,
    writes: true,
    run: (ctx, { key, enabled }) =>
      updateFlag(ctx.deps, ctx.project, key, { enabled }, { type: "apiKey", id: ctx.keyId }),
    summarize: (f: { key: string; enabled: boolean }) => `Flag ${f.key} is now ${f.enabled ? "on" : "off"}.`,
  }),
];

/** The tools that change the project, by name (the endpoint counts their calls as writes). */
export const WRITE_TOOL_NAMES: ReadonlySet<string> = new Set(
  TOOLS.filter((t) => t.writes).map((t) => t.name),
);

/** The tools a caller sees: the read tools, and the write tools when it may write. */
export const toolsFor = (mayWrite: boolean): Tool[] => TOOLS.filter((t) => mayWrite || !t.writes);
