import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { type CsvColumn, tableCsv, toCsv } from "../../web/src/components/csv.js";

/**
 * A table's CSV download holds the API's values, not the page's display text: a spreadsheet reads
 * "3,252.00" or "12.3%" as text and "–" as a value.
 */
interface Row {
  channel: string;
  label: string;
  visitors: number;
  revenue: number | null;
  rate: number | null;
  change: number;
}

const columns: CsvColumn<Row>[] = [
  { header: "Channel" },
  { header: "Visitors", csv: (r) => r.visitors },
  { header: "Revenue", csv: (r) => r.revenue },
  { header: "Conversion rate", csvHeader: "Conversion rate (fraction)", csv: (r) => r.rate },
  { header: "Change", csv: (r) => r.change },
  { header: "Note" },
  { header: "Actions", noCsv: true },
];
const rows: Row[] = [
  {
    channel: "paid_search",
    label: "Paid search",
    visitors: 3252,
    revenue: 3252,
    rate: 0.123456789,
    change: -0.05,
  },
  { channel: "=cmd", label: "=cmd", visitors: 0, revenue: null, rate: null, change: 0 },
];
// What the page shows in each cell (DataTable reads it from the rendered table).
const shown = [
  ["Paid search", "3,252", "3,252.00", "12.3%", "−5.0%", "first", "Delete"],
  ["=cmd", "0", "–", "–", "±0.0%", "—", "Delete"],
];

describe("a table's CSV download", () => {
  it("writes numbers as numbers, missing values as empty cells, rates as named fractions", () => {
    const csv = toCsv(tableCsv(columns, rows, (i, j) => shown[i]![j]!));
    const records: Record<string, unknown>[] = parse(csv, { columns: true, cast: true });
    expect(Object.keys(records[0]!)).toEqual([
      "Channel",
      "Visitors",
      "Revenue",
      "Conversion rate (fraction)",
      "Change",
      "Note",
    ]);
    expect(records[0]).toEqual({
      Channel: "Paid search",
      Visitors: 3252,
      Revenue: 3252,
      "Conversion rate (fraction)": 0.123456789,
      Change: -0.05,
      Note: "first",
    });
    // a formula in text is still neutralised; a dash shown for "nothing" is an empty cell
    expect(records[1]).toEqual({
      Channel: "'=cmd",
      Visitors: 0,
      Revenue: "",
      "Conversion rate (fraction)": "",
      Change: 0,
      Note: "",
    });
    for (const r of records)
      for (const k of ["Visitors", "Change"]) expect(typeof r[k], `${k} is a number`).toBe("number");
  });

  it("never writes a number the way a locale shows it, nor a non-finite one", () => {
    const big = [{ n: 1234567.891 }, { n: Number.NaN }, { n: -0.000012 }];
    const csv = toCsv(tableCsv([{ header: "n", csv: (r: { n: number }) => r.n }], big, () => "x"));
    expect(csv).toBe("n\r\n1234567.891\r\n\r\n-0.000012\r\n");
  });
});
