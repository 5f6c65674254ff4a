import { chmodSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, call, type LiftProcess, type LiftStore, liftStore } from "../hardening/lift-process.js";

/**
 * Issue 31, item 9: DATA_DIR is private. Before, lift.db and the outbox's .eml files (with
 * verification codes) were 0644 in a 0755 folder: readable by every user of the machine.
 */
const mode = (p: string) => statSync(p).mode & 0o777;

let store: LiftStore;
let lift: LiftProcess;
beforeAll(async () => {
  store = await liftStore("private");
  // An install from before this rule: the folder and a stray file are open to everyone.
  chmodSync(store.dataDir, 0o755);
  writeFileSync(path.join(store.dataDir, "secret.key"), "k".repeat(43), { mode: 0o644 });
  chmodSync(path.join(store.dataDir, "secret.key"), 0o644);
  lift = await store.start();
}, 90_000);
afterAll(async () => store?.dispose());

describe("DATA_DIR", () => {
  it("is 0700 after a start, with the database files 0600", async () => {
    expect(mode(store.dataDir)).toBe(0o700);
    if (!store.databaseUrl) {
      for (const f of ["lift.db", "lift.db-wal", "lift.db-shm"])
        expect([f, mode(path.join(store.dataDir, f))]).toEqual([f, 0o600]);
    }
  });

  it("writes mail to the outbox 0600 in a 0700 folder, and says at start that mail goes to files", async () => {
    expect(lift.output()).toMatch(
      /SMTP_URL is not set: email is written as \.eml files to .*outbox, not sent to recipients/,
    );
    const signIn = await call(lift.base, "POST", "/api/auth/login", { body: ADMIN });
    const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const tx = await call(lift.base, "POST", "/api/transactional-api-keys", {
      headers: { cookie },
      body: { name: "outbox" },
    });
    const sent = await call(lift.base, "POST", "/api/v1/transactional/send", {
      headers: { authorization: `Bearer ${tx.body.rawKey}` },
      body: { to: "someone@example.com", subject: "Your code", text: "123456" },
    });
    expect(sent.status).toBe(200);
    const outbox = path.join(store.dataDir, "outbox");
    const deadline = Date.now() + 10_000;
    while (!(readdirSync(store.dataDir).includes("outbox") && readdirSync(outbox).length > 0)) {
      if (Date.now() > deadline) throw new Error("no mail in the outbox");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(mode(outbox)).toBe(0o700);
    for (const f of readdirSync(outbox)) expect(mode(path.join(outbox, f))).toBe(0o600);
  });
});

describe("a SECRET_KEY under 32 bytes", () => {
  it("stops the start with a message that says why and how to make one", async () => {
    const short = await liftStore("shortkey");
    try {
      await expect(short.start({ SECRET_KEY: "only-twenty-bytes!!!" })).rejects.toThrow(
        /SECRET_KEY is 20 bytes;.*at least 32/,
      );
    } finally {
      await short.dispose();
    }
  }, 60_000);
});
