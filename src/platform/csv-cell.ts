/**
 * A cell a spreadsheet would run as a formula (OWASP, "CSV Injection"): one starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return gets a leading `'`, which spreadsheets show as text. Event
 * types, URLs and data come from anyone holding a page's public key and land in an admin's sheet.
 *
 * No imports: the dashboard's CSV download (web/src/components/csv.ts) runs this same function in
 * the browser.
 */
export function neutraliseCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
