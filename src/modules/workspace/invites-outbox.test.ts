import { readdirSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { buildApp } from "../../app.js";
import { sha256Hex } from "../../platform/crypto.js";

/**
 * Without SMTP_URL, mail only reaches DATA_DIR/outbox: nobody receives an invitation. The answer
 * says so instead of "sent", and carries the link for the inviting admin to hand over — once.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publicUrl: "https://lift.example.com" });
});
afterAll(async () => t.close());

describe("an invitation without a mail server", () => {
  it("says no mail was sent, answers the link once, lists it without the link, and the link works", async () => {
    expect(t.config.smtpUrl).toBeUndefined();
    const a = await t.tenant();
    const email = `nomail-${Date.now()}@example.com`;
    const res = await a.post("/api/workspace/invites", { email, role: "member" }, { as: "admin" });
    expect(res.status).toBe(201);
    expect(res.body.delivery).toMatchObject({
      status: "outbox",
      error: expect.stringContaining("SMTP_URL"),
      sendId: expect.stringMatching(/^snd_/),
    });
    expect(res.body.acceptUrl).toMatch(/^https:\/\/lift\.example\.com\/invite\/svc_inv_[A-Za-z0-9]{43}$/);
    const token = (res.body.acceptUrl as string).split("/invite/")[1]!;
    // the operator's outbox holds the message; Lift keeps only the token's hash
    expect(readdirSync(path.join(t.config.dataDir, "outbox")).some((f) => f.endsWith(".eml"))).toBe(true);
    const row = await t.app.db
      .selectFrom("workspace_invites")
      .selectAll()
      .where("id", "=", res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);

    // listed later: no link, and the delivery still says it was not sent
    const list = await a.get("/api/workspace/invites", { as: "admin" });
    expect(list.body[0]).toMatchObject({
      id: res.body.id,
      status: "pending",
      delivery: { status: "outbox" },
    });
    expect(JSON.stringify(list.body)).not.toContain(token);

    const accepted = await t.app.inject({
      method: "POST",
      url: `/api/invites/${token}`,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ password: "handed over by hand" }),
    });
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json().user).toMatchObject({ email, role: "member" });
  });

  it("never writes the link into a log line", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const app = await buildApp(t.config, {
      handle: t.app.dbHandle,
      logger: { level: "trace", stream: sink } as never,
    });
    const a = await t.tenant();
    let token = "";
    try {
      const res = await app.inject({
        method: "POST",
        url: "/api/workspace/invites",
        headers: { "content-type": "application/json", cookie: a.adminCookie },
        payload: JSON.stringify({ email: `logged-${Date.now()}@example.com`, role: "admin" }),
      });
      expect(res.statusCode).toBe(201);
      token = (res.json().acceptUrl as string).split("/invite/")[1]!;
      await app.inject({ url: `/api/invites/${token}` });
    } finally {
      await app.close();
    }
    expect(token).toMatch(/^svc_inv_/);
    expect(lines.join("")).not.toContain(token.slice("svc_inv_".length));
  });
});
