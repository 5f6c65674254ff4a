import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";

/**
 * Tells every API process that a project's flags (or an experiment they serve) changed, so each
 * drops its cached payload and pushes the new one to its streams. One process: a direct call.
 * With REDIS_URL: Redis pub/sub, so processes over one PostgreSQL all push within milliseconds.
 * A message lost to a Redis outage is caught up by the payload cache's TTL and, after a
 * reconnect, by `onResync` (every cached payload is rebuilt).
 */
export interface FlagsNotifier {
  /** After the change committed. Never throws: the change is made, only its fan-out may lag. */
  publish(projectId: string): void;
  close(): Promise<void>;
}

export const FLAGS_CHANNEL = "lift:flags:changed";

export interface NotifierHooks {
  onChange(projectId: string): void;
  /** Messages may have been missed (the subscription was re-established). */
  onResync(): void;
}

export function createNotifier(
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
