import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

/**
 * Every route × every kind of caller, with the answer each must get. The table names every route
 * the app registers: a new route fails this test until it is listed with its access class.
 *
 * Classes: `project` (project API key, or a session of any role), `projectAdmin` (project API key,
 * or an admin session: members 403), `session` (a session of any
 * role), `admin` (an admin session), `tx` (a workspace transactional key), `writeKey` (Segment's
 * tracking API: a project key as HTTP Basic user name or `writeKey` in the body, which none of the
 * callers here sends, so all of them get 401), `public` (no
 * credentials; what is sent with them must not matter for access), `key` (a project API key only:
 * a session is a known caller of the wrong kind, 403). Other workspaces' callers get
 * 404 for this workspace's ids and, on collections, their own data only: no answer to them may
 * contain an id or address of this workspace.
 */
type Access = "project" | "projectAdmin" | "session" | "admin" | "tx" | "writeKey" | "public" | "key";
type Principal =
  | "none"
  | "malformed"
  | "revokedKey"
  | "publicKey"
  | "txKey"
  | "otherKey"
  | "otherSession"
  | "projectKey"
  | "member"
  | "admin";
// Callers that act last may change state (a DELETE by an admin); the refused ones go first.
const PRINCIPALS: Principal[] = [
  "none",
  "malformed",
  "revokedKey",
  "publicKey",
  "txKey",
  "otherKey",
  "otherSession",
  "projectKey",
  "member",
  "admin",
];

interface Ids {
  projectId: string;
  revokedKeyId: string;
  spareTxKeyId: string;
  userId: string;
  goalId: string;
  beliefId: string;
  webhookId: string;
  experimentId: string;
  commId: string;
  sendId: string;
  leadId: string;
  flagKey: string;
  publicKey: string;
  cohortId: string;
  annotationId: string;
  insightId: string;
  alertId: string;
  dashboardId: string;
  subscriptionId: string;
  shareToken: string;
  inviteId: string;
}
interface Row {
  /** As the app registers it. */
  route: string;
  access: Access;
  /** The request, addressing this workspace's resources. */
  url: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /** The URL names one of this workspace's resources: other workspaces get 404. */
  owned?: boolean;
}

const r = (route: string, access: Access, url: Row["url"] | string, extra: Partial<Row> = {}): Row => ({
  route,
  access,
  url: typeof url === "string" ? () => url : url,
  ...extra,
});

