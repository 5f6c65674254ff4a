import { defineJob, exponentialBackoff } from "../../platform/jobs.js";
import type { LiftModule } from "../index.js";
import { goalRoutes } from "./routes.js";
import { RECOMPUTE_JOB, recomputeGoals } from "./service.js";

export const goalsModule: LiftModule = {
  name: "goals",
  async register(app) {
    await app.register(goalRoutes);
    app.jobs.define(
      defineJob<{ projectId: string; workspaceId: string }>({
        type: RECOMPUTE_JOB,
        retry: exponentialBackoff(5, 2),
        run: async (p, ctx) =>
          recomputeGoals(ctx.registry, ctx.handle.db, { id: p.projectId, workspaceId: p.workspaceId }),
      }),
    );
    // Pace changes with time even when no event arrives, so statuses are refreshed hourly.
    app.worker.addSchedule("goals.refresh-all", 3_600_000);
    app.jobs.define(
      defineJob({
        type: "goals.refresh-all",
        retry: [],
        run: async (_p, ctx) => {
          const projects = await ctx.handle.db
            .selectFrom("goals")
            .select(["project_id", "workspace_id"])
            .distinct()
            .execute();
          for (const p of projects)
            await recomputeGoals(ctx.registry, ctx.handle.db, {
              id: p.project_id,
              workspaceId: p.workspace_id,
            });
        },
      }),
    );
  },
};
