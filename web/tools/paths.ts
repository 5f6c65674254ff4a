import { fileURLToPath } from "node:url";

/** Folders of the dashboard build (web/). */
export const WEB_DIR = fileURLToPath(new URL("../", import.meta.url));
export const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
export const DIST_DIR = fileURLToPath(new URL("../dist/", import.meta.url));
/** Generated from the API's OpenAPI document at every build; not committed (see docs/dashboard.md). */
export const API_TYPES_FILE = fileURLToPath(new URL("../src/api/schema.d.ts", import.meta.url));
