/**
 * Initial JavaScript of the built dashboard, gzipped and brotli-compressed (budget: 200 KB gzip).
 * Reads web/dist (run `npm run build` first): `npx tsx bench/dashboard/initial-js.bench.ts`.
 */
import { initialAssets, initialJsGzip } from "../../web/tools/bundle-size.js";

const BUDGET = 200 * 1024;
const assets = initialAssets();
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log("| file | raw | gzip | brotli |\n| --- | --- | --- | --- |");
for (const a of assets) console.log(`| ${a.file} | ${kb(a.bytes)} | ${kb(a.gzip)} | ${kb(a.brotli)} |`);
const js = initialJsGzip(assets);
console.log(`\ninitial JavaScript: ${kb(js)} gzipped (budget ${kb(BUDGET)})`);
if (js > BUDGET) process.exitCode = 1;
