import { stringify } from "csv-stringify/sync";
import { neutraliseCell } from "./csv-cell.js";

export { neutraliseCell };

/** CSV text of the rows (RFC 4180 quoting), every string cell neutralised. Every CSV Lift serves goes through here. */
export function toCsv(rows: unknown[][]): string {
  return stringify(rows, { cast: { string: neutraliseCell } });
}
