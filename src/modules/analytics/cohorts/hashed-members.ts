import { createHash } from "node:crypto";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps, ServiceDeps } from "../../../platform/deps.js";
import { defineReadTask } from "../../../platform/read-pool/task.js";
import { memberIdsSql } from "../engine/cohort-sql.js";
import { EngineQuery } from "../engine/sql.js";
import { cohortRow, definitionSql, targetingIsServerOnly } from "./cohorts.js";
import type { CohortDefinitionT } from "./schema.js";

/**
 * A cohort's members as flag targeting tests them, in hashed form only: `sha256(salt + id)` in
 * hex, GrowthBook's secure-attribute formula, for the visitor ids (`id`) and lead ids (`leadId`)
 * of its people. What an SDK that evaluates locally needs to test a cohort without ever holding
 * a member's id. Computed on a reader thread (it grows with the cohort), hashes included.
 */
export interface HashedMembers {
  id: string[];
  leadId: string[];
  /** more than `limit` ids under an attribute: that list is empty, not partial */
  truncated: ("id" | "leadId")[];
}

export const sha256Hex = (salt: string, value: string) =>
  createHash("sha256")
    .update(salt + value)
    .digest("hex");

async function hashedMembers(
  deps: ReadDeps,
  project: ProjectRef,
  input: { cohortId: string; salt: string; limit: number },
): Promise<HashedMembers> {
  const row = await cohortRow(deps, project, input.cohortId);
  const def = JSON.parse(row.definition) as CohortDefinitionT;
  const q = new EngineQuery();
  const members = await definitionSql(q, deps, project, def, Date.now(), targetingIsServerOnly(row, def));
  // One past the limit per attribute: whether it was reached.
  const rows = await deps.engine.query<{ attribute: "id" | "leadId"; value: string }>(
    ...q.bound(memberIdsSql(q, project, members, input.limit + 1)),
  );
  const out: HashedMembers = { id: [], leadId: [], truncated: [] };
  for (const r of rows) out[r.attribute].push(sha256Hex(input.salt, r.value));
  for (const attribute of ["id", "leadId"] as const)
    if (out[attribute].length > input.limit) {
      out[attribute] = [];
      out.truncated.push(attribute);
    }
  return out;
}

export const hashedMembersTask = defineReadTask(
  "analytics.cohort-hashed-members",
  (ctx, project, input: { cohortId: string; salt: string; limit: number }) =>
    hashedMembers(ctx, project, input),
);

/** The cohort's members hashed with `salt`, at most `limit` per attribute (flags' server payload). */
export const cohortHashedMembers = (
  deps: Pick<ServiceDeps, "reads">,
  project: ProjectRef,
  cohortId: string,
  opts: { salt: string; limit: number },
): Promise<HashedMembers> => deps.reads.run(hashedMembersTask, project, { cohortId, ...opts });
