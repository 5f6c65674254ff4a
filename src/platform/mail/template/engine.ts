/**
 * The substitution engine. A template string is parsed once (at save time) into literal parts and
 * references; a render only walks that list, so a send costs microseconds.
 *
 * Syntax: `{{key}}` / `{{user.firstName}}` a variable, or a slot when `key` is a slot id (a variable
 * named like the slot replaces the slot's whole content); `{{#key}}…{{/key}}` a section kept only
 * when the variable is present (optional catalog variables).
 */

export type Ctx = "html" | "text";

type Ref =
  | { t: 0; key: string; path: string[] | null; raw: string }
  | { t: 1; id: string; def: Compiled }
  | { t: 2; key: string; path: string[] | null; body: Compiled };

/** parts.length === refs.length + 1; output = parts[0] + ref0 + parts[1] + … */
export interface Compiled {
  parts: string[];
  refs: Ref[];
}

export type Variables = Record<string, unknown>;

const TOKEN = /\{\{\s*([#/]?)\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const ESC_TEST = /[&<>"']/;
const ESC_RE = /[&<>"']/g;
export function escapeHtml(s: string): string {
  return ESC_TEST.test(s) ? s.replace(ESC_RE, (c) => ESC[c]!) : s;
}

/** Slot default content is plain text: escaped for html, line breaks kept. */
export function slotTextToHtml(s: string): string {
  return escapeHtml(s).replace(/\r?\n/g, "<br>");
}

/**
 * Parses `src`. `slots` maps slot ids to their raw default text (parsed here for `ctx`); slot
 * defaults cannot reference other slots. `literal` maps literal slot-default text into the context.
 */
export function compile(src: string, slots: Record<string, string> | null, ctx: Ctx): Compiled {
  const root: Compiled = { parts: [""], refs: [] };
  const stack: Array<{ c: Compiled; key: string }> = [];
  let cur = root;
  let last = 0;
  const push = (lit: string) => {
    cur.parts[cur.parts.length - 1] += lit;
  };
  for (const m of src.matchAll(TOKEN)) {
    push(src.slice(last, m.index));
    last = m.index! + m[0].length;
    const [raw, sigil, key] = m as unknown as [string, string, string];
    const path = key.includes(".") ? key.split(".") : null;
    if (sigil === "#") {
      const body: Compiled = { parts: [""], refs: [] };
      cur.refs.push({ t: 2, key, path, body });
      cur.parts.push("");
      stack.push({ c: cur, key });
      cur = body;
    } else if (sigil === "/") {
      const open = stack.pop();
      if (!open || open.key !== key) throw new TemplateSyntaxError(`unexpected {{/${key}}}`);
      cur = open.c;
    } else if (slots && Object.hasOwn(slots, key)) {
      const text = slots[key]!;
      const def = ctx === "html" ? compileLiteral(text, slotTextToHtml) : compileLiteral(text, (s) => s);
      cur.refs.push({ t: 1, id: key, def });
      cur.parts.push("");
    } else {
      cur.refs.push({ t: 0, key, path, raw });
      cur.parts.push("");
    }
  }
  push(src.slice(last));
  if (stack.length) throw new TemplateSyntaxError(`{{#${stack[stack.length - 1]!.key}}} is not closed`);
  return root;
}

/** Slot default text: literals mapped (escaped for html), variables only (no slots, no sections). */
function compileLiteral(src: string, mapLiteral: (s: string) => string): Compiled {
  const c: Compiled = { parts: [""], refs: [] };
  let last = 0;
  for (const m of src.matchAll(TOKEN)) {
    const [raw, sigil, key] = m as unknown as [string, string, string];
    if (sigil) continue;
    c.parts[c.parts.length - 1] += mapLiteral(src.slice(last, m.index));
    last = m.index! + raw.length;
    c.refs.push({ t: 0, key, path: key.includes(".") ? key.split(".") : null, raw });
    c.parts.push("");
  }
  c.parts[c.parts.length - 1] += mapLiteral(src.slice(last));
  return c;
}

export class TemplateSyntaxError extends Error {}

/** A scalar variable as text, or undefined when absent (objects and arrays are not values). */
export function lookup(vars: Variables, key: string, path: string[] | null): string | undefined {
  let v: unknown = vars[key];
  if (v === undefined && path && !Object.hasOwn(vars, key)) {
    v = vars;
    for (const p of path) {
      if (v === null || typeof v !== "object" || !Object.hasOwn(v, p)) return undefined;
      v = (v as Record<string, unknown>)[p];
    }
  }
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

/**
 * Renders in one pass. `html` escapes to substituted values only (html); a missing variable keeps
 * its literal placeholder and is added to `missing` when given.
 */
export function render(c: Compiled, vars: Variables, html: boolean, missing: Set<string> | null): string {
  const { parts, refs } = c;
  let out = parts[0]!;
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i]!;
    if (r.t === 0) {
      const v = lookup(vars, r.key, r.path);
      if (v === undefined) {
        missing?.add(r.key);
        out += r.raw;
      } else out += html ? escapeHtml(v) : v;
    } else if (r.t === 1) {
      const v = lookup(vars, r.id, null);
      if (v !== undefined) out += html ? escapeHtml(v) : v;
      else out += render(r.def, vars, html, missing);
    } else {
      const v = lookup(vars, r.key, r.path);
      if (v !== undefined && v !== "") out += render(r.body, vars, html, missing);
    }
    out += parts[i + 1]!;
  }
  return out;
}

/** The variables a template references: required ones, and optional ones (section keys). */
export function referencedKeys(
  c: Compiled,
  out = { required: new Set<string>(), optional: new Set<string>() },
  present: ReadonlySet<string> = new Set(),
) {
  for (const r of c.refs) {
    if (r.t === 0) {
      if (!present.has(r.key)) out.required.add(r.key);
    } else if (r.t === 1) referencedKeys(r.def, out, present);
    else {
      out.optional.add(r.key);
      referencedKeys(r.body, out, new Set([...present, r.key]));
    }
  }
  return out;
}
