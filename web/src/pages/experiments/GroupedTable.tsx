import type { ReactNode } from "react";
import { TableRows } from "../../components/TableRows";

export interface GroupedColumn<T> {
  header: string;
  /** What the header shows, when not just `header` (e.g. with a line break to keep it narrow). */
  label?: ReactNode;
  /** Consecutive columns of one group share a heading above theirs. */
  group?: string;
  numeric?: boolean;
  cell: (row: T) => ReactNode;
}

/** DataTable's markup (scrolls inside its own box) with a second header row naming column groups. */
export function GroupedTable<T>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: GroupedColumn<T>[];
  rows: T[];
  rowKey: (row: T) => string;
}) {
  const spans: { group?: string; columns: GroupedColumn<T>[] }[] = [];
  for (const c of columns) {
    const last = spans[spans.length - 1];
    if (c.group && last?.group === c.group) last.columns.push(c);
    else spans.push({ group: c.group, columns: [c] });
  }
  const th = (c: GroupedColumn<T>, rowSpan?: number) => (
    <th
      key={`${c.group ?? ""}/${c.header}`}
      scope="col"
      rowSpan={rowSpan}
      className={c.numeric ? "num" : undefined}
    >
      {c.label ?? c.header}
    </th>
  );
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-scroll" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {spans.map((s) =>
              s.group ? (
                <th key={s.group} scope="colgroup" colSpan={s.columns.length}>
                  {s.group}
                </th>
              ) : (
                th(s.columns[0]!, 2)
              ),
            )}
          </tr>
          <tr>{spans.flatMap((s) => (s.group ? s.columns.map((c) => th(c)) : []))}</tr>
        </thead>
        <TableRows
          rows={rows}
          rowKey={rowKey}
          columns={columns}
          colKey={(c) => `${c.group ?? ""}/${c.header}`}
        />
      </table>
    </section>
  );
}
