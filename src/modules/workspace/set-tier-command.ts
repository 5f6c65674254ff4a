import { parseArgs } from "node:util";
import { loadConfig } from "../../config.js";
import { openDatabase } from "../../platform/db/index.js";
import { migrateDatabase } from "../../platform/db/migrate.js";
import { AppError } from "../../platform/errors.js";
import { TIERS } from "./schema.js";
import { findWorkspaceByAdminEmail, setWorkspaceTier } from "./service.js";
import type { Tier } from "./tables.js";

export const USAGE = `usage: lift set-tier <workspace id | a user's email> <tier>

Sets a workspace's plan tier (${TIERS.join(", ")}): the transactional sends per minute it may make.
The tier is the operator's setting: a workspace admin cannot change it in the dashboard or API.
Uses the server's database (DATABASE_URL, else $DATA_DIR/lift.db); the server may keep running.`;

/** `lift set-tier`: returns the exit status. */
export async function setTierCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [target, tier] = positionals;
  if (!target || !tier || positionals.length !== 2 || !(TIERS as readonly string[]).includes(tier)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const handle = openDatabase(loadConfig());
  try {
    await migrateDatabase(handle);
    const workspaceId = target.includes("@") ? await findWorkspaceByAdminEmail(handle.db, target) : target;
    const ws = await setWorkspaceTier(handle.db, workspaceId, tier as Tier);
    process.stdout.write(`workspace ${ws.id} (${ws.name}) is now on the ${ws.tier} tier\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  } finally {
    await handle.close();
  }
}
