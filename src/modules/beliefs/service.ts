import { creationTime } from "../../platform/creation-time.js";
import { withTransaction, type DbOrTrx } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { notFound, validation } from "../../platform/errors.js";
import type { BeliefT, CreateBelief, EvidenceMethodT, UpdateConfidence } from "./schema.js";
import type { BeliefEvidenceTable, BeliefTable } from "./tables.js";
import { updateConfidence } from "./update.js";
import "./tables.js";

export { K, MAX, MIN, updateConfidence } from "./update.js";

function toBelief(r: BeliefTable, evidence: BeliefEvidenceTable[]): BeliefT {
  return {
    id: r.id,
    statement: r.statement,
    confidence: r.confidence,
    tags: JSON.parse(r.tags),
    evidence: evidence.map((e) => ({
      type: e.type,
      ...(e.experiment_id ? { experimentId: e.experiment_id } : {}),
      delta: e.delta,
      ...(e.sample_size !== null ? { sampleSize: e.sample_size } : {}),
      ...(e.method !== null ? { method: e.method } : {}),
      confidenceBefore: e.confidence_before,
      confidenceAfter: e.confidence_after,
      timestamp: e.timestamp,
    })),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

async function evidenceOf(db: DbOrTrx, beliefIds: string[]): Promise<Map<string, BeliefEvidenceTable[]>> {
  const out = new Map<string, BeliefEvidenceTable[]>();
  if (beliefIds.length === 0) return out;
  const rows = await db
    .selectFrom("belief_evidence")
    .selectAll()
    .where("belief_id", "in", beliefIds)
    .orderBy("timestamp", "asc")
    .orderBy("id", "asc")
    .execute();
  for (const r of rows) out.set(r.belief_id, [...(out.get(r.belief_id) ?? []), r]);
  return out;
}

export async function listBeliefs(db: DbOrTrx, project: ProjectRef): Promise<BeliefT[]> {
  const rows = await db
    .selectFrom("beliefs")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  const ev = await evidenceOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toBelief(r, ev.get(r.id) ?? []));
}

/** A belief of the project with its evidence; NOT_FOUND otherwise (also for another project's id). */
export async function getBelief(db: DbOrTrx, project: ProjectRef, id: string): Promise<BeliefT> {
  const row = await db
    .selectFrom("beliefs")
    .selectAll()
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!row) throw notFound("belief", id);
  return toBelief(row, (await evidenceOf(db, [id])).get(id) ?? []);
}

export async function createBelief(db: DbOrTrx, project: ProjectRef, input: CreateBelief): Promise<BeliefT> {
  const t = creationTime();
  const row: BeliefTable = {
    id: newId("blf"),
    project_id: project.id,
    statement: input.statement,
    confidence: input.confidence ?? 0.5,
    tags: JSON.stringify(input.tags ?? []),
    created_at: t,
    updated_at: t,
  };
  await db.insertInto("beliefs").values(row).execute();
  return toBelief(row, []);
}

/**
 * Appends an evidence entry and moves the confidence by the log-odds rule, in one transaction.
 * `method` says how the caller obtained delta (API callers: as reported).
 */
export async function appendEvidence(
  db: DbOrTrx,
  project: ProjectRef,
  beliefId: string,
  input: UpdateConfidence,
  method: EvidenceMethodT = "reported",
): Promise<BeliefT> {
  if (!Number.isFinite(input.delta)) throw validation("body.delta must be a finite number");
  if (input.type === "experiment" && !input.experimentId)
    throw validation("body.experimentId is required when type is experiment");
  return withTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom("beliefs")
      .selectAll()
      .where("id", "=", beliefId)
      .where("project_id", "=", project.id)
      .executeTakeFirst();
    if (!row) throw notFound("belief", beliefId);
    const after = updateConfidence(row.confidence, input.delta, input.sampleSize);
    const t = new Date().toISOString();
    await trx
      .insertInto("belief_evidence")
      .values({
        id: newId("evd"),
        belief_id: beliefId,
        type: input.type,
        experiment_id: input.experimentId ?? null,
        delta: input.delta,
        sample_size: input.sampleSize ?? null,
        method,
        confidence_before: row.confidence,
        confidence_after: after,
        timestamp: t,
      })
      .execute();
    await trx
      .updateTable("beliefs")
      .set({ confidence: after, updated_at: t })
      .where("id", "=", beliefId)
      .execute();
    return getBelief(trx, project, beliefId);
  });
}
