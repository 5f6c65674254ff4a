import { defineJob } from "../../platform/jobs/index.js";
import { recomputeBanditWeights } from "./bandit.js";
import { appendExperimentEvidence } from "./evidence.js";
import { BANDIT_JOB, EVIDENCE_JOB } from "./schema.js";

/** The experiments module's jobs; `onChange` drops a project's cached active list. */
export function experimentJobs(onChange: (projectId: string) => void) {
  return [
    defineJob(BANDIT_JOB, {
      retry: [30],
      async run(_payload, { handle }) {
        for (const projectId of await recomputeBanditWeights(handle.db)) onChange(projectId);
      },
    }),
    defineJob(EVIDENCE_JOB, {
      retry: [5, 30, 300, 1800],
      run: ({ experimentId }, { handle }) => appendExperimentEvidence(handle.db, experimentId),
    }),
  ];
}
