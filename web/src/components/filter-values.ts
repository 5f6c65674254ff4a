/**
 * A filter condition's several values, as the editor keeps them: its chips (`value`) and the text
 * still typed (`pending`). No imports, so tests under the server's TypeScript settings read it too.
 */
interface Values {
  value?: string | string[] | number | boolean;
  pending?: string;
}

/** Several values typed or pasted at once: commas, semicolons, tabs and line breaks separate them. */
export const splitValues = (text: string) =>
  text
    .split(/[,;\t\r\n]+/)
    .map((v) => v.trim())
    .filter(Boolean);

/** A condition's values as a list: the API's array, or its one value. */
export const valuesOf = (v: Values["value"]): string[] =>
  Array.isArray(v) ? v : v === undefined || v === "" ? [] : [String(v)];

/** A condition as the API takes it: text still being typed joins its values (one, or an array). */
export function withoutPending<C extends Values>({ pending, ...c }: C): Omit<C, "pending"> {
  const typed = splitValues(pending ?? "");
  if (typed.length === 0) return c;
  const all = [...new Set([...valuesOf(c.value), ...typed])];
  return { ...c, value: all.length === 1 ? all[0] : all };
}
