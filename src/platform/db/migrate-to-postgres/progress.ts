import cliProgress from "cli-progress";

export interface Progress {
  /** `done` is the table's total so far, including rows of earlier runs */
  update(done: number): void;
  finish(): void;
}

/** Lines on a non-terminal stderr (CI logs, `2> file`): at most one per this many ms per table. */
const LINE_EVERY_MS = 2000;

const seconds = (s: number) =>
  !Number.isFinite(s) ? "?" : s < 60 ? `${Math.ceil(s)}s` : `${Math.floor(s / 60)}m${Math.ceil(s % 60)}s`;

/**
 * A table's progress on stderr: a bar when stderr is a terminal, plain periodic lines otherwise
 * (a bar redrawn with carriage returns is unreadable in a log). The rate counts this run's rows
 * only, so a resumed table's ETA is not flattered by rows copied before.
 */
export function tableProgress(
  label: string,
  total: number,
  start: number,
  width: number,
  /** leaves no trace when done (the verification, whose result is the report) */
  transient = false,
): Progress {
  const name = label.padEnd(width);
  const began = performance.now();
  const stats = (done: number) => {
    const elapsed = (performance.now() - began) / 1000;
    const rate = elapsed > 0 ? (done - start) / elapsed : 0;
    return { rate: Math.round(rate).toLocaleString("en"), left: seconds((total - done) / rate) };
  };
  if (total === 0) return { update() {}, finish() {} };
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: `${name} [{bar}] {value}/{total} rows | {rate} rows/s | ETA {left}`,
        barsize: 30,
        hideCursor: false,
        clearOnComplete: transient,
        formatValue: (v, _o, type) =>
          type === "value" || type === "total" ? v.toLocaleString("en") : String(v),
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, start, { rate: "-", left: "?" });
    return {
      update: (done) => bar.update(done, stats(done)),
      finish: () => bar.stop(),
    };
  }
  // Lines only past the first interval, so a small table makes one line, not three.
  let last = performance.now();
  let done = start;
  const line = (what: string) => process.stderr.write(`${name} ${what}\n`);
  return {
    update(n) {
      done = n;
      const now = performance.now();
      if (now - last < LINE_EVERY_MS) return;
      last = now;
      const s = stats(n);
      line(`${n}/${total} rows (${((100 * n) / total).toFixed(1)}%) ${s.rate} rows/s ETA ${s.left}`);
    },
    finish() {
      if (transient) return;
      const elapsed = (performance.now() - began) / 1000;
      line(`${done}/${total} rows, ${elapsed.toFixed(1)} s (${stats(done).rate} rows/s)`);
    },
  };
}
