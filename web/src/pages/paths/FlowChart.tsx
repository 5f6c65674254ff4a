import type { Link } from "./model";

const W = 760;
const H = 320;
const NODE_W = 12;
const GAP = 10;

interface Node {
  name: string;
  col: number;
  size: number;
  y: number;
  h: number;
  outAt: number;
  inAt: number;
}

/**
 * The paths as a flow (Sankey-like): a column per step, the start first (or last, for paths that
 * led to it), node heights and band widths in proportion to sessions. The table beside it holds
 * the same figures for screen readers and phones.
 */
export function FlowChart({
  start,
  sessions,
  links,
  steps,
  before,
}: {
  start: string;
  /** sessions that reached the start: its node's size (those that ended there have no band) */
  sessions: number;
  links: Link[];
  steps: number;
  before: boolean;
}) {
  if (links.length === 0) return null;
  const cols: Map<string, Node>[] = Array.from({ length: steps + 1 }, () => new Map());
  const node = (col: number, name: string) => {
    let n = cols[col]!.get(name);
    if (!n) {
      n = { name, col, size: 0, y: 0, h: 0, outAt: 0, inAt: 0 };
      cols[col]!.set(name, n);
    }
    return n;
  };
  node(0, start).size = sessions;
  for (const l of links) node(l.step, l.to).size += l.sessions;
  const used = cols.filter((c) => c.size > 0);
  const total = Math.max(...used.map((c) => [...c.values()].reduce((n, x) => n + x.size, 0)));
  const most = Math.max(...used.map((c) => c.size));
  const scale = (H - GAP * (most - 1)) / total;
  const x = (col: number) => {
    const k = before ? used.length - 1 - col : col;
    return (k * (W - NODE_W)) / Math.max(1, used.length - 1);
  };
  for (const c of used) {
    let y = 0;
    for (const n of [...c.values()].sort((a, b) => b.size - a.size)) {
      n.y = y;
      n.h = Math.max(2, n.size * scale);
      y += n.h + GAP;
    }
  }
  const bands = links.map((l) => {
    const from = cols[l.step - 1]!.get(l.from)!;
    const to = cols[l.step]!.get(l.to)!;
    const w = Math.max(1, l.sessions * scale);
    const y0 = from.y + from.outAt + w / 2;
    const y1 = to.y + to.inAt + w / 2;
    from.outAt += w;
    to.inAt += w;
    const x0 = x(from.col) + (before ? 0 : NODE_W);
    const x1 = x(to.col) + (before ? NODE_W : 0);
    const mid = (x0 + x1) / 2;
    return {
      key: `${l.step}-${l.from}-${l.to}`,
      d: `M${x0},${y0} C${mid},${y0} ${mid},${y1} ${x1},${y1}`,
      w,
      l,
    };
  });
  return (
    // A scrollable region must be reachable by keyboard (phones scroll the chart sideways).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="flow-scroll" aria-label="Flow chart" tabIndex={0}>
      <svg
        className="flow"
        viewBox={`-4 -4 ${W + 8} ${H + 8}`}
        role="img"
        aria-label={`Flow of sessions ${before ? "before" : "after"} ${start}: ${links.length} links, shown in the table below`}
      >
        {bands.map((b) => (
          <path key={b.key} d={b.d} strokeWidth={b.w} className="flow-band">
            <title>{`${b.l.from} → ${b.l.to}: ${b.l.sessions} sessions`}</title>
          </path>
        ))}
        {used.flatMap((c) =>
          [...c.values()].map((n) => (
            <g key={`${n.col}-${n.name}`}>
              <rect x={x(n.col)} y={n.y} width={NODE_W} height={n.h} className="flow-node" />
              <text
                x={x(n.col) + (x(n.col) > W / 2 ? -4 : NODE_W + 4)}
                y={n.y + n.h / 2}
                dominantBaseline="middle"
                textAnchor={x(n.col) > W / 2 ? "end" : "start"}
                className="flow-label"
              >
                {`${n.name.length > 28 ? `${n.name.slice(0, 27)}…` : n.name} (${n.size})`}
              </text>
            </g>
          )),
        )}
      </svg>
    </section>
  );
}
