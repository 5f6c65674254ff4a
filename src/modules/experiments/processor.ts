import type { Insertable } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import type { CommittedEvent, FlushContext } from "../../platform/event-bus.js";
import { conversionGoalsCache } from "../goals/service.js";
import { EXPOSURE_EVENT, recordConversions } from "./conversions.js";
import { decideWinner } from "./outcome.js";
import { bumpStats, type StatsDelta, statsDelta } from "./store.js";
import { completeExperiment } from "./transition.js";
import { loadCounts, parseVariants, resultsOf } from "./view.js";
import type { ExperimentExposureTable, ExperimentTable } from "./tables.js";

export { EXPOSURE_EVENT } from "./conversions.js";
const CHUNK = 500;

/**
 * The experiments event processor: records `$exposure` events (first per visitor and experiment)
 * and the first conversion after exposure, maintaining per-variant counters, then applies the
 * auto-complete rule to the experiments it touched. Runs inside the events commit transaction.
 * Experiments are read in that transaction; conversion goals come from a cache valid for the
 * configuration version the transaction read (platform/config-version.ts).
 */
export function createExperimentProcessor(onChange: (projectId: string) => void) {
  const goalsOf = conversionGoalsCache();

  return async function processExperimentEvents(
    trx: Trx,
    events: CommittedEvent[],
    flush: FlushContext,
  ): Promise<void> {
    const byProject = new Map<string, CommittedEvent[]>();
    for (const e of events) {
      // Bots are stored flagged by the events module and left out of every statistic.
      if (e.isBot) continue;
      const list = byProject.get(e.projectId);
      if (list) list.push(e);
      else byProject.set(e.projectId, [e]);
    }
    for (const [projectId, list] of byProject) {
      const project = { id: projectId, workspaceId: list[0]!.workspaceId };
      list.sort((a, b) => a.timestamp - b.timestamp);
      const touched = new Set<string>();
      await recordExposures(trx, project, list, touched);
      const goals = () => goalsOf(trx, project, flush.configVersion(projectId));
      await recordConversions(trx, project, list, touched, goals);
      // After commit: a reader notified earlier could cache the state from before this transaction.
      if (touched.size > 0 && (await autoComplete(trx, [...touched])))
        flush.afterCommit(() => onChange(projectId));
    }
  };
}

async function recordExposures(
  trx: Trx,
  project: ProjectRef,
  events: CommittedEvent[],
  touched: Set<string>,
) {
  const exposures = events.filter(
    (e) =>
      e.type === EXPOSURE_EVENT &&
      typeof e.data.experimentId === "string" &&
      typeof e.data.variant === "string" &&
      e.visitorId,
  );
  if (exposures.length === 0) return;
  const ids = [...new Set(exposures.map((e) => e.data.experimentId as string))];
  const rows = await trx
    .selectFrom("experiments")
    .select(["id", "variants"])
    .where("id", "in", ids)
    .where("project_id", "=", project.id)
    .where("status", "=", "running")
    .execute();
  const variantsOf = new Map(
    rows.map((r) => [r.id, new Set(parseVariants(r as ExperimentTable).map((v) => v.name))]),
  );
  const firsts = new Map<string, Insertable<ExperimentExposureTable>>();
  for (const e of exposures) {
    const exp = e.data.experimentId as string;
    const variant = e.data.variant as string;
    if (!variantsOf.get(exp)?.has(variant)) continue;
    const key = `${exp}\u0000${e.visitorId}`;
    if (firsts.has(key)) continue;
    firsts.set(key, {
      experiment_id: exp,
      visitor_id: e.visitorId,
      project_id: project.id,
      variant,
      exposed_at: e.timestamp,
      converted_at: null,
    });
  }
  // In key order, so concurrent flushes of two processes lock the rows in one order.
  const all = [...firsts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, x]) => x);
  const deltas = new Map<string, StatsDelta>();
  for (let i = 0; i < all.length; i += CHUNK) {
    // The primary key keeps one exposure per visitor and experiment across batches and nodes.
    const inserted = await trx
      .insertInto("experiment_exposures")
      .values(all.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(["experiment_id", "visitor_id"]).doNothing())
      .returning(["experiment_id", "variant"])
      .execute();
    for (const r of inserted) {
      statsDelta(deltas, r.experiment_id, r.variant).e++;
      touched.add(r.experiment_id);
    }
  }
  await bumpStats(trx, deltas);
}

/**
 * Applies the auto-complete rule to running A/B and multivariate experiments; true when one
 * completed. Bandits are left running: reallocating traffic is their way of acting on the result.
 */
export async function autoComplete(trx: Trx, ids: string[]): Promise<boolean> {
  const rows = await trx
    .selectFrom("experiments")
    .selectAll()
    .where("id", "in", ids)
    .where("status", "=", "running")
    .where("mode", "!=", "bandit")
    .execute();
  const counts = await loadCounts(trx, rows);
  let completed = false;
  for (const row of rows) {
    const c = counts.get(row.id)!;
    // Cheap gate first: the closed-form posterior is only computed once every arm has its sample.
    if (c.variants.some((v) => v.exposures < Number(row.min_sample_per_variant))) continue;
    const { results } = resultsOf(row, c);
    const winner = decideWinner(results, Number(row.min_sample_per_variant));
    if (winner === null) continue;
    await completeExperiment(trx, row, "significance", { winner, method: "sequential" });
    completed = true;
  }
  return completed;
}
