import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * The process's soft limit of open file descriptors (RLIMIT_NOFILE; Node raises it to the hard
 * limit at start), `Infinity` when unlimited, undefined when it cannot be read. Node has no
 * getrlimit: Linux publishes it in /proc/self/limits; elsewhere a child shell inherits it and
 * `ulimit -n` prints it.
 */
export function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft) return parseLimit(soft);
  } catch {
    // Not Linux (or /proc not mounted): ask a shell.
  }
  try {
    return parseLimit(
      execFileSync("/bin/sh", ["-c", "ulimit -n"], { encoding: "utf8", timeout: 2_000 }).trim(),
    );
  } catch {
    return undefined;
  }
}

function parseLimit(v: string): number | undefined {
  if (v === "unlimited") return Number.POSITIVE_INFINITY;
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
