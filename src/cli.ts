/**
 * `lift <command>`: operator commands that run beside the server, not in it (the server itself is
 * `npm start`).
 */
const COMMANDS: Record<string, { summary: string; run: (argv: string[]) => Promise<number> }> = {
  "migrate-to-postgres": {
    summary: "copy the embedded SQLite database into PostgreSQL, resumable, verified at the end",
    // Loaded on demand: a command's dependencies (database drivers) stay out of the others' start.
    run: async (argv) =>
      (await import("./platform/db/migrate-to-postgres/command.js")).migrateToPostgres(argv),
  },
  analytics: {
    summary: "analytics rebuild: copy every stored event into the analytics engine again, with progress",
    run: async (argv) =>
      (await import("./modules/analytics/engine/rebuild-command.js")).analyticsCommand(argv),
  },
  "set-tier": {
    summary: "set a workspace's plan tier (an operator's setting, not a workspace admin's)",
    run: async (argv) => (await import("./modules/workspace/set-tier-command.js")).setTierCommand(argv),
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(22)}${c.summary}`);
  return `usage: lift <command> [options]   (lift <command> --help for its options)\n\ncommands:\n${lines.join("\n")}\n`;
}

const [name, ...rest] = process.argv.slice(2);
const command = name ? COMMANDS[name] : undefined;
if (!command) {
  const asked = name === "help" || name === "--help" || name === "-h";
  process.stderr.write(`${name && !asked ? `unknown command: ${name}\n\n` : ""}${usage()}`);
  process.exitCode = asked ? 0 : 2;
} else {
  try {
    process.exitCode = await command.run(rest);
  } catch (err) {
    // An unexpected failure (connection refused, a driver error): its message, not a stack dump.
    process.stderr.write(`error: ${(err as Error).message}\n`);
    if (process.env.LIFT_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 2;
  }
}
