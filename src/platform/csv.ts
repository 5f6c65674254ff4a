import { stringify } from "csv-stringify/sync";

/**
 * A cell a spreadsheet would run as a formula (OWASP, "CSV Injection"): one starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return gets a leading `'`, which spreadsheets show as text. Event
 * types, URLs and data come from anyone holding a page's public key and land in an admin's sheet.
 */
export function neutraliseCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** CSV text of the rows (RFC 4180 quoting), every string cell neutralised. Every CSV Lift serves goes through here. */
export function toCsv(rows: unknown[][]): string {
  return stringify(rows, { cast: { string: neutraliseCell } });
}
