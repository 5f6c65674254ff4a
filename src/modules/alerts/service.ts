/** Alerts on a trend series: their configuration, checks and firings (docs/alerts.md). */
export { createAlert, deleteAlert, getAlert, listAlerts, listFirings, updateAlert } from "./alerts.js";
export { checkAlert, checkAllAlerts } from "./check.js";
export { notifyFiring } from "./notify.js";