const TABLE: Row[] = [
  r("POST /api/auth/login", "public", "/api/auth/login", {
    body: () => ({ email: "x@example.com", password: "wrong" }),
  }),
  r("GET /api/auth/me", "session", "/api/auth/me"),
  r("GET /api/workspace", "session", "/api/workspace"),
  r("PATCH /api/workspace", "admin", "/api/workspace", { body: () => ({ name: "Renamed" }) }),
  r("GET /api/workspace/users", "admin", "/api/workspace/users"),
  r("POST /api/workspace/users", "admin", "/api/workspace/users", { body: () => ({}) }),
  r("POST /api/auth/password", "session", "/api/auth/password", { body: () => ({}) }),
  r("DELETE /api/workspace/users/:id/sessions", "admin", (i) => `/api/workspace/users/${i.userId}/sessions`, {
    owned: true,
  }),
  r("DELETE /api/workspace/users/:id", "admin", (i) => `/api/workspace/users/${i.userId}`, { owned: true }),
  r("GET /api/workspace/invites", "admin", "/api/workspace/invites"),
  r("POST /api/workspace/invites", "admin", "/api/workspace/invites", { body: () => ({}) }),
  r("DELETE /api/workspace/invites/:id", "admin", (i) => `/api/workspace/invites/${i.inviteId}`, {
    owned: true,
  }),
  // Public: the invitation's token in the path is the credential.
  r("GET /api/invites/:token", "public", "/api/invites/svc_inv_unknown"),
  r("POST /api/invites/:token", "public", "/api/invites/svc_inv_unknown", { body: () => ({}) }),
  r("GET /api/projects", "admin", "/api/projects"),
  r("POST /api/projects", "admin", "/api/projects", { body: () => ({}) }),
  r("GET /api/projects/:id/keys", "admin", (i) => `/api/projects/${i.projectId}/keys`, { owned: true }),
  r("POST /api/projects/:id/keys", "admin", (i) => `/api/projects/${i.projectId}/keys`, {
    owned: true,
    body: () => ({ name: "authz" }),
  }),
  r(
    "DELETE /api/projects/:id/keys/:keyId",
    "admin",
    (i) => `/api/projects/${i.projectId}/keys/${i.revokedKeyId}`,
    { owned: true },
  ),
  r("GET /api/goals", "project", "/api/goals"),
  r("POST /api/goals", "project", "/api/goals", { body: () => ({}) }),
  r("PATCH /api/goals", "project", "/api/goals", {
    owned: true,
    body: (i) => ({ id: i.goalId, target: 500 }),
  }),
  r("DELETE /api/goals", "project", (i) => `/api/goals?id=${i.goalId}`, { owned: true }),
  r("GET /api/conversion-goals", "project", "/api/conversion-goals"),
  r("POST /api/conversion-goals", "project", "/api/conversion-goals", { body: () => ({}) }),
  r("PATCH /api/conversion-goals", "project", "/api/conversion-goals", {
    body: () => ({ id: "cg_missing", name: "x" }),
  }),
  r("DELETE /api/conversion-goals", "project", "/api/conversion-goals", {
    body: () => ({ id: "cg_missing" }),
  }),
  r("GET /api/beliefs", "project", "/api/beliefs"),
  r("POST /api/beliefs", "project", "/api/beliefs", { body: () => ({}) }),
  r("GET /api/beliefs/:id", "project", (i) => `/api/beliefs/${i.beliefId}`, { owned: true }),
  r(
    "POST /api/beliefs/:id/update-confidence",
    "project",
    (i) => `/api/beliefs/${i.beliefId}/update-confidence`,
    {
      owned: true,
      body: () => ({ type: "observation", delta: 0.01 }),
    },
  ),
  r("GET /api/events/recent", "project", "/api/events/recent"),
  r("GET /api/events/status", "project", "/api/events/status"),
  r("POST /api/events", "public", "/api/events", { body: () => ({}) }),
  r("GET /api/identity", "project", "/api/identity?visitorId=v-authz"),
  r("POST /api/identity", "project", "/api/identity", { body: () => ({}) }),
  r("GET /api/leads", "project", "/api/leads"),
  r("GET /api/leads/:id", "project", (i) => `/api/leads/${i.leadId}`, { owned: true }),
  r("POST /api/identity/stitch", "public", "/api/identity/stitch", { body: () => ({}) }),
  r("GET /api/analytics/summary", "project", "/api/analytics/summary"),
  r("GET /api/analytics/goals", "project", "/api/analytics/goals"),
  r("GET /api/analytics/timeseries", "project", "/api/analytics/timeseries"),
  r("GET /api/analytics/breakdown", "project", "/api/analytics/breakdown?by=device"),
  r("GET /api/analytics/retention", "project", "/api/analytics/retention"),
  r("POST /api/analytics/funnel", "project", "/api/analytics/funnel", {
    body: () => ({ steps: [{ eventType: "pageview" }, { eventType: "signup" }] }),
  }),
  r("GET /api/attribution/summary", "project", "/api/attribution/summary"),
  r("POST /api/analytics/paths", "project", "/api/analytics/paths", {
    body: () => ({ start: { event: "pageview" } }),
  }),
  r("POST /api/analytics/trends", "project", "/api/analytics/trends", {
    body: () => ({ series: [{ event: "pageview" }] }),
  }),
  r("POST /api/analytics/web", "project", "/api/analytics/web", { body: () => ({ lists: ["pages"] }) }),
  r("GET /api/analytics/pickers/event-names", "project", "/api/analytics/pickers/event-names"),
  r("GET /api/analytics/pickers/property-keys", "project", "/api/analytics/pickers/property-keys"),
  r("GET /api/analytics/pickers/values", "project", "/api/analytics/pickers/values?key=channel"),
  r("GET /api/cohorts", "project", "/api/cohorts"),
  r("POST /api/cohorts", "project", "/api/cohorts", { body: () => ({}) }),
  r("POST /api/cohorts/preview", "project", "/api/cohorts/preview", { body: () => ({}) }),
  r("GET /api/cohorts/:id", "project", (i) => `/api/cohorts/${i.cohortId}`, { owned: true }),
  r("PATCH /api/cohorts/:id", "project", (i) => `/api/cohorts/${i.cohortId}`, {
    owned: true,
    body: () => ({ name: "Renamed cohort" }),
  }),
  r("GET /api/cohorts/:id/count", "project", (i) => `/api/cohorts/${i.cohortId}/count`, { owned: true }),
  r("GET /api/cohorts/:id/members", "project", (i) => `/api/cohorts/${i.cohortId}/members`, { owned: true }),
  r("GET /api/annotations", "project", "/api/annotations"),
  r("POST /api/annotations", "project", "/api/annotations", {
    body: () => ({ date: "2025-03-04", text: "authz" }),
  }),
  r("GET /api/annotations/:id", "project", (i) => `/api/annotations/${i.annotationId}`, { owned: true }),
  r("PATCH /api/annotations/:id", "project", (i) => `/api/annotations/${i.annotationId}`, {
    owned: true,
    body: () => ({ text: "renamed" }),
  }),
  r("GET /api/insights", "project", "/api/insights"),
  r("POST /api/insights", "project", "/api/insights", { body: () => ({}) }),
  r("GET /api/insights/:id", "project", (i) => `/api/insights/${i.insightId}`, { owned: true }),
  r("PATCH /api/insights/:id", "project", (i) => `/api/insights/${i.insightId}`, {
    owned: true,
    body: () => ({ name: "Renamed insight" }),
  }),
  r("GET /api/insights/:id/results", "project", (i) => `/api/insights/${i.insightId}/results`, {
    owned: true,
  }),
  r("GET /api/alerts", "project", "/api/alerts"),
  r("POST /api/alerts", "project", "/api/alerts", { body: () => ({}) }),
  r("GET /api/alerts/:id", "project", (i) => `/api/alerts/${i.alertId}`, { owned: true }),
  r("PATCH /api/alerts/:id", "project", (i) => `/api/alerts/${i.alertId}`, {
    owned: true,
    body: () => ({ name: "Renamed alert" }),
  }),
  r("GET /api/alerts/:id/firings", "project", (i) => `/api/alerts/${i.alertId}/firings`, { owned: true }),
  r("POST /api/alerts/:id/check", "project", (i) => `/api/alerts/${i.alertId}/check`, { owned: true }),
  r("GET /api/subscriptions", "project", "/api/subscriptions"),
  r("POST /api/subscriptions", "project", "/api/subscriptions", { body: () => ({}) }),
  r("GET /api/subscriptions/:id", "project", (i) => `/api/subscriptions/${i.subscriptionId}`, {
    owned: true,
  }),
  r("PATCH /api/subscriptions/:id", "project", (i) => `/api/subscriptions/${i.subscriptionId}`, {
    owned: true,
    body: () => ({ hour: 7 }),
  }),
  r("GET /api/subscriptions/:id/sends", "project", (i) => `/api/subscriptions/${i.subscriptionId}/sends`, {
    owned: true,
  }),
  r("GET /api/dashboards", "project", "/api/dashboards"),
  r("POST /api/dashboards", "project", "/api/dashboards", { body: () => ({}) }),
  r("GET /api/dashboards/:id", "project", (i) => `/api/dashboards/${i.dashboardId}`, { owned: true }),
  r("PATCH /api/dashboards/:id", "project", (i) => `/api/dashboards/${i.dashboardId}`, {
    owned: true,
    body: () => ({ name: "Renamed dashboard" }),
  }),
  r("GET /api/dashboards/:id/results", "project", (i) => `/api/dashboards/${i.dashboardId}/results`, {
    owned: true,
  }),
  // Public: the token in the path is the credential (what else is sent must not matter).
  r("GET /api/shared/dashboards/:token", "public", (i) => `/api/shared/dashboards/${i.shareToken}`),
  r("POST /api/dashboards/:id/share", "project", (i) => `/api/dashboards/${i.dashboardId}/share`, {
    owned: true,
  }),
  r("DELETE /api/dashboards/:id/share", "project", (i) => `/api/dashboards/${i.dashboardId}/share`, {
    owned: true,
  }),
  r("GET /api/export/events", "projectAdmin", "/api/export/events"),
  r("GET /api/webhooks", "project", "/api/webhooks"),
  r("POST /api/webhooks", "project", "/api/webhooks", { body: () => ({}) }),
  r("PATCH /api/webhooks", "project", "/api/webhooks", { owned: true, body: (i) => ({ id: i.webhookId }) }),
  r("DELETE /api/webhooks", "project", "/api/webhooks", { owned: true, body: (i) => ({ id: i.webhookId }) }),
  r("GET /api/webhooks/:id/deliveries", "project", (i) => `/api/webhooks/${i.webhookId}/deliveries`, {
    owned: true,
  }),
  r(
    "POST /api/webhooks/:id/deliveries/:deliveryId/retry",
    "project",
    (i) => `/api/webhooks/${i.webhookId}/deliveries/msg_missing/retry`,
    { owned: true },
  ),
  r("GET /api/webhooks/sources", "admin", "/api/webhooks/sources"),
  r("PUT /api/webhooks/sources/:source", "admin", "/api/webhooks/sources/payments", { body: () => ({}) }),
  r("POST /api/webhooks/:source", "public", "/api/webhooks/payments", { body: () => ({}) }),
  r("GET /api/experiments", "project", "/api/experiments"),
  r("POST /api/experiments", "project", "/api/experiments", { body: () => ({}) }),
  r("PATCH /api/experiments", "project", "/api/experiments", {
    owned: true,
    body: (i) => ({ id: i.experimentId, name: "Renamed" }),
  }),
  r("GET /api/experiments/active", "public", "/api/experiments/active"),
  r("GET /api/experiments/:id", "project", (i) => `/api/experiments/${i.experimentId}`, { owned: true }),
  r("GET /api/experiments/:id/weights", "project", (i) => `/api/experiments/${i.experimentId}/weights`, {
    owned: true,
  }),
  r("GET /api/svc-js", "public", "/api/svc-js"),
  r("POST /api/v1/transactional/send", "tx", "/api/v1/transactional/send", { body: () => ({}) }),
  r("GET /api/transactional-api-keys", "admin", "/api/transactional-api-keys"),
  r("POST /api/transactional-api-keys", "admin", "/api/transactional-api-keys", { body: () => ({}) }),
  r(
    "DELETE /api/transactional-api-keys/:keyId",
    "admin",
    (i) => `/api/transactional-api-keys/${i.spareTxKeyId}`,
    {
      owned: true,
    },
  ),
  r("GET /api/transactional/recent", "admin", "/api/transactional/recent"),
  r("GET /api/transactional/sends/:id", "admin", (i) => `/api/transactional/sends/${i.sendId}`, {
    owned: true,
  }),
  r("GET /api/transactional/suppressions", "admin", "/api/transactional/suppressions"),
  r("POST /api/transactional/suppressions", "admin", "/api/transactional/suppressions", { body: () => ({}) }),
  r(
    "DELETE /api/transactional/suppressions/:email",
    "admin",
    "/api/transactional/suppressions/nobody%40example.com",
  ),
  r("GET /api/communications", "project", "/api/communications"),
  r("POST /api/communications", "admin", "/api/communications", { body: () => ({}) }),
  r("GET /api/communications/:id", "project", (i) => `/api/communications/${i.commId}`, { owned: true }),
  r("PATCH /api/communications/:id", "admin", (i) => `/api/communications/${i.commId}`, {
    owned: true,
    body: () => ({ name: "Renamed" }),
  }),
  r("DELETE /api/communications/:id", "admin", (i) => `/api/communications/${i.commId}`, { owned: true }),
  r("POST /api/communications/:id/preview", "project", (i) => `/api/communications/${i.commId}/preview`, {
    owned: true,
    body: () => ({}),
  }),
  r("POST /api/communications/preview", "project", "/api/communications/preview", { body: () => ({}) }),
  r("GET /api/communications/preview-frame", "public", "/api/communications/preview-frame"),
  r("GET /api/communications/preview-frame.js", "public", "/api/communications/preview-frame.js"),
  r("POST /api/transactional/webhooks/provider", "tx", "/api/transactional/webhooks/provider", {
    body: () => ({}),
  }),
  r("GET /api/transactional/t/o/:sendId/:sig", "public", (i) => `/api/transactional/t/o/${i.sendId}/bad`),
  r("GET /api/transactional/t/c/:sendId", "public", (i) => `/api/transactional/t/c/${i.sendId}`),
  r("GET /api/connectors", "project", "/api/connectors"),
  r("POST /api/connectors", "project", "/api/connectors", { body: () => ({}) }),
  r("DELETE /api/connectors", "project", "/api/connectors", { body: () => ({}) }),
  r("GET /api/connectors/:type/auth", "session", "/api/connectors/search_ads/auth"),
  r("GET /api/connectors/:type/callback", "public", "/api/connectors/payments/callback?state=bad&code=bad"),
  r("GET /api/sync/run", "project", "/api/sync/run"),
  r("GET /api/sync/:syncId", "project", "/api/sync/sync_missing"),
  r("GET /api/metrics", "project", "/api/metrics"),
  r("GET /api/metrics/:connectorType", "project", "/api/metrics/payments"),
  r("GET /api/flags", "project", "/api/flags"),
  r("POST /api/flags", "project", "/api/flags", { body: () => ({}) }),
  r("GET /api/flags/:key", "project", (i) => `/api/flags/${i.flagKey}`, { owned: true }),
  r("PATCH /api/flags/:key", "project", (i) => `/api/flags/${i.flagKey}`, {
    owned: true,
    body: () => ({ description: "authz" }),
  }),
  r("POST /api/flags/:key/evaluate", "project", (i) => `/api/flags/${i.flagKey}/evaluate`, {
    owned: true,
    body: () => ({ attributes: { id: "authz" } }),
  }),
  r("GET /api/flags/:key/history", "project", (i) => `/api/flags/${i.flagKey}/history`, { owned: true }),
  r(
    "POST /api/flags/:key/rules/:ruleId/ship",
    "project",
    (i) => `/api/flags/${i.flagKey}/rules/r-authz/ship`,
    {
      owned: true,
      body: () => ({ variant: "b" }),
    },
  ),
  r("DELETE /api/flags/:key", "project", (i) => `/api/flags/${i.flagKey}`, { owned: true }),
  r("GET /api/flag-settings", "project", "/api/flag-settings"),
  r("PUT /api/flag-settings", "project", "/api/flag-settings", { body: () => ({ remoteEvalOnly: false }) }),
  r("GET /api/features/:clientKey", "public", "/api/features/svc_pk_authz"),
  // An open stream never ends: the row asks with a key that is refused before the stream starts.
  r("GET /sub/:clientKey", "public", "/sub/svc_pk_authz"),
  r("POST /api/eval/:clientKey", "public", "/api/eval/svc_pk_authz", { body: () => ({}) }),
  // OFREP takes the public key as Authorization: Bearer, which none of the callers here sends: as
  // the write key's rows, every caller gets 401.
  r("POST /ofrep/v1/evaluate/flags", "writeKey", "/ofrep/v1/evaluate/flags", { body: () => ({}) }),
  r("POST /ofrep/v1/evaluate/flags/:key", "writeKey", (i) => `/ofrep/v1/evaluate/flags/${i.flagKey}`, {
    body: () => ({}),
  }),
  ...[
    "track",
    "t",
    "identify",
    "i",
    "page",
    "p",
    "screen",
    "s",
    "group",
    "g",
    "alias",
    "a",
    "batch",
    "b",
  ].map((path) => r(`POST /v1/${path}`, "writeKey", `/v1/${path}`, { body: () => ({}) })),
  r("GET /v1/projects/:writeKey/settings", "public", (i) => `/v1/projects/${i.publicKey}/settings`),
  // PostHog's capture API: the key is in the body (api_key, or token in an event's properties),
  // which none of the callers here sends: all get 401, as on Segment's.
  ...["/e", "/i/v0/e", "/capture", "/batch", "/track", "/engage"]
    .flatMap((path) => [path, `${path}/`])
    .map((path) => r(`POST ${path}`, "writeKey", path, { body: () => ({}) })),
  // PostHog's flags: the key (token or api_key) is in the body, which none of the callers here
  // sends: all get 401, as on its capture API.
  ...["/flags", "/flags/", "/decide", "/decide/"].map((path) =>
    r(`POST ${path}`, "writeKey", path, { body: () => ({}) }),
  ),
  // PostHog's local-evaluation definitions: the secret key as Authorization: Bearer (PostHog's
  // personal API key), which none of the callers here sends (their keys are in x-api-key): all 401.
  r("GET /flags/definitions", "writeKey", "/flags/definitions"),
  r("GET /api/feature_flag/local_evaluation", "writeKey", "/api/feature_flag/local_evaluation"),
  r("GET /array/:token/config", "public", (i) => `/array/${i.publicKey}/config`),
  r("POST /array/:token/config", "public", (i) => `/array/${i.publicKey}/config`),
  r("GET /array/:token/config.js", "public", (i) => `/array/${i.publicKey}/config.js`),
  r("GET /assets/*", "public", "/assets/missing.js"),
  r("GET /", "public", "/"),
  r("GET /openapi.json", "public", "/openapi.json"),
  r("GET /docs", "public", "/docs"),
  r("GET /docs/", "public", "/docs/"),
  r("GET /docs/js/scalar.js", "public", "/docs/js/scalar.js"),
  r("GET /healthz", "public", "/healthz"),
  r("GET /metrics", "public", "/metrics"),
  r("POST /mcp", "key", "/mcp", {
    body: () => ({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_flags", arguments: {} },
    }),
  }),
  r("GET /mcp", "key", "/mcp"),
  r("DELETE /mcp", "key", "/mcp"),
  r("GET /api/erasures", "projectAdmin", "/api/erasures"),
  r("DELETE /api/identity", "projectAdmin", "/api/identity?visitorId=v-authz-never-seen"),
  r("DELETE /api/cohorts/:id", "project", (i) => `/api/cohorts/${i.cohortId}`, { owned: true }),
  r("DELETE /api/annotations/:id", "project", (i) => `/api/annotations/${i.annotationId}`, { owned: true }),
  r("DELETE /api/subscriptions/:id", "project", (i) => `/api/subscriptions/${i.subscriptionId}`, {
    owned: true,
  }),
  r("DELETE /api/dashboards/:id", "project", (i) => `/api/dashboards/${i.dashboardId}`, { owned: true }),
  r("DELETE /api/insights/:id", "project", (i) => `/api/insights/${i.insightId}`, { owned: true }),
  r("DELETE /api/alerts/:id", "project", (i) => `/api/alerts/${i.alertId}`, { owned: true }),
  // Near the end: the first allowed caller erases the lead the rows above read (the next get 200, repeated).
  r("DELETE /api/leads/:id", "projectAdmin", (i) => `/api/leads/${i.leadId}`, { owned: true }),
  // Last: a server-side logout would end the admin session the rows above use.
  r("POST /api/auth/logout", "public", "/api/auth/logout"),
];

