import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import { appSlot, type ServiceDeps } from "../../platform/deps.js";
import { payloadCache } from "./sdk-cache.js";
import { streamOptions } from "./stream-limits.js";
import { FlagStreams } from "./streams.js";

/**
 * This process's change side of the flags: the open SDK streams, and the notifier (below) that
 * tells every process about a change. Each change, this process's or another's, drops the project's cached
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

/**
 * Tells every API process that a project's flags (or an experiment they serve) changed, so each
 * drops its cached payload and pushes the new one to its streams. One process: a direct call.
 * With REDIS_URL: Redis pub/sub, so processes over one PostgreSQL all push within milliseconds.
 * A message lost to a Redis outage is caught up by the payload cache's TTL and, after a
 * reconnect, by `onResync` (every cached payload is rebuilt).
 */
interface FlagsNotifier {
  /** After the change committed. Never throws: the change is made, only its fan-out may lag. */
  publish(projectId: string): void;
  close(): Promise<void>;
}

const FLAGS_CHANNEL = "lift:flags:changed";

interface NotifierHooks {
  onChange(projectId: string): void;
  /** Messages may have been missed (the subscription was re-established). */
  onResync(): void;
}

function createNotifier(
  redis: Redis | undefined,
  log: FastifyBaseLogger,
  hooks: NotifierHooks,
): FlagsNotifier {
  if (!redis) {
    return {
      publish: (projectId) => hooks.onChange(projectId),
      close: async () => {},
    };
  }
  // This process applies its own changes at once and skips their echo.
  const origin = randomUUID();
  // A subscribed connection can run no other command: a connection of its own, which queues the
  // SUBSCRIBE until it is connected (the shared one fails fast instead) and resubscribes itself.
  const sub = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  let readyBefore = false;
  sub.on("ready", () => {
    if (readyBefore) hooks.onResync();
    readyBefore = true;
  });
  // The shared connection's watcher reports Redis outages; this one only must not crash or print.
  sub.on("error", () => {});
  sub.on("message", (_channel: string, message: string) => {
    const cut = message.indexOf(" ");
    if (cut < 0 || message.slice(0, cut) === origin) return;
    hooks.onChange(message.slice(cut + 1));
  });
  sub.subscribe(FLAGS_CHANNEL).catch((err: unknown) => log.warn({ err }, "flags: Redis subscribe failed"));
  return {
    publish(projectId) {
      hooks.onChange(projectId);
      redis.publish(FLAGS_CHANNEL, `${origin} ${projectId}`).catch((err: unknown) => {
        log.warn({ err, projectId }, "flags: change not published to other processes (Redis)");
      });
    },
    async close() {
      // QUIT would wait in the offline queue for a Redis that is not there: closing must not hang.
      if (sub.status === "ready") await sub.quit().catch(() => sub.disconnect());
      else sub.disconnect();
    },
  };
}
