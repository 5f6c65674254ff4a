import client from "prom-client";
import type { ReadPool } from "./pool.js";

/** The read pool's load on /metrics: reports waiting for a reader thread, and running. */
export function registerReadPoolMetrics(registry: client.Registry, pool: ReadPool): void {
  new client.Gauge({
    name: "lift_read_pool_queued",
    help: "Reports waiting for a reader thread",
    registers: [registry],
    collect() {
      this.set(pool.load.queued);
    },
  });
  new client.Gauge({
    name: "lift_read_pool_running",
    help: "Reports running on reader threads",
    registers: [registry],
    collect() {
      this.set(pool.load.running);
    },
  });
}