type Expect = number | "allowed" | "any";
/** What `who` must get on a row of `access`. "allowed": past authorization (not 401/403). */
function expected(row: Row, who: Principal): Expect {
  const other = who === "otherKey" || who === "otherSession";
  switch (row.access) {
    case "public":
      return "any";
    case "project":
    case "projectAdmin":
      if (who === "projectKey" || who === "admin") return "allowed";
      if (who === "member") return row.access === "project" ? "allowed" : 403;
      if (other) return row.owned ? 404 : "allowed";
      return 401;
    case "session":
    case "admin":
      if (who === "admin" || (who === "member" && row.access === "session")) return "allowed";
      if (who === "member") return 403;
      if (who === "otherSession") return row.owned ? 404 : "allowed";
      // A valid project key is a known caller of the wrong kind.
      if (who === "projectKey" || who === "otherKey") return 403;
      return 401;
    case "tx":
      return who === "txKey" ? "allowed" : 401;
    case "writeKey":
      return 401;
    case "key":
      if (who === "projectKey") return "allowed";
      if (who === "otherKey") return row.owned ? 404 : "allowed";
      return who === "member" || who === "admin" || who === "otherSession" ? 403 : 401;
  }
}

let t: TestApp;
let a: Tenant;
let b: Tenant;
let ids: Ids;
let headers: Record<Principal, Record<string, string>>;
/** Strings of workspace A that no other workspace's answer may contain. */
let secrets: string[];

beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true });
  a = await t.tenant({ tier: "scale" });
  b = await t.tenant();
  const created = async (res: Promise<{ status: number; body: any }>) => {
    const out = await res;
    if (out.status !== 201 && out.status !== 200)
      throw new Error(`setup: ${out.status} ${JSON.stringify(out.body)}`);
    return out.body;
  };
  const revoked = await created(
    a.post(`/api/projects/${a.projectId}/keys`, { name: "revoked" }, { as: "admin" }),
  );
  await a.request("DELETE", `/api/projects/${a.projectId}/keys/${revoked.id}`, undefined, { as: "admin" });
  const tx = await created(a.post("/api/transactional-api-keys", { name: "authz" }, { as: "admin" }));
  const spare = await created(a.post("/api/transactional-api-keys", { name: "spare" }, { as: "admin" }));
  const user = await created(
    a.post(
      "/api/workspace/users",
      {
        email: `leaver-${randomBytes(3).toString("hex")}@example.com`,
        role: "member",
        password: "correct horse battery",
      },
      { as: "admin" },
    ),
  );
  const deadline = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const goal = await created(a.post("/api/goals", { metric: "visitors", target: 100, deadline }));
  const belief = await created(a.post("/api/beliefs", { statement: "Authz rows stay private" }));
  const webhook = await created(
    a.post("/api/webhooks", { url: "https://localhost:9/authz", events: ["lead.created"] }),
  );
  const experiment = await created(
    a.post("/api/experiments", {
      name: "Authz experiment",
      targetUrl: "https://shop.example/",
      variants: [{ name: "control" }, { name: "b" }],
    }),
  );
  const comm = await created(
    a.post(
      "/api/communications",
      {
        id: "authz-comm",
        name: "Authz",
        commType: "transactional",
        slots: { subject: "Hi" },
        blocks: [{ type: "text", text: "Hello" }],
      },
      { as: "admin" },
    ),
  );
  const sent = await a.post(
    "/api/v1/transactional/send",
    { to: "someone@sandbox.svc.test", subject: "Authz", html: "<p>x</p>" },
    { as: "none", headers: { authorization: `Bearer ${tx.rawKey}` } },
  );
  if (sent.status !== 200) throw new Error(`setup send: ${sent.status} ${sent.text}`);
  await created(a.post("/api/identity", { visitorId: "authz-visitor", leadId: "authz-lead-a" }));
  await created(
    a.post("/api/flags", {
      key: "authz-flag",
      valueType: "string",
      defaultValue: "a",
      rules: [{ id: "r-authz", type: "experiment", experimentId: experiment.id, variations: ["a", "b"] }],
    }),
  );
  const cohort = await created(
    a.post("/api/cohorts", {
      name: "Authz cohort",
      definition: { conditions: [{ type: "event", event: "pageview" }] },
    }),
  );
  const annotation = await created(a.post("/api/annotations", { date: "2025-03-04", text: "Authz note" }));
  const insight = await created(
    a.post("/api/insights", { kind: "summary", name: "Authz insight", settings: { period: "7d" } }),
  );
  const alert = await created(
    a.post("/api/alerts", {
      name: "Authz alert",
      query: { series: [{ event: "signup" }], interval: "day" },
      condition: { kind: "above", value: 1 },
      notify: { emails: [], webhook: false },
    }),
  );
  const dashboard = await created(
    a.post("/api/dashboards", {
      name: "Authz dashboard",
      items: [{ insightId: insight.id, x: 0, y: 0, w: 6, h: 1 }],
    }),
  );
  const share = await created(a.post(`/api/dashboards/${dashboard.id}/share`));
  const subscription = await created(
    a.post("/api/subscriptions", {
      target: { dashboardId: dashboard.id },
      frequency: "daily",
      hour: 8,
      emails: [a.admin.email],
    }),
  );
  const invite = await created(
    a.post(
      "/api/workspace/invites",
      { email: `invitee-${randomBytes(3).toString("hex")}@example.com`, role: "member" },
      { as: "admin" },
    ),
  );
  ids = {
    projectId: a.projectId,
    revokedKeyId: revoked.id,
    spareTxKeyId: spare.id,
    userId: user.id,
    goalId: goal.id,
    beliefId: belief.id,
    webhookId: webhook.id,
    experimentId: experiment.id,
    commId: comm.id,
    sendId: sent.body.send_id,
    leadId: "authz-lead-a",
    flagKey: "authz-flag",
    publicKey: a.publicKey,
    cohortId: cohort.id,
    annotationId: annotation.id,
    insightId: insight.id,
    alertId: alert.id,
    dashboardId: dashboard.id,
    subscriptionId: subscription.id,
    shareToken: share.token,
    inviteId: invite.id,
  };
  const member = await a.headersFor("member");
  headers = {
    none: {},
    malformed: {
      "x-api-key": `svc_key_${randomBytes(16).toString("hex")}`,
      cookie: "svc_session=not.a.session",
    },
    revokedKey: { "x-api-key": revoked.rawKey },
    publicKey: { "x-api-key": a.publicKey },
    txKey: { authorization: `Bearer ${tx.rawKey}` },
    otherKey: { "x-api-key": b.apiKey },
    otherSession: { cookie: b.adminCookie },
    projectKey: { "x-api-key": a.apiKey },
    member,
    admin: { cookie: a.adminCookie },
  };
  secrets = [
    a.projectId,
    a.publicKey,
    revoked.id,
    spare.id,
    user.id,
    goal.id,
    belief.id,
    webhook.id,
    experiment.id,
    ids.sendId,
    ids.leadId,
    annotation.id,
    user.email,
    insight.id,
    dashboard.id,
    subscription.id,
    invite.id,
    invite.email,
  ];
});
afterAll(async () => t?.close());

