import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { etagOf } from "./active.js";

const here = fileURLToPath(import.meta.url);
/**
 * The snippet in the form this file runs as: the TypeScript sources under tsx and vitest
 * (src/snippet/index.ts), the compiled JavaScript in the production build (dist/snippet/index.js,
 * compiled with the server), so the build needs no copy of the sources.
 */
export const SNIPPET_ENTRY = path.join(
  path.dirname(here),
  "..",
  "..",
  "snippet",
  `index${path.extname(here)}`,
);

export interface SnippetBundle {
  code: string;
  etag: string;
  gzipBytes: number;
}

/** Bundles and minifies the snippet (an IIFE for plain <script> tags, ES2017 for old Safari). */
export async function buildSnippet(): Promise<SnippetBundle> {
  const out = await build({
    entryPoints: [SNIPPET_ENTRY],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2017",
    platform: "browser",
    write: false,
    legalComments: "none",
  });
  const code = out.outputFiles[0]!.text;
  return { code, etag: etagOf(code), gzipBytes: gzipSync(code).length };
}

let cached: Promise<SnippetBundle> | null = null;
/** Built once per process on first request, then served from memory. */
export function snippetBundle(): Promise<SnippetBundle> {
  if (!cached) {
    cached = buildSnippet();
    cached.catch(() => {
      cached = null;
    });
  }
  return cached;
}
