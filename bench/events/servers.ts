/** Lift as the events benchmarks run it, and their load shape (a browser user agent, so nothing is flagged as a bot). */
import { LIFT_NODE_ARGS, type LoadResult, type Running, load, startNode } from "../lib/servers.js";

export { type LoadResult, startNode };

/** Starts Lift (bench/events/lift-server.ts) on a fresh SQLite data dir, with its public and API keys. */
export async function startLift(opts: {
  processors: boolean;
  env?: NodeJS.ProcessEnv;
}): Promise<Running & { publicKey: string; apiKey: string }> {
  const s = await startNode(
    "bench/events/lift-server.ts",
    { BENCH_NO_PROCESSORS: opts.processors ? "0" : "1", ...opts.env },
    "/healthz",
    LIFT_NODE_ARGS,
  );
  const publicKey = /public key:\s+(\S+)/.exec(s.output())?.[1];
  const apiKey = /api key:\s+(\S+)/.exec(s.output())?.[1];
  if (!publicKey || !apiKey) throw new Error(`no keys printed: ${s.output()}`);
  return { ...s, publicKey, apiKey };
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

/** The single-event load: the i-th snippet pageview, 5,000 visitors over 100 URLs (one project key). */
export const singleEventBody = (key: string) => (i: number) =>
  JSON.stringify({
    type: "pageview",
    visitorId: `v${i % 5000}`,
    projectKey: key,
    url: `https://shop.example.com/p/${i % 100}?utm_source=newsletter&utm_medium=email`,
    referrer: "https://www.google.com/",
    data: { plan: "pro", i },
  });
