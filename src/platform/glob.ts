/**
 * Wildcard patterns (`*` matches any run of characters, everything else is literal, anchored at
 * both ends) matched in time linear in the pattern and the text.
 *
 * Patterns come from callers — conversion goals, funnel steps, experiment target URLs — and are
 * matched against URLs that anyone holding a page's public key can send. A regex built as
 * `^a.*b.*c$` backtracks: `*a*a*a*a*a*a*b` against 120 `a`s held the event loop for minutes. A
 * `*`-only glob needs no backtracking at all: the literal pieces between stars must appear in
 * order, and taking each at its leftmost place never loses a match (a later place only leaves
 * less room for the rest). Each piece is found with Knuth–Morris–Pratt, which never moves
 * backwards in the text, so a match costs O(pattern + text) whatever the input.
 *
 * No Node or DOM imports: the browser snippet bundles this file too.
 */
export interface Glob {
  test(text: string): boolean;
}

/** KMP failure table: for each prefix of `s`, the length of its longest proper border. */
function borders(s: string): Int32Array {
  const table = new Int32Array(s.length);
  let k = 0;
  for (let i = 1; i < s.length; i++) {
    while (k > 0 && s.charCodeAt(i) !== s.charCodeAt(k)) k = table[k - 1]!;
    if (s.charCodeAt(i) === s.charCodeAt(k)) k++;
    table[i] = k;
  }
  return table;
}

/** The first index ≥ from where `piece` occurs wholly before `end`, or -1. */
function find(text: string, piece: string, table: Int32Array, from: number, end: number): number {
  let k = 0;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    while (k > 0 && c !== piece.charCodeAt(k)) k = table[k - 1]!;
    if (c === piece.charCodeAt(k)) k++;
    if (k === piece.length) return i - k + 1;
  }
  return -1;
}

/** Compiles a `*` pattern; `caseInsensitive` compares lower-cased pattern and text. */
export function compileGlob(pattern: string, opts: { caseInsensitive?: boolean } = {}): Glob {
  const fold = opts.caseInsensitive ? (s: string) => s.toLowerCase() : (s: string) => s;
  const pieces = fold(pattern).split("*");
  if (pieces.length === 1) {
    const exact = pieces[0]!;
    return { test: (text) => fold(text) === exact };
  }
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  const middle = pieces
    .slice(1, -1)
    .filter((p) => p.length > 0)
    .map((p) => ({ piece: p, table: borders(p) }));
  return {
    test(input) {
      const text = fold(input);
      if (text.length < head.length + tail.length) return false;
      if (!text.startsWith(head) || !text.endsWith(tail)) return false;
      const end = text.length - tail.length;
      let at = head.length;
      for (const m of middle) {
        const found = find(text, m.piece, m.table, at, end);
        if (found < 0) return false;
        at = found + m.piece.length;
      }
      return true;
    },
  };
}
