import { insightTask, tilesTask } from "./results.js";

/** Insights' reads (platform/read-pool/): a saved insight's answer, a dashboard's tiles. */
export const insightsReadTasks = [insightTask, tilesTask];
