import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Names a test file that runs far longer than any file should, and shows what its process is
 * doing. The longest file takes about a minute; a file still running after `STUCK_AFTER_MS` is
 * stuck, in a way its own timeouts cannot end (a test's and a hook's timeouts are timers of the
 * worker, which do not fire while its main thread is blocked in native code). Without this, such a
 * run waits until CI's own limit and says nothing of which file it was.
 *
 * It prints the file, every process under vitest with its state, each thread's kernel wait
 * channel and (where gdb is installed, as .ci/run does) the native stacks of the test workers;
 * after `GIVE_UP_AFTER_MS` it ends the run with a failure.
 */
const STUCK_AFTER_MS = Number(process.env.LIFT_TEST_STUCK_MS ?? 5 * 60_000);
const GIVE_UP_AFTER_MS = STUCK_AFTER_MS * 2;

export default class StuckFileReporter implements Reporter {
  private readonly running = new Map<string, { since: number; reported: boolean }>();
  private timer: NodeJS.Timeout | undefined;

  onInit() {
    this.timer = setInterval(() => this.look(), Math.min(15_000, STUCK_AFTER_MS / 4));
    this.timer.unref();
  }

  onTestModuleQueued(m: TestModule) {
    this.running.set(m.moduleId, { since: Date.now(), reported: false });
  }

  onTestModuleEnd(m: TestModule) {
    this.running.delete(m.moduleId);
  }

  onTestRunEnd() {
    clearInterval(this.timer);
  }

  private look() {
    const now = Date.now();
    for (const [file, r] of this.running) {
      const ran = now - r.since;
      if (ran >= STUCK_AFTER_MS && !r.reported) {
        r.reported = true;
        const rows = descendants();
        process.stderr.write(
          `\n[stuck] ${file} has run for ${Math.round(ran / 1000)} s\n${processes(rows)}\n`,
        );
        process.stderr.write(`${nativeStacks(rows)}\n`);
      }
      if (ran >= GIVE_UP_AFTER_MS) {
        process.stderr.write(`\n[stuck] ending the run: ${file} has run for ${Math.round(ran / 1000)} s\n`);
        const rows = descendants();
        process.stderr.write(`${processes(rows)}\n`);
        // Left behind, a worker whose runner is gone spins on its dead channel and grows.
        for (const { pid } of rows) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // ended meanwhile
          }
        }
        process.exit(1);
      }
    }
  }
}

type ProcessRow = { pid: number; line: string; depth: number };

/** The processes under this one, parents before children, with their depth. */
function descendants(): ProcessRow[] {
  let rows: { pid: number; ppid: number; line: string }[];
  try {
    rows = execFileSync("ps", ["-eo", "pid=,ppid=,stat=,etime=,args="], { encoding: "utf8", timeout: 5_000 })
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => {
        const [pid, ppid] = line.trim().split(/\s+/, 2).map(Number);
        return { pid: pid!, ppid: ppid!, line: line.trim().slice(0, 300) };
      });
  } catch {
    return [];
  }
  const found: ProcessRow[] = [];
  const walk = (pid: number, depth: number) => {
    for (const r of rows.filter((row) => row.ppid === pid)) {
      found.push({ pid: r.pid, line: r.line, depth });
      walk(r.pid, depth + 1);
    }
  };
  walk(process.pid, 0);
  return found;
}

/** The processes under this one (pid, state, age, command) and each thread's wait channel. */
function processes(rows: ProcessRow[]): string {
  const tree = rows.map((r) => `${"  ".repeat(r.depth)}${r.line}`).join("\n");
  const waits = rows.flatMap((r) => threadWaits(r.pid));
  return `${tree}\nthreads (pid/tid name state wait):\n${waits.join("\n")}`;
}

function threadWaits(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map((tid) => {
      const { name, state } = statOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
      return `${pid}/${tid} ${name} ${state} ${readFileSync(`/proc/${pid}/task/${tid}/wchan`, "utf8")}`;
    });
  } catch {
    return []; // the process ended meanwhile
  }
}

/**
 * A `/proc/<pid>/stat` line's command name, state (R running, S sleeping, D disk wait, Z zombie …)
 * and process group.
 */
export function statOf(stat: string): { name: string; state: string; group: number } {
  const close = stat.lastIndexOf(")");
  // after "(comm)": state, ppid, pgrp, …
  const fields = stat.slice(close + 2).split(" ");
  return { name: stat.slice(stat.indexOf("(") + 1, close), state: fields[0]!, group: Number(fields[2]) };
}

/** Each test worker's native threads' stacks, by gdb: where a blocked main thread waits. */
function nativeStacks(rows: ProcessRow[]): string {
  const out: string[] = [];
  const workers = rows.filter((r) => r.depth === 0 && r.line.includes("vitest"));
  for (const { pid } of workers) {
    try {
      out.push(
        `gdb -p ${pid}:`,
        execFileSync("gdb", ["-batch", "-p", String(pid), "-ex", "thread apply all bt 12"], {
          encoding: "utf8",
          timeout: 60_000,
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
    } catch (err) {
      out.push(`(gdb on ${pid} failed: ${(err as Error).message.split("\n")[0]})`);
    }
  }
  return out.join("\n");
}
