import { spawn } from "node:child_process";
import { Socket } from "node:net";
import { freePort } from "./net.js";

export interface RedisServer {
  /** redis://127.0.0.1:<port> (database 0; append /<n> for another database) */
  url: string;
  port: number;
  /** SIGKILLs the server and waits until it has exited (its port is free again). */
  stop: () => Promise<void>;
}

/**
 * A throwaway Redis server of the test's own: Debian's `redis-server` (installed by .ci/run), on
 * 127.0.0.1, nothing persisted. On a free port, or on `port` (a test restarting "the same" Redis
 * after killing it). Resolves once the server answers PING.
 */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const p = port ?? (await freePort());
    const child = spawn(
      "redis-server",
      ["--port", String(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout!.on("data", (c) => {
      out += c;
    });
    child.stderr!.on("data", (c) => {
      out += c;
    });
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    let spawnError: Error | undefined;
    child.once("error", (err) => {
      spawnError = err;
    });
    // A test process that ends without its afterAll must not leave the server behind.
    const killNow = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    process.once("exit", killNow);
    const stop = async () => {
      process.removeListener("exit", killNow);
      killNow();
      await closed;
    };
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (spawnError) {
        process.removeListener("exit", killNow);
        throw new Error(`redis-server did not start (apt-get install redis-server): ${spawnError.message}`);
      }
      if (child.exitCode !== null) break; // the port was taken meanwhile (or another failure)
      if (await answersPing(p)) return { url: `redis://127.0.0.1:${p}`, port: p, stop };
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`redis-server did not start on port ${p}: ${out}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await stop();
    if (port !== undefined || attempt >= 3) throw new Error(`redis-server exited on port ${p}: ${out}`);
  }
}

/** Whether a Redis server on `port` answers PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    let got = "";
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once("error", () => done(false));
    s.on("data", (c) => {
      got += c;
      if (got.includes("\r\n")) done(got.startsWith("+PONG"));
    });
    s.connect(port, "127.0.0.1", () => s.write("PING\r\n"));
  });
}
