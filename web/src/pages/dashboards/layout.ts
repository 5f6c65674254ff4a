/** A tile as the editor shows it: an insight, its width (of 12 columns) and height (rows). */
export interface TileDraft {
  insightId: string;
  w: number;
  h: number;
}
export interface GridItem extends TileDraft {
  x: number;
  y: number;
}

export const WIDTHS = [
  { value: "4", label: "A third" },
  { value: "6", label: "Half" },
  { value: "8", label: "Two thirds" },
  { value: "12", label: "Full width" },
];

/** Tiles in reading order (top to bottom, left to right): the editor's list. */
export const inOrder = (items: GridItem[]): TileDraft[] =>
  [...items].sort((a, b) => a.y - b.y || a.x - b.x).map(({ insightId, w, h }) => ({ insightId, w, h }));

/**
 * Places tiles left to right in rows of 12 columns; a tile that does not fit starts the next row,
 * under the tallest tile of the row. Tiles never overlap, as the API requires.
 */
export function flow(tiles: TileDraft[]): GridItem[] {
  const out: GridItem[] = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const t of tiles) {
    if (x + t.w > 12) {
      y += rowHeight;
      x = 0;
      rowHeight = 0;
    }
    out.push({ ...t, x, y });
    x += t.w;
    rowHeight = Math.max(rowHeight, t.h);
  }
  return out;
}
