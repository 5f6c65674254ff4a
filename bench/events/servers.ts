/** Lift as the events benchmarks run it, and their load shape (a browser user agent, so nothing is flagged as a bot). */
import { type LoadResult, type Running, load, startNode } from "../lib/servers.js";

export { type LoadResult, startNode };

/** Starts Lift (bench/events/lift-server.ts) on a fresh SQLite data dir, with its public key. */
export async function startLift(opts: {
  processors: boolean;
  env?: NodeJS.ProcessEnv;
}): Promise<Running & { publicKey: string }> {
  const s = await startNode("bench/events/lift-server.ts", {
    BENCH_NO_PROCESSORS: opts.processors ? "0" : "1",
    ...opts.env,
  });
  const publicKey = /public key:\s+(\S+)/.exec(s.output())?.[1];
  if (!publicKey) throw new Error(`no public key printed: ${s.output()}`);
  return { ...s, publicKey };
}

const BROWSER = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" };

/** autocannon POST run; `body(i)` builds the i-th request body. */
export function loadEvents(
  url: string,
  connections: number,
  seconds: number,
  body: (i: number) => string,
): Promise<LoadResult> {
  return load({ url, connections, seconds, body, headers: () => BROWSER });
}
