/**
 * Saved insights, dashboards and their public links. Reports run through the
 * analytics service; nothing here reads another module's tables.
 */
export { createInsight, deleteInsight, getInsight, listInsights, updateInsight } from "./insights.js";
export {
  createDashboard,
  deleteDashboard,
  getDashboard,
  listDashboards,
  updateDashboard,
} from "./dashboards.js";
export {
  SHARE_PREFIX,
  dashboardResults,
  insightResults,
  shareDashboard,
  sharedDashboard,
  unshareDashboard,
} from "./results.js";
export type { InsightKind } from "./schema.js";
export {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSends,
  listSubscriptions,
  updateSubscription,
} from "./subscriptions.js";
export { checkAllSubscriptions, sendSubscription } from "./subscriptions-send.js";
