import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./net.js";

/**
 * A throwaway PostgreSQL cluster of the test's own, from the Debian packages' binaries
 * (/usr/lib/postgresql/<version>/bin), so a test needs no running server: the SQLite CI stage has
 * none. initdb refuses to run as root, so under root (CI) the cluster belongs to the `postgres`
 * user, as in .ci/run. fsync and friends are off: the cluster is thrown away after the test.
 */
export async function startPgCluster(): Promise<{ url: string; stop: () => Promise<void> }> {
  const bin = pgBinDir();
  const dir = mkdtempSync(path.join(tmpdir(), "lift-pgc-"));
  const data = path.join(dir, "data");
  const owner = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (tool: string, args: string[]) =>
    execFileSync(path.join(bin, tool), args, {
      stdio: ["ignore", "pipe", "pipe"],
      ...(owner ? { uid: owner.uid, gid: owner.gid, env: { ...process.env, HOME: dir } } : {}),
    });
  // A test process that dies without running its afterAll (a worker torn down by a signal) must
  // not leave a postmaster behind: a watchdog stops the cluster once this process is gone.
  const watchdog = spawn(
    "sh",
    [
      "-c",
      `while [ -d /proc/${process.pid} ]; do sleep 1; done; "${bin}/pg_ctl" -D "${data}" -m immediate stop; rm -rf "${dir}"`,
    ],
    { detached: true, stdio: "ignore", ...(owner ? { uid: owner.uid, gid: owner.gid } : {}) },
  );
  watchdog.unref();
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    watchdog.kill();
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // not running (start failed): only the directory is left to remove
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stopNow);
  try {
    run("initdb", [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ]);
    // freePort's port may be taken again before the server binds it: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        run("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-o", opts, "-w", "start"]);
        return {
          url: `postgres://postgres@127.0.0.1:${port}/postgres`,
          stop: async () => {
            process.removeListener("exit", stopNow);
            stopNow();
          },
        };
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  } catch (err) {
    process.removeListener("exit", stopNow);
    stopNow();
    throw err;
  }
}

function pgBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL under ${root} (apt-get install postgresql)`);
  return path.join(root, newest, "bin");
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}
