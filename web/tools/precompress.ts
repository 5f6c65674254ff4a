import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const COMPRESSIBLE = /\.(js|css|svg|json|html|txt|map)$/;

/**
 * Writes `<file>.br` and `<file>.gz` beside each text asset, at the highest levels (done once per
 * build, so the server never compresses per request). A compressed copy that is not smaller is
 * not written: the server then sends the original.
 */
export function precompress(dir: string): { file: string; bytes: number; gzip: number; brotli: number }[] {
  const out: { file: string; bytes: number; gzip: number; brotli: number }[] = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      out.push(...precompress(file));
      continue;
    }
    if (!COMPRESSIBLE.test(name)) continue;
    const raw = readFileSync(file);
    const gz = gzipSync(raw, { level: 9 });
    const br = brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
    if (br.length < raw.length) writeFileSync(`${file}.br`, br);
    out.push({ file, bytes: raw.length, gzip: gz.length, brotli: br.length });
  }
  return out;
}
