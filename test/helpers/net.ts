import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (for child servers and peers in tests). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls `cond` until it holds or `ms` pass (for servers starting, jobs landing). */
export async function waitFor(
  cond: () => Promise<boolean> | boolean,
  ms = 10_000,
  every = 20,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
