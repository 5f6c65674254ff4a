// The server's rule itself (src/platform/csv-cell.ts, a file without imports), so a CSV downloaded
// from a table is neutralised exactly as the API's exports are.
import { neutraliseCell } from "../../../src/platform/csv-cell.js";

export { neutraliseCell };

/** One field per RFC 4180: quoted when it holds a comma, a quote or a line break. */
function field(value: string): string {
  const safe = neutraliseCell(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** CSV text of the rows (a header row first), every cell neutralised, CRLF line ends. */
export function toCsv(rows: string[][]): string {
  return `${rows.map((r) => r.map(field).join(",")).join("\r\n")}\r\n`;
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
