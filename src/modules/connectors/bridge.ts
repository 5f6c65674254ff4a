import type { FastifyInstance } from "fastify";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Db, DbOrTrx } from "../../platform/db/index.js";

/**
 * The other modules' functions connectors call (contracts in docs/helper-brief.md). They are
 * loaded lazily so connectors keep working while a module is absent: revenue stays queued
 * (`connector_revenue.ingested = 0`) and is forwarded by a later sync once the events module exists.
 */
export type IngestServerEvents = (
  app: FastifyInstance,
  project: ProjectRef,
  events: Array<{
    type: string;
    visitorId?: string;
    leadId?: string;
    url?: string;
    data?: Record<string, unknown>;
    timestamp?: number;
  }>,
) => Promise<number>;
export type UpsertLeadByEmail = (
  db: Db,
  project: ProjectRef,
  lead: { email: string; name?: string; source: string; properties?: Record<string, unknown> },
) => Promise<{ lead: { id: string }; created: boolean }>;
export type GoalMetricProvider = (
  db: Db,
  project: ProjectRef,
  metric: string,
  range: { from: number; to: number },
) => Promise<number | undefined>;
export type RegisterGoalMetricProvider = (app: FastifyInstance, provider: GoalMetricProvider) => void;
export type ScheduleGoalRecompute = (db: DbOrTrx, project: ProjectRef) => Promise<unknown>;

async function find<T>(candidates: string[], name: string): Promise<T | undefined> {
  for (const file of candidates) {
    try {
      const mod = (await import(file)) as Record<string, unknown>;
      if (typeof mod[name] === "function") return mod[name] as T;
    } catch {
      // Module file not there (yet): try the next place the contract may live.
    }
  }
  return undefined;
}

const places = (module: string, files: string[]) => files.map((f) => `../${module}/${f}.js`);

export const bridge = {
  ingestServerEvents: () =>
    find<IngestServerEvents>(
      places("events", ["service", "ingest", "server-events", "writer", "index"]),
      "ingestServerEvents",
    ),
  upsertLeadByEmail: () =>
    find<UpsertLeadByEmail>(places("identity", ["service", "leads", "index"]), "upsertLeadByEmail"),
  registerGoalMetricProvider: () =>
    find<RegisterGoalMetricProvider>(
      places("goals", ["metrics", "service", "providers", "progress", "index"]),
      "registerGoalMetricProvider",
    ),
  scheduleGoalRecompute: () =>
    find<ScheduleGoalRecompute>(
      places("goals", ["service", "progress", "recompute", "metrics", "index"]),
      "scheduleGoalRecompute",
    ),
};
