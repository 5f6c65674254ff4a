import { barChart, esc, lineChart } from "./email-charts.js";
import type { InsightResultT, ResultOf } from "./schema.js";

/**
 * The subscription mail's HTML: each tile's numbers as a table (readable in any client, with
 * images off too) and a small inline SVG chart, then a link back to the dashboard. The numbers are
 * the tiles' answers as the API gives them, formatted as the dashboard formats them.
 */

export interface MailTile {
  name: string;
  description: string | null;
  answer: InsightResultT | null;
  error: { code: string; message: string } | null;
}

const num = (v: number | null | undefined) =>
  v === null || v === undefined ? "–" : v.toLocaleString("en-US", { maximumFractionDigits: 2 });
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
function money(v: number, currency: string | null): string {
  if (!currency) return v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  try {
    return v.toLocaleString("en-US", { style: "currency", currency });
  } catch {
    return `${currency} ${v.toFixed(2)}`;
  }
}

const TH = 'style="text-align:left;font-weight:normal;color:#4b5563;padding:3px 12px 3px 0"';
const TD = 'style="text-align:right;padding:3px 0 3px 12px;font-variant-numeric:tabular-nums"';

/** A two-column table: a label, then its value. */
const pairs = (rows: Array<[string, string]>) =>
  `<table role="presentation" style="border-collapse:collapse;margin:6px 0">${rows
    .map(([k, v]) => `<tr><th scope="row" ${TH}>${esc(k)}</th><td ${TD}>${esc(v)}</td></tr>`)
    .join("")}</table>`;

/** A table with a header row; the first column names the row. */
function grid(head: string[], rows: string[][]): string {
  const h = head.map(
    (c, i) =>
      `<th ${i === 0 ? TH : TD.replace("text-align:right", "text-align:right;color:#4b5563")}>${esc(c)}</th>`,
  );
  const body = rows.map(
    ([first, ...rest]) =>
      `<tr><th scope="row" ${TH}>${esc(first ?? "")}</th>${rest.map((c) => `<td ${TD}>${esc(c)}</td>`).join("")}</tr>`,
  );
  return `<table role="presentation" style="border-collapse:collapse;margin:6px 0"><tr>${h.join("")}</tr>${body.join("")}</table>`;
}

/** Rows a tile shows in the mail at most: a mail stays small; the dashboard has the rest. */
const MAX_ROWS = 20;
const more = (n: number) =>
  n > MAX_ROWS
    ? `<p style="margin:0;color:#6b7280;font-size:12px">and ${n - MAX_ROWS} more on the dashboard</p>`
    : "";

