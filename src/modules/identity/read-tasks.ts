import { leadPageTask } from "./lead-list.js";

/** Identity's reads that grow with stored data (platform/read-pool/): the filtered lead scan. */
export const identityReadTasks = [leadPageTask];
