import { ensureWebBuilt } from "../web/tools/ensure-built.js";
import { ensureServerBuilt } from "./build-server.js";

/**
 * `npm start` runs this first: builds the server (dist/) and the dashboard (web/dist) when either
 * is missing or older than its sources, so `npm install && npm start` works on a fresh clone.
 */
try {
  ensureServerBuilt();
} catch (err) {
  // Without a current server build there is nothing to start.
  process.stderr.write(`[server] the server could not be built: ${(err as Error).message}\n`);
  process.exit(1);
}
try {
  await ensureWebBuilt();
} catch (err) {
  // A failed dashboard build does not stop the API from starting: `/` then explains how to build.
  process.stderr.write(`[web] the dashboard could not be built: ${(err as Error).message}\n`);
}
