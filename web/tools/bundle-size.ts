import { readFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { DIST_DIR } from "./paths.js";

export interface InitialAsset {
  file: string;
  bytes: number;
  gzip: number;
  brotli: number;
}

/**
 * What the browser must download before the app runs: the shell's entry script, the chunks it
 * preloads (static imports) and its stylesheets. Page areas, uPlot and the charts are later chunks.
 */
export function initialAssets(dist = DIST_DIR): InitialAsset[] {
  const shell = readFileSync(path.join(dist, "index.html"), "utf8");
  const refs = [...shell.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  return [...new Set(refs)].map((ref) => {
    const raw = readFileSync(path.join(dist, ref));
    return {
      file: ref,
      bytes: raw.length,
      gzip: gzipSync(raw, { level: 9 }).length,
      brotli: brotliCompressSync(raw).length,
    };
  });
}

/** Gzipped bytes of the initial JavaScript (the budget is 200 KB). */
export const initialJsGzip = (assets = initialAssets()) =>
  assets.filter((a) => a.file.endsWith(".js")).reduce((n, a) => n + a.gzip, 0);
