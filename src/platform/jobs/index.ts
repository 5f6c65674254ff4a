// The job system's surface, one file per job: kinds and definitions, enqueueing in the caller's
// transaction, jobs held by their creator, the service-event outbox, the registry and the worker.
export * from "./enqueue.js";
export * from "./held-job.js";
export * from "./kinds.js";
export * from "./registry.js";
export * from "./service-events.js";
export * from "./worker.js";
