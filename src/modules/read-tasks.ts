import type { ReadTask, ReadTaskList } from "../platform/read-pool/task.js";
import { analyticsReadTasks, prepareAnalyticsReads } from "./analytics/read-tasks.js";
import { identityReadTasks } from "./identity/read-tasks.js";
import { insightsReadTasks } from "./insights/read-tasks.js";

/**
 * Every read task, for the read pool's workers (platform/read-pool/worker.ts loads this file by
 * its path, as the app loads modules/index.ts). A worker registers no routes: `prepare` does what
 * the modules' registrations do that reads depend on.
 */
export const readTaskList: ReadTaskList = {
  tasks: [...analyticsReadTasks, ...identityReadTasks, ...insightsReadTasks] as ReadTask<never, unknown>[],
  prepare: prepareAnalyticsReads,
};
