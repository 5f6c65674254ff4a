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

/** The page's period, kept in the URL (`?period=7d`, `?period=custom&from=…&to=…`) so links keep it. */
export function usePeriod(): [PeriodQuery, (next: PeriodQuery) => void] {
  const [params, setParams] = useSearchParams();
  const p = params.get("period") ?? "30d";
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  const value: PeriodQuery =
    p === "custom" && ISO_DATE.test(from) && ISO_DATE.test(to)
      ? { period: "custom", from, to }
      : { period: PRESETS.has(p) ? (p as PeriodName) : "30d" };
  const set = (next: PeriodQuery) =>
    setParams(
      (prev) => {
        const out = new URLSearchParams(prev);
        out.set("period", next.period);
        out.delete("from");
        out.delete("to");
        if (next.period === "custom" && next.from && next.to) {
          out.set("from", next.from);
          out.set("to", next.to);
        }
        return out;
      },
      { replace: true },
    );
  return [value, set];
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