function tileBody(name: string, a: InsightResultT): string {
  switch (a.kind) {
    case "summary": {
      const r = a.result as ResultOf<"summary">;
      return pairs([
        ["Visitors", num(r.visitors)],
        ["Conversions", num(r.conversions)],
        ["Conversion rate", pct(r.conversionRate)],
        ["Revenue", money(r.revenue, r.revenueCurrency)],
        ["Leads", num(r.leads)],
      ]);
    }
    case "timeseries": {
      const r = a.result as ResultOf<"timeseries">;
      return (
        pairs([
          ["Visitors", num(r.totals.visitors)],
          ["Conversions", num(r.totals.conversions)],
          ["Revenue", money(r.totals.revenue, null)],
        ]) +
        lineChart(
          `${name}: visitors and conversions per ${r.interval}`,
          r.points.map((p) => p.date),
          [
            { label: "Visitors", values: r.points.map((p) => p.visitors) },
            { label: "Conversions", values: r.points.map((p) => p.conversions) },
          ],
        )
      );
    }
    case "trends": {
      const r = a.result as ResultOf<"trends">;
      const lines = [...r.series, ...r.formulas];
      const label = (l: (typeof lines)[number]) =>
        l.breakdownValue !== undefined ? `${l.label} (${l.breakdownValue})` : l.label;
      return (
        pairs(lines.slice(0, MAX_ROWS).map((l) => [label(l), num(l.total)])) +
        more(lines.length) +
        lineChart(
          `${name}: per ${r.interval}`,
          (lines[0]?.data ?? []).map((p) => p.bucket),
          lines.map((l) => ({ label: label(l), values: l.data.map((p) => p.value) })),
        )
      );
    }
    case "breakdown": {
      const r = a.result as ResultOf<"breakdown">;
      return (
        grid(
          [r.by, "Visitors", "Conversions", "Revenue"],
          r.rows
            .slice(0, MAX_ROWS)
            .map((x) => [x.key, num(x.visitors), num(x.conversions), money(x.revenue, null)]),
        ) +
        more(r.rows.length) +
        barChart(
          `${name}: visitors by ${r.by}`,
          r.rows.map((x) => ({ label: x.key, value: x.visitors })),
        )
      );
    }
    case "funnel": {
      const steps = (a.result as ResultOf<"funnel">).steps;
      return (
        grid(
          ["Step", "People", "From start"],
          steps.map((s) => [s.label, num(s.count), pct(s.conversionFromStart)]),
        ) +
        barChart(
          `${name}: people per step`,
          steps.map((s) => ({ label: s.label, value: s.count })),
        )
      );
    }
    case "retention": {
      const r = a.result as ResultOf<"retention">;
      return (
        grid(
          ["Cohort", "People", `Returned 1 ${r.interval} later`],
          r.cohorts
            .slice(-MAX_ROWS)
            .map((c) => [c.start, num(c.size), c.returned[1] === undefined ? "–" : num(c.returned[1])]),
        ) + more(r.cohorts.length)
      );
    }
    case "attribution": {
      const r = a.result as ResultOf<"attribution">;
      return (
        grid(
          ["Channel", "Credited conversions", "Revenue"],
          r.channels
            .slice(0, MAX_ROWS)
            .map((c) => [c.channel, num(c.creditedConversions), money(c.revenue, null)]),
        ) +
        more(r.channels.length) +
        barChart(
          `${name}: credited conversions by channel`,
          r.channels.map((c) => ({ label: c.channel, value: c.creditedConversions })),
        )
      );
    }
    case "paths": {
      const r = a.result as ResultOf<"paths">;
      return (
        pairs([[`Sessions at ${r.start}`, num(r.sessions)]]) +
        grid(
          ["Path", "Sessions"],
          r.paths.slice(0, 10).map((p) => [p.nodes.join(" → "), num(p.sessions)]),
        )
      );
    }
  }
}

function tileHtml(t: MailTile): string {
  const head = `<h2 style="font-size:16px;margin:0 0 4px">${esc(t.name)}</h2>`;
  const desc = t.description ? `<p style="margin:0 0 6px;color:#6b7280">${esc(t.description)}</p>` : "";
  const body = t.answer
    ? tileBody(t.name, t.answer)
    : `<p style="color:#b91c1c">No result: ${esc(t.error?.message ?? "this tile could not be computed")}</p>`;
  return `<div style="border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin:0 0 12px">${head}${desc}${body}</div>`;
}

/** The whole mail: a heading, every tile in grid order, and the way back to the dashboard. */
export function subscriptionHtml(m: {
  title: string;
  intro: string;
  link: string;
  linkLabel: string;
  tiles: MailTile[];
  footer: string;
}): string {
  return [
    '<!doctype html><html><body style="margin:0;padding:16px;background:#f9fafb">',
    '<div style="max-width:640px;margin:0 auto;font-family:-apple-system,Segoe UI,Roboto,sans-serif;color:#111827;background:#fff;padding:20px;border-radius:8px">',
    `<h1 style="font-size:20px;margin:0 0 4px">${esc(m.title)}</h1>`,
    `<p style="margin:0 0 16px;color:#6b7280">${esc(m.intro)}</p>`,
    ...m.tiles.map(tileHtml),
    m.tiles.length === 0 ? "<p>This dashboard has no tiles yet.</p>" : "",
    `<p style="margin:16px 0"><a href="${esc(m.link)}" style="background:#4f46e5;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none;display:inline-block">${esc(m.linkLabel)}</a></p>`,
    `<p style="margin:0;color:#6b7280;font-size:12px">${esc(m.footer)}<br>${esc(m.link)}</p>`,
    "</div></body></html>",
  ].join("");
}
