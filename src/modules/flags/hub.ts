import type { DbOrTrx } from "../../platform/db/index.js";
import { appSlot, type ServiceDeps } from "../../platform/deps.js";
import { experimentsForFlags } from "../experiments/service.js";
import { createNotifier, type FlagsNotifier } from "./notifier.js";
import { buildPayload, experimentIdsOf } from "./payload.js";
import { PayloadCache } from "./sdk-cache.js";
import { listFlagRows, readRevision, toFlag } from "./store.js";
import { streamOptions } from "./stream-limits.js";
import { FlagStreams } from "./streams.js";

/**
 * This process's SDK side of the flags: the cached payload per project, the open streams, and the
 * notifier that tells every process about a change. One per app (an app slot).
 */
export class FlagsHub {
  readonly cache: PayloadCache;
  readonly streams: FlagStreams;
  private notifier: FlagsNotifier;

  constructor(deps: ServiceDeps) {
    this.cache = new PayloadCache((projectId) => loadPayload(deps.db, projectId));
    this.streams = new FlagStreams(this.cache, deps.log, streamOptions(deps.config.flagStreams));
    this.notifier = createNotifier(deps.redis, deps.log, {
      onChange: (projectId) => {
        this.cache.invalidate(projectId);
        this.streams.changed(projectId);
      },
      onResync: () => {
        this.cache.clear();
        for (const projectId of this.streams.projects()) this.streams.changed(projectId);
      },
    });
  }

  /** A committed change to the project's flags or to an experiment they serve. */
  changed(projectId: string): void {
    this.notifier.publish(projectId);
  }

  async close(): Promise<void> {
    this.streams.closeAll();
    await this.notifier.close();
  }
}

export const FLAGS_HUB = appSlot("flags.hub", (deps) => new FlagsHub(deps));

/**
 * Reads what the project serves now: its revision, then its flags and the experiments they name.
 * In that order: a change committing in between gives new flags under the old dateUpdated, and the
 * rebuild its notification causes then moves dateUpdated (the other order could give new flags
 * under an unchanged dateUpdated, which SDKs would ignore).
 */
async function loadPayload(db: DbOrTrx, projectId: string) {
  const revision = await readRevision(db, projectId);
  const rows = await listFlagRows(db, projectId);
  const flags = rows.map(toFlag);
  const experiments = await experimentsForFlags(db, projectId, experimentIdsOf(flags));
  return {
    revision,
    built: buildPayload(flags, new Map(experiments.map((e) => [e.id, e])), revision.revisedAt),
  };
}
