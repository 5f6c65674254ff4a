import type { ReactNode } from "react";
import type { CsvColumn } from "./csv";

/** What a table body needs of a column (DataTable's, and the experiments' grouped table's). */
export interface CellColumn<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Right-aligned numbers. */
  numeric?: boolean;
  /** Left out of the CSV download (buttons, links that are actions). */
  noCsv?: boolean;
}

/**
 * A DataTable column. A numeric one must say its raw value for the CSV download (`csv`): the
 * cell's text is for reading ("3,252.00", "12.3%", "–") and a spreadsheet would take it as text.
 */
export type Column<T> = CellColumn<T> &
  CsvColumn<T> &
  ({ numeric?: false } | { numeric: true; csv: NonNullable<CsvColumn<T>["csv"]> });

/**
 * A table's body, shared by DataTable and the experiments' grouped table: one cell per column,
 * numbers right-aligned (the CSV download reads the columns, not these cells). `colKey` names a
 * column where headers repeat (the same header under two groups).
 */
export function TableRows<T, C extends CellColumn<T>>({
  rows,
  rowKey,
  columns,
  colKey = (c) => c.header,
  rowTestId,
}: {
  rows: T[];
  rowKey: (row: T) => string;
  columns: C[];
  colKey?: (c: C) => string;
  /** A `data-testid` on every row, for tests that read a row's cells. */
  rowTestId?: string;
}) {
  return (
    <tbody>
      {rows.map((r) => (
        <tr key={rowKey(r)} data-testid={rowTestId}>
          {columns.map((c) => (
            <td key={colKey(c)} className={c.numeric ? "num" : undefined}>
              {c.cell(r)}
            </td>
          ))}
        </tr>
      ))}
    </tbody>
  );
}

/** An "Actions" column with one dangerous button per row (delete, revoke), left out of the CSV. */
export function dangerColumn<T>(p: {
  text: string;
  label: (row: T) => string;
  busy: boolean;
  onClick: (row: T) => void;
}): Column<T> {
  return {
    header: "Actions",
    noCsv: true,
    cell: (r) => (
      <button
        type="button"
        className="button danger small"
        aria-label={p.label(r)}
        disabled={p.busy}
        onClick={() => p.onClick(r)}
      >
        {p.text}
      </button>
    ),
  };
}
