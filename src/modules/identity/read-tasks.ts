import { type StateHolder, provide } from "../../platform/deps.js";
import { LEAD_READER } from "../analytics/service.js";
import { identityLeadReader } from "./lead-filter.js";
import { leadPageTask } from "./lead-list.js";

/** Identity's reads that grow with stored data (platform/read-pool/): the filtered lead scan. */
export const identityReadTasks = [leadPageTask];

/** A read worker's analytics reads leads as the app's do (identity's module provides the same). */
export const prepareIdentityReads = (worker: StateHolder) => provide(worker, LEAD_READER, identityLeadReader);
