import { buildApp } from "./app.js";
import { loadConfig } from "./config.js";
import path from "node:path";
import { bootstrapIfEmpty } from "./modules/workspace/bootstrap.js";
import { ensurePrivateDir } from "./platform/private-files.js";

const config = loadConfig();
// The data dir holds the database, the secret key and the mail outbox: the server's user's only.
ensurePrivateDir(config.dataDir);
const app = await buildApp(config);
const created = await bootstrapIfEmpty(app.db, {
  adminEmail: config.adminEmail,
  adminPassword: config.adminPassword,
});
if (created) {
  // Printed once, on the first start of an empty database; never logged afterwards.
  process.stdout.write(
    [
      "",
      "Lift is set up. Keep these credentials; they are not shown again.",
      `  admin email:      ${created.admin.email}`,
      `  admin password:   ${config.adminPassword ? "(from ADMIN_PASSWORD)" : created.password}`,
      `  project id:       ${created.project.id}`,
      `  public key:       ${created.project.publicKey}`,
      `  project API key:  ${created.key.rawKey}`,
      "",
    ].join("\n"),
  );
}
await app.listen({ port: config.port, host: config.host });
if (!config.smtpUrl)
  app.log.warn(
    `SMTP_URL is not set: email is written as .eml files to ${path.resolve(config.dataDir, "outbox")}, not sent to recipients`,
  );
if (config.startWorkers) {
  app.worker.start();
  catchUpAnalytics();
}

/**
 * The analytics engine takes what the database holds now rather than at the first report: after a
 * first start over a large store or an upgrade that rebuilds the copy, reports answer 503 with
 * Retry-After until it has (analytics/engine/thread.ts), and the log says when that ends.
 */
function catchUpAnalytics(): void {
  const started = performance.now();
  app.deps.engine.sync?.().then(
    (events) => {
      if (events > 0)
        app.log.info(
          { events, seconds: Math.round((performance.now() - started) / 100) / 10 },
          "analytics engine caught up",
        );
    },
    (err: unknown) => app.log.error({ err }, "analytics engine: catching up failed"),
  );
}

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
