import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");

/** A sample payload of a platform's documented shape, parsed (tests change ids and times). */
// biome-ignore lint/suspicious/noExplicitAny: test payloads are edited freely before signing
export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(path.join(dir, name), "utf8")) as T;
}
