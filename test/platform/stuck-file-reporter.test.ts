import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { statOf } from "../stuck-file-reporter.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "lift-stuck-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether `pid` still runs: a killed process its parent has not reaped yet is a zombie (state Z). */
const running = (pid: number) => {
  try {
    return statOf(readFileSync(`/proc/${pid}/stat`, "utf8")).state !== "Z";
  } catch {
    return false;
  }
};

describe("the stuck-file reporter", () => {
  it("names a file whose worker is blocked past its timeout, ends the run failed, and leaves no worker", async () => {
    const pidFile = path.join(dir, "worker.pid");
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, "node_modules/vitest/vitest.mjs"),
        "run",
        "--config",
        "test/fixtures/stuck/vitest.config.ts",
      ],
      {
        cwd: ROOT,
        env: { ...process.env, LIFT_TEST_STUCK_MS: "2000", STUCK_PID_FILE: pidFile },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr!.on("data", (c) => {
      err += c;
    });
    child.stdout!.resume();
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code).toBe(1);
    expect(err).toMatch(/\[stuck\] \S*stuck\.fixture\.ts has run for \d+ s/);
    expect(err).toMatch(/\[stuck\] ending the run: \S*stuck\.fixture\.ts/);
    // The blocked worker's main thread, as the kernel sees it: running or waiting, named.
    expect(err).toContain("threads (pid/tid name state wait):");
    const worker = Number(readFileSync(pidFile, "utf8"));
    await new Promise((r) => setTimeout(r, 200));
    expect(running(worker)).toBe(false);
  }, 60_000);
});
