/**
 * The request bodies of the Segment batch benchmarks: the same events in Lift's batch format and in
 * Segment's, 100 a request (segment-batch.bench.ts measures them, profile-segment.ts profiles them).
 */
export const PER_REQUEST = 100;
const POOL = 200;
export const VISITORS = Number(process.env.BENCH_VISITORS ?? 20_000);

/** The i-th event, as both formats carry it. */
export const eventOf = (i: number) => ({
  type: i % 10 === 0 ? "Added to Cart" : "Product Viewed",
  visitorId: `v${i % VISITORS}`,
  url: `https://shop.example.com/p/${i % 100}`,
  referrer: i % 7 === 0 ? "https://www.google.com/" : undefined,
  data: { plan: "pro", i },
  timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
});

/** Lift's batch format: prebuilt bodies, reused (nothing in them must be unique). */
export function liftBodies(key: string): () => string {
  const pool = Array.from({ length: POOL }, (_, b) =>
    JSON.stringify({
      projectKey: key,
      events: Array.from({ length: PER_REQUEST }, (_, j) => eventOf(b * PER_REQUEST + j)),
    }),
  );
  let n = 0;
  return () => pool[n++ % POOL]!;
}

/**
 * Segment's batch as analytics-node sends it. Every request needs its own messageIds (a repeat
 * would be deduplicated, not stored), so each pooled body is kept in parts around them and joined
 * with the request's number.
 */
export function segmentBodies(lean = false): { body: () => string; sent: () => number } {
  // Survives JSON.stringify as it is (a control character would be escaped).
  const MARK = "@REQUEST@";
  const pool = Array.from({ length: POOL }, (_, b) =>
    JSON.stringify({
      batch: Array.from({ length: PER_REQUEST }, (_, j) => {
        const e = eventOf(b * PER_REQUEST + j);
        const page = { url: e.url, ...(e.referrer ? { referrer: e.referrer } : {}) };
        const track = {
          type: "track",
          event: e.type,
          anonymousId: e.visitorId,
          properties: e.data,
          timestamp: e.timestamp,
        };
        if (lean) return { ...track, messageId: `m-${MARK}-${j}`, context: { page } };
        return {
          ...track,
          context: {
            library: { name: "@segment/analytics-node", version: "3.1.0" },
            page,
          },
          integrations: {},
          messageId: `node-next-${MARK}-${j}`,
          _metadata: { nodeVersion: "20.20.2", jsRuntime: "node" },
        };
      }),
      writeKey: "unused",
      sentAt: new Date().toISOString(),
    }).split(MARK),
  );
  let n = 0;
  return {
    body: () => {
      const i = n++;
      return pool[i % POOL]!.join(String(i));
    },
    sent: () => n,
  };
}
