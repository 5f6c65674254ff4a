import { useSearchParams } from "react-router";

export type PeriodName = "7d" | "30d" | "90d" | "custom";
export interface PeriodQuery {
  period: PeriodName;
  from?: string;
  to?: string;
}

const PRESETS = new Set<string>(["7d", "30d", "90d"]);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY = 86_400_000;

/** The period the URL names (`?period=7d`, `?period=custom&from=…&to=…`), or null when it names none. */
export function periodInUrl(params: URLSearchParams): PeriodQuery | null {
  const p = params.get("period");
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  if (p === "custom" && ISO_DATE.test(from) && ISO_DATE.test(to)) return { period: "custom", from, to };
  return p && PRESETS.has(p) ? { period: p as PeriodName } : null;
}

/** Writes a period into the URL, or takes it out (null). */
function withPeriod(prev: URLSearchParams, next: PeriodQuery | null): URLSearchParams {
  const out = new URLSearchParams(prev);
  for (const k of ["period", "from", "to"]) out.delete(k);
  if (next) out.set("period", next.period);
  if (next?.period === "custom" && next.from && next.to) {
    out.set("from", next.from);
    out.set("to", next.to);
  }
  return out;
}

/** The page's period, kept in the URL so links keep it; 30 days when the URL names none. */
export function usePeriod(): [PeriodQuery, (next: PeriodQuery) => void] {
  const [params, setParams] = useSearchParams();
  const value = periodInUrl(params) ?? { period: "30d" };
  return [value, (next) => setParams((prev) => withPeriod(prev, next), { replace: true })];
}

/** A period kept in the URL that may be unset (a dashboard's: unset, each tile keeps its own). */
export function useOptionalPeriod(): [PeriodQuery | null, (next: PeriodQuery | null) => void] {
  const [params, setParams] = useSearchParams();
  return [periodInUrl(params), (next) => setParams((prev) => withPeriod(prev, next), { replace: true })];
}

const dayNumber = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY);
const isoOf = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** The period of the same length just before [from, to] (inclusive ISO dates). */
export function previousPeriod(from: string, to: string): { from: string; to: string } {
  const a = dayNumber(from);
  const b = dayNumber(to);
  return { from: isoOf(a - (b - a + 1)), to: isoOf(a - 1) };
}

export const todayIso = () => new Date().toISOString().slice(0, 10);
export const daysAgoIso = (n: number) => isoOf(dayNumber(todayIso()) - n);
