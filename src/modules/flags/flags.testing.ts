import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Helpers of the flags tests (not used by the app). */

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/flags.md");

/**
 * The code of a snippet in docs/flags.md (between `<!-- snippet:name -->` and `<!-- /snippet -->`),
 * so the tests run exactly what the documentation tells teams to paste.
 */
export function snippetFromDocs(name: string): string {
  const text = readFileSync(DOCS, "utf8");
  // Found by position, no pattern built from the name.
  const open = text.indexOf(`<!-- snippet:${name} -->`);
  const start = open < 0 ? -1 : text.indexOf("```js\n", open);
  const end = start < 0 ? -1 : text.indexOf("```", start + 6);
  if (end < 0 || text.indexOf("<!-- /snippet -->", end) < 0)
    throw new Error(`docs/flags.md has no snippet ${name}`);
  return text.slice(start + 6, end);
}

/** Polls `fn` until it returns a truthy value (an asynchronous outcome, awaited, not slept on). */
export async function until<T>(fn: () => T | Promise<T>, what: string, ms = 5_000, everyMs = 5): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
