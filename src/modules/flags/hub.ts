import { appSlot, type ServiceDeps } from "../../platform/deps.js";
import { createNotifier, type FlagsNotifier } from "./notifier.js";
import { payloadCache } from "./sdk-cache.js";
import { streamOptions } from "./stream-limits.js";
import { FlagStreams } from "./streams.js";

/**
 * This process's change side of the flags: the open SDK streams, and the notifier that tells every
 * process about a change. Each change, this process's or another's, drops the project's cached
 * payload (sdk-cache.ts) and pushes the new one to the streams. One per app (an app slot), built
 * at registration so that its subscription hears other processes' changes from the start.
 */
export class FlagsHub {
  readonly streams: FlagStreams;
  private notifier: FlagsNotifier;

  constructor(deps: ServiceDeps) {
    const cache = payloadCache(deps);
    this.streams = new FlagStreams(cache, deps.log, streamOptions(deps.config.flagStreams));
    this.notifier = createNotifier(deps.redis, deps.log, {
      onChange: (projectId) => {
        cache.invalidate(projectId);
        this.streams.changed(projectId);
      },
      onResync: () => {
        cache.clear();
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
