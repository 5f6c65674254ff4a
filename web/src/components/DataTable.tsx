import { useEffect, useRef, useState } from "react";
import { csvFileName, downloadText, tableCsv, toCsv } from "./csv";
import { type Column, TableRows } from "./TableRows";

export type { Column } from "./TableRows";

/**
 * Whether the box is scrolled away from either end: the edges then fade (CSS) and a hint says the
 * table goes on. Measured after layout and on every resize and scroll.
 */
function useOverflow(box: React.RefObject<HTMLElement | null>) {
  const [state, setState] = useState({ left: false, right: false });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      const left = el.scrollLeft > 1;
      setState((s) => (s.left === left && s.right === right ? s : { left, right }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    el.addEventListener("scroll", measure, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener("scroll", measure);
    };
  }, [box]);
  return state;
}

/**
 * A table that scrolls sideways inside its own box on narrow screens (never the page), with a cue
 * when it does, and a CSV download of the rows shown: each column's raw value (numbers as the API
 * gave them) or else the cell's text, neutralised as the API's exports are.
 * The box is focusable so keyboard users can scroll it too.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  rowTestId,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  rowTestId?: string;
}) {
  const box = useRef<HTMLElement>(null);
  const table = useRef<HTMLTableElement>(null);
  const overflow = useOverflow(box);
  const download = () => {
    const body = table.current?.tBodies[0];
    if (!body) return;
    const text = (i: number, j: number) => body.rows[i]?.cells[j]?.textContent ?? "";
    downloadText(toCsv(tableCsv(columns, rows, text)), csvFileName(caption));
  };
  const scroller = (
    // A labelled section is a region; it takes focus so keyboard users can scroll it.
    <section
      ref={box}
      className={`table-scroll${overflow.left ? " fade-left" : ""}${overflow.right ? " fade-right" : ""}`}
      aria-label={caption}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
    >
      <table ref={table}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.numeric ? "num" : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <TableRows rows={rows} rowKey={rowKey} columns={columns} rowTestId={rowTestId} />
      </table>
    </section>
  );
  return (
    <div className="data-table">
      <div className="table-tools">
        {overflow.right && (
          <span className="scroll-hint muted small" aria-hidden="true">
            Scroll sideways for more →
          </span>
        )}
        <button
          type="button"
          className="button secondary small"
          onClick={download}
          aria-label={`Download ${caption} as CSV`}
        >
          CSV
        </button>
      </div>
      {scroller}
    </div>
  );
}