describe("authorization matrix", () => {
  it("lists every route the app registers, once", () => {
    const listed = TABLE.map((row) => row.route);
    expect(new Set(listed).size).toBe(listed.length);
    const registered = [...new Set(t.app.routeTable)].sort();
    expect(registered.filter((route) => !listed.includes(route))).toEqual([]);
    expect(listed.filter((route) => !registered.includes(route))).toEqual([]);
  });

  it("every route × caller gets its expected answer, and nothing of this workspace leaks", async () => {
    const wrong: string[] = [];
    let cells = 0;
    for (const row of TABLE) {
      const [method, ...rest] = row.route.split(" ");
      void rest;
      for (const who of PRINCIPALS) {
        const body = row.body?.(ids);
        const res = await t.app.inject({
          method: method as "GET",
          url: row.url(ids),
          headers: { ...headers[who], ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          payload: body !== undefined ? JSON.stringify(body) : undefined,
        });
        cells++;
        const want = expected(row, who);
        const got = res.statusCode;
        const ok =
          got < 500 && (want === "any" || (want === "allowed" ? got !== 401 && got !== 403 : got === want));
        if (!ok) wrong.push(`${row.route} as ${who}: ${got} (expected ${want}) ${res.body.slice(0, 120)}`);
        if (who === "otherKey" || who === "otherSession") {
          // An id the request itself named may come back in a 404's message; anything else is a leak.
          const asked = row.url(ids) + JSON.stringify(body ?? "");
          const leaked = secrets.filter((s) => res.body.includes(s) && !asked.includes(s));
          if (leaked.length) wrong.push(`${row.route} as ${who} leaks ${leaked.join(", ")}`);
        }
      }
    }
    console.log(`authz-matrix: ${TABLE.length} routes × ${PRINCIPALS.length} callers = ${cells} cells`);
    if (process.env.AUTHZ_DUMP) console.log(wrong.join("\n"));
    expect(wrong).toEqual([]);
    // One request per route and caller: its time grows with the routes, beyond the default timeout
    // on a loaded machine.
  }, 180_000);
});
