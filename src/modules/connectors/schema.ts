import { Type } from "@sinclair/typebox";
import { CONNECTOR_TYPES, type ConnectorType } from "./types.js";
import { NoPayload, jobKind } from "../../platform/jobs/index.js";

export const ConnectorTypeSchema = Type.Union(
  CONNECTOR_TYPES.map((t) => Type.Literal(t)),
  { description: "connector type" },
);
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const Connector = Type.Object({
  type: Type.String(),
  status: Type.String({ description: "connected, syncing, error or needs_reauth" }),
  lastSync: Nullable(Type.String()),
  accountName: Nullable(Type.String()),
  connectedAt: Type.String(),
  lastError: Nullable(Type.String()),
});

export const CreateConnectorBody = Type.Object(
  {
    type: ConnectorTypeSchema,
    credentials: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "payments: {apiKey}; crm: {accessToken}" }),
    ),
  },
  { additionalProperties: false },
);
export const DeleteConnectorBody = Type.Object(
  { type: ConnectorTypeSchema },
  { additionalProperties: false },
);
export const Deleted = Type.Object({
  id: Type.String(),
  type: Type.String(),
  deleted: Type.Boolean(),
  revoked: Type.Boolean(),
});
export const TypeParam = Type.Object({ type: ConnectorTypeSchema });
export const AuthQuery = Type.Object({
  projectId: Type.Optional(
    Type.String({ maxLength: 100, description: "project to connect (a browser cannot send x-project-id)" }),
  ),
});
export const CallbackParam = Type.Object({ type: Type.String({ maxLength: 64 }) });
export const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 4096 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    realmId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: true },
);

export const SyncStarted = Type.Object({
  status: Type.Literal("started"),
  syncId: Type.String(),
  connectors: Type.Array(Type.String()),
});
export const SyncProgress = Type.Object({
  syncId: Type.String(),
  status: Type.String({ description: "running, completed or completed_with_errors" }),
  trigger: Type.String({ description: "manual (GET /api/sync/run) or schedule" }),
  createdAt: Type.String(),
  connectors: Type.Array(
    Type.Object({
      type: Type.String(),
      status: Type.String({ description: "queued, running, done, error or already_running" }),
      rows: Type.Number(),
      error: Nullable(Type.String()),
      startedAt: Nullable(Type.String()),
      finishedAt: Nullable(Type.String()),
    }),
  ),
});
export const SyncIdParam = Type.Object({ syncId: Type.String({ minLength: 1, maxLength: 100 }) });

export const PeriodQuery = Type.Object({
  period: Type.Optional(
    Type.Union([Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d")], { default: "30d" }),
  ),
});
export const MetricsParam = Type.Object({ connectorType: ConnectorTypeSchema });

const Num = Type.Optional(Type.Number());
const NumOrNull = Type.Optional(Type.Union([Type.Number(), Type.Null()]));
/** GET /api/metrics/:type — which fields appear depends on the kind (METRIC_FIELDS in metrics.ts). */
export const ConnectorMetricsResponse = Type.Object({
  connectorType: Type.String(),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  spend: Num,
  impressions: Num,
  clicks: Num,
  conversions: Num,
  revenue: Num,
  sessions: Num,
  cpa: NumOrNull,
  roas: NumOrNull,
  mrr: Num,
  expenses: Num,
  netIncome: Num,
  campaigns: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        spend: Num,
        sessions: Num,
        conversions: Type.Number(),
      }),
      { description: "by campaign (by channel for web_analytics)" },
    ),
  ),
});

// ---- jobs (connectors/jobs.ts defines their handlers) ----
const JobScope = {
  projectId: Type.String(),
  workspaceId: Type.String(),
  type: Type.Unsafe<ConnectorType>(ConnectorTypeSchema),
};
export const SYNC_JOB = jobKind(
  "connectors.sync",
  Type.Object({ connectorId: Type.String(), syncId: Type.String() }),
);
export const SYNC_ALL_JOB = jobKind("connectors.sync-all", NoPayload);
export const FORWARD_REVENUE_JOB = jobKind("connectors.forward-revenue", Type.Object(JobScope));
export const FORWARD_LEADS_JOB = jobKind(
  "connectors.forward-leads",
  Type.Object({
    ...JobScope,
    leads: Type.Array(
      Type.Object({ email: Type.String(), name: Type.Optional(Type.String()), externalId: Type.String() }),
    ),
  }),
);
