import { validation } from "../../../platform/errors.js";

/**
 * A trends formula over series letters ("A / B * 100"): numbers, the letters of the series, + - * /,
 * unary minus and parentheses, read by a small recursive-descent parser — never evaluated as code.
 * The schema bounds its length, which bounds the nesting too; a value is null when any series it
 * reads is null or a division is by zero.
 */

export type Formula =
  | { kind: "num"; value: number }
  | { kind: "ref"; letter: string }
  | { kind: "neg"; arg: Formula }
  | { kind: "op"; op: "+" | "-" | "*" | "/"; left: Formula; right: Formula };

type Token = { kind: "num"; value: number } | { kind: "ref"; letter: string } | { kind: "sym"; sym: string };

const MAX_DEPTH = 32;

const isDigit = (c: string) => c >= "0" && c <= "9";
const isLetter = (c: string) => (c >= "A" && c <= "Z") || (c >= "a" && c <= "z");

function tokenize(text: string, bad: (why: string) => never): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t") {
      i++;
    } else if (isDigit(c) || c === ".") {
      let j = i;
      while (j < text.length && (isDigit(text[j]!) || text[j] === ".")) j++;
      const raw = text.slice(i, j);
      const value = Number(raw);
      if (!Number.isFinite(value) || raw === ".") bad(`"${raw}" is not a number`);
      out.push({ kind: "num", value });
      i = j;
    } else if (isLetter(c)) {
      if (i + 1 < text.length && isLetter(text[i + 1]!)) bad("series are single letters (A, B, C …)");
      out.push({ kind: "ref", letter: c.toUpperCase() });
      i++;
    } else if ("+-*/()".includes(c)) {
      out.push({ kind: "sym", sym: c });
      i++;
    } else {
      bad(`unexpected character "${c}"`);
    }
  }
  return out;
}

/** Parses `text`; `letters` are the series there are. 400 naming `where` for anything else. */
export function parseFormula(text: string, letters: string[], where: string): Formula {
  const bad = (why: string): never => {
    throw validation(`${where}: ${why}`);
  };
  const tokens = tokenize(text, bad);
  let pos = 0;
  const peek = () => tokens[pos];
  const isSym = (s: string) => {
    const t = peek();
    return t?.kind === "sym" && t.sym === s;
  };
  const expr = (depth: number): Formula => {
    if (depth > MAX_DEPTH) bad("too deeply nested");
    let left = term(depth);
    while (isSym("+") || isSym("-")) {
      const op = (tokens[pos++] as { sym: "+" | "-" }).sym;
      left = { kind: "op", op, left, right: term(depth) };
    }
    return left;
  };
  const term = (depth: number): Formula => {
    let left = unary(depth);
    while (isSym("*") || isSym("/")) {
      const op = (tokens[pos++] as { sym: "*" | "/" }).sym;
      left = { kind: "op", op, left, right: unary(depth) };
    }
    return left;
  };
  const unary = (depth: number): Formula => {
    if (isSym("-")) {
      pos++;
      if (depth > MAX_DEPTH) bad("too deeply nested");
      return { kind: "neg", arg: unary(depth + 1) };
    }
    return atom(depth);
  };
  const atom = (depth: number): Formula => {
    const t = peek();
    if (t === undefined) return bad("the expression ends too early");
    pos++;
    if (t.kind === "num") return t;
    if (t.kind === "ref") {
      if (!letters.includes(t.letter)) bad(`no series ${t.letter} (there are ${letters.join(", ")})`);
      return t;
    }
    if (t.sym === "(") {
      const inner = expr(depth + 1);
      if (!isSym(")")) bad('a "(" is not closed');
      pos++;
      return inner;
    }
    return bad(`unexpected "${t.sym}"`);
  };
  const f = expr(0);
  if (pos < tokens.length) bad(`unexpected "${describe(tokens[pos]!)}"`);
  return f;
}

const describe = (t: Token) => (t.kind === "num" ? String(t.value) : t.kind === "ref" ? t.letter : t.sym);

/** The formula's value for the series' values (null: a missing value, or a division by zero). */
export function evaluate(f: Formula, value: (letter: string) => number | null): number | null {
  switch (f.kind) {
    case "num":
      return f.value;
    case "ref":
      return value(f.letter);
    case "neg": {
      const x = evaluate(f.arg, value);
      return x === null ? null : -x;
    }
    case "op": {
      const a = evaluate(f.left, value);
      const b = evaluate(f.right, value);
      if (a === null || b === null) return null;
      if (f.op === "/" && b === 0) return null;
      const r = f.op === "+" ? a + b : f.op === "-" ? a - b : f.op === "*" ? a * b : a / b;
      return Number.isFinite(r) ? r : null;
    }
  }
}
