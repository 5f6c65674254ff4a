/**
 * The ingest pipeline, in order. A request's events go through:
 *
 * 1. `routes.ts` — the route schema's check (`validate.ts`), the project key, the rate limit.
 * 2. `event-store/writer.ts` — group commit, one transaction per flush: message keys claimed by
 *    the store (keyed requests, `claims/dedup.ts`), the session step (`sessions/session-step.ts`:
 *    sessions and channel, `sessions.ts`, `channel.ts`), the rows (`flush-rows.ts`) inserted by
 *    the event store (`store/`: SQLite's rows and per-visitor index, PostgreSQL's rows and
 *    partitions); then, in the same transaction, the steps below.
 * 3. The processors of other modules, in this order, each seeing every event of the transaction:
 *    - `identity`: links visitors to leads (a batch's `userId`, a server event's lead id), then
 *      applies `$set`/`$set_once` and group traits (`$group` events) to the leads;
 *    - `analytics`: touchpoints, conversions and rollups, keyed by the links identity made;
 *      schedules the goals recompute (a job, after commit);
 *    - `experiments`: conversions of exposed visitors, bandit counters.
 * 4. Commit: the events and everything derived from them are stored together or not at all. Then
 *    the writer's committed-batch listeners see the flush's events with their store keys.
 *
 * A processor registers under its step's name and declares the steps it reads from; the bus runs
 * the steps in this order whatever order modules register in, and refuses to start when a step
 * reads from one that does not come before it.
 */
export const PIPELINE_STEPS = ["identity", "analytics", "experiments"] as const;
