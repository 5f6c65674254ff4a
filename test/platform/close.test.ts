import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../helpers/net.js";

/**
 * Closing the embedded database ends its checkpoint thread and then the app's connection. The
 * thread does not keep a process alive while it runs, so closing must: a process whose last work
 * is `close()` (a script, a shutdown on SIGTERM) once ended while close() still waited for the
 * thread, before the connection was closed: a script exited with code 13 (unsettled top-level
 * await) and left the WAL behind. The server's shutdown is checked alike.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), "lift-close-"));
  dirs.push(d);
  return d;
}

/** Starts `node --import tsx <args>` in the repository, SQLite only; `exit` settles when it ends. */
function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.REDIS_URL;
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  child.stderr.on("data", (c) => {
    out += c;
  });
  const exit = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, out })),
  );
  return { child, exit };
}

describe("closing the embedded database", () => {
  it("a script whose last step is close() gets past it and exits 0, the WAL folded in", async () => {
    const dir = tempDir();
    const script = path.join(dir, "close.mts");
    const src = (p: string) => pathToFileURL(path.join(ROOT, p)).href;
    writeFileSync(
      script,
      `import { loadConfig } from ${JSON.stringify(src("src/config.ts"))};
import { openDatabase } from ${JSON.stringify(src("src/platform/db/index.ts"))};
const config = { ...loadConfig({}, { dataDir: ${JSON.stringify(dir)}, secretKey: "t" }), databaseUrl: undefined };
const handle = openDatabase(config);
handle.sqlite.exec("create table t (x integer)");
handle.sqlite.prepare("insert into t values (1)").run();
await handle.close();
console.log("closed");
`,
    );
    const { code, out } = await run([script]).exit;
    expect(out).toContain("closed");
    expect(code, out).toBe(0);
    // The app's connection was closed, the last one: SQLite checkpointed and removed the WAL.
    expect(existsSync(path.join(dir, "lift.db-wal"))).toBe(false);
  });

  it("the server on SIGTERM closes its database before it exits", async () => {
    const dir = tempDir();
    const port = await freePort();
    const server = run(["src/main.ts"], {
      DATA_DIR: dir,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
    });
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      60_000,
      100,
    );
    server.child.kill("SIGTERM");
    const result = await server.exit;
    expect(result.code, result.out).toBe(0);
    expect(existsSync(path.join(dir, "lift.db"))).toBe(true);
    expect(existsSync(path.join(dir, "lift.db-wal")), result.out).toBe(false);
  }, 60_000);
});
