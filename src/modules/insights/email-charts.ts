/**
 * Small charts for the subscription mail as inline SVG: the mail carries its pictures itself, so
 * nothing is fetched when it is opened (no tracking pixel by accident, nothing to block). Every
 * label is escaped: names come from users.
 */

export const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const COLORS = ["#4f46e5", "#0891b2", "#d97706", "#db2777", "#16a34a"];
const W = 520;
const H = 140;
const PAD = { left: 8, right: 8, top: 16, bottom: 20 };

const compact = (v: number) =>
  Math.abs(v) >= 1000 ? `${Number((v / 1000).toFixed(1))}k` : String(Number(v.toFixed(2)));

const svgOpen = (label: string, height: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(label)}" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" style="max-width:100%;height:auto;display:block"><title>${esc(label)}</title>`;

export interface ChartLine {
  label: string;
  values: Array<number | null>;
}

/** Lines over shared buckets (at most five drawn), the first and last bucket named under them. */
export function lineChart(title: string, buckets: string[], lines: ChartLine[]): string {
  const drawn = lines.slice(0, COLORS.length);
  const all = drawn.flatMap((l) => l.values.filter((v): v is number => v !== null));
  if (buckets.length === 0 || all.length === 0) return "";
  const max = Math.max(0, ...all);
  const min = Math.min(0, ...all);
  const span = max - min || 1;
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) =>
    PAD.left + (buckets.length === 1 ? innerW / 2 : (i / (buckets.length - 1)) * innerW);
  const y = (v: number) => PAD.top + innerH - ((v - min) / span) * innerH;
  const parts = [svgOpen(title, H)];
  parts.push(
    `<line x1="${PAD.left}" y1="${y(0).toFixed(1)}" x2="${W - PAD.right}" y2="${y(0).toFixed(1)}" stroke="#d1d5db"/>`,
    `<text x="${PAD.left}" y="11" font-size="10" fill="#6b7280" font-family="sans-serif">max ${esc(compact(max))}</text>`,
  );
  drawn.forEach((l, k) => {
    const segments: string[][] = [[]];
    l.values.forEach((v, i) => {
      if (v === null) segments.push([]);
      else segments.at(-1)!.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    });
    for (const seg of segments.filter((s) => s.length > 0))
      parts.push(
        seg.length === 1
          ? `<circle cx="${seg[0]!.split(",")[0]}" cy="${seg[0]!.split(",")[1]}" r="2.5" fill="${COLORS[k]}"/>`
          : `<polyline fill="none" stroke="${COLORS[k]}" stroke-width="2" points="${seg.join(" ")}"/>`,
      );
  });
  const day = (b: string) => esc(b.slice(0, 10));
  parts.push(
    `<text x="${PAD.left}" y="${H - 5}" font-size="10" fill="#6b7280" font-family="sans-serif">${day(buckets[0]!)}</text>`,
    `<text x="${W - PAD.right}" y="${H - 5}" font-size="10" fill="#6b7280" font-family="sans-serif" text-anchor="end">${day(buckets.at(-1)!)}</text>`,
    "</svg>",
  );
  return parts.join("");
}

/** Horizontal bars, one per row (at most ten), each with its label and value. */
export function barChart(title: string, rows: Array<{ label: string; value: number }>): string {
  const shown = rows.slice(0, 10);
  if (shown.length === 0) return "";
  const max = Math.max(...shown.map((r) => r.value), 0) || 1;
  const rowH = 20;
  const height = shown.length * rowH + 4;
  const labelW = 170;
  const barW = W - labelW - 60;
  const parts = [svgOpen(title, height)];
  shown.forEach((r, i) => {
    const top = i * rowH + 2;
    const w = Math.max(1, (Math.max(r.value, 0) / max) * barW);
    const label = r.label.length > 28 ? `${r.label.slice(0, 27)}…` : r.label;
    parts.push(
      `<text x="0" y="${top + 13}" font-size="11" fill="#374151" font-family="sans-serif">${esc(label)}</text>`,
      `<rect x="${labelW}" y="${top + 3}" width="${w.toFixed(1)}" height="12" rx="2" fill="${COLORS[0]}"/>`,
      `<text x="${(labelW + w + 4).toFixed(1)}" y="${top + 13}" font-size="11" fill="#374151" font-family="sans-serif">${esc(compact(r.value))}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("");
}
