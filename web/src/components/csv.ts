// The server's rule itself (src/platform/csv-cell.ts, a file without imports), so a CSV downloaded
// from a table is neutralised exactly as the API's exports are.
import { neutraliseCell } from "../../../src/platform/csv-cell.js";

export { neutraliseCell };

/** A cell's value: the API's number as it is, text, or nothing (an empty cell). */
export type CsvValue = string | number | boolean | null | undefined;

/**
 * One field per RFC 4180: quoted when it holds a comma, a quote or a line break. Text is
 * neutralised; a number is written plainly (no separators, no units, every digit), which no
 * spreadsheet runs as a formula, so a negative one keeps its sign.
 */
function field(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  if (typeof value === "boolean") return String(value);
  const safe = neutraliseCell(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** CSV text of the rows (a header row first), every text cell neutralised, CRLF line ends. */
export function toCsv(rows: CsvValue[][]): string {
  return `${rows.map((r) => r.map(field).join(",")).join("\r\n")}\r\n`;
}

/** What the CSV download needs of a table's column. */
export interface CsvColumn<T> {
  header: string;
  /** The CSV's header where its values differ from the page's, e.g. "Conversion rate (fraction)". */
  csvHeader?: string;
  /** Left out of the download (buttons, links that are actions). */
  noCsv?: boolean;
  /** The raw value (the API's number, a fraction for a percentage); without it, the cell's text. */
  csv?: (row: T) => CsvValue;
}

/** A cell that shows only a dash says "nothing here": an empty cell, not a value. */
const NOTHING = new Set(["—", "–", "-"]);

/**
 * The download's rows: the header, then each row's values — the column's raw value where it has
 * one, else the text the page shows in cell `text(rowIndex, columnIndex)` (column indexes count
 * every column, those left out included).
 */
export function tableCsv<T>(
  columns: CsvColumn<T>[],
  rows: T[],
  text: (row: number, column: number) => string,
): CsvValue[][] {
  const kept = columns.flatMap((c, j) => (c.noCsv ? [] : [{ c, j }]));
  return [
    kept.map(({ c }) => c.csvHeader ?? c.header),
    ...rows.map((row, i) =>
      kept.map(({ c, j }) => {
        if (c.csv) return c.csv(row);
        const shown = text(i, j).trim();
        return NOTHING.has(shown) ? null : shown;
      }),
    ),
  ];
}

/** A file name from a table's caption: "Top channels" → "top-channels.csv". */
export const csvFileName = (caption: string) =>
  `${
    caption
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "table"
  }.csv`;

/** Has the browser save `text` as a file (an object URL on a link with `download`). */
export function downloadText(text: string, fileName: string, type = "text/csv;charset=utf-8"): void {
  // The BOM makes spreadsheets read the file as UTF-8.
  const url = URL.createObjectURL(new Blob(["\uFEFF", text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
