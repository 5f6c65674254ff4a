import type { LiftModule } from "../index.js";
import { bridge } from "./bridge.js";
import { CONNECTOR_GOAL_METRICS, goalMetric } from "./metrics.js";
import { connectorRoutes } from "./routes.js";
import { SYNC_ALL_JOB, SYNC_JOB, SYNC_RETRY, runSync, syncAllProjects } from "./sync.js";
import { defineJob, exponentialBackoff } from "../../platform/jobs.js";
import { FORWARD_LEADS_JOB, FORWARD_REVENUE_JOB, forwardLeads, forwardRevenue } from "./sync-results.js";
import type { ConnectorType, LeadItem } from "./types.js";

export const connectorsModule: LiftModule = {
  name: "connectors",
  async register(app) {
    await app.register(connectorRoutes);
    app.jobs.define(
      defineJob<{ connectorId: string; syncId: string }>({
        type: SYNC_JOB,
        retry: SYNC_RETRY,
        run: (payload, ctx) => runSync(app, payload, ctx),
      }),
    );
    app.jobs.define(defineJob({ type: SYNC_ALL_JOB, retry: [60], run: () => syncAllProjects(app) }));
    type Scope = { projectId: string; workspaceId: string; type: ConnectorType };
    const ref = (p: Scope) => ({ id: p.projectId, workspaceId: p.workspaceId });
    app.jobs.define(
      defineJob<Scope>({
        type: FORWARD_REVENUE_JOB,
        retry: exponentialBackoff(8, 5),
        run: (p) => forwardRevenue(app, ref(p), p.type),
      }),
    );
    app.jobs.define(
      defineJob<Scope & { leads: LeadItem[] }>({
        type: FORWARD_LEADS_JOB,
        retry: exponentialBackoff(8, 5),
        run: (p) => forwardLeads(app, ref(p), p.type, p.leads),
      }),
    );
    app.worker.addSchedule(SYNC_ALL_JOB, app.config.syncIntervalMs);
    // Goals reads `mrr` and payments/CRM revenue through this provider.
    bridge.registerGoalMetricProvider(app, goalMetric, CONNECTOR_GOAL_METRICS);
  },
};
