import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { redactUrl } from "../../src/platform/log-redaction.js";
import { startTestApp } from "../helpers/app.js";

describe("request logs", () => {
  it("redact one-time codes and signatures from logged URLs", () => {
    expect(redactUrl("/api/connectors/crm/callback?code=abc123&state=xyz&x=1")).toBe(
      "/api/connectors/crm/callback?code=[redacted]&state=[redacted]&x=1",
    );
    expect(redactUrl("/t/c?u=https%3A%2F%2Fa.com&sig=deadbeef")).toBe(
      "/t/c?u=https%3A%2F%2Fa.com&sig=[redacted]",
    );
  });

  it("never write an API key, cookie or OAuth code into a log line", async () => {
    const t = await startTestApp();
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
    try {
      const a = await t.tenant();
      await app.inject({ url: "/api/goals", headers: { "x-api-key": a.apiKey, cookie: a.adminCookie } });
      await app.inject({ url: "/api/connectors/crm/callback?code=SECRETCODE123&state=STATEVALUE" });
      const all = lines.join("");
      expect(all).toContain("/api/goals");
      expect(all).not.toContain(a.apiKey);
      expect(all).not.toContain(a.adminCookie.split("=")[1]!);
      expect(all).not.toContain("SECRETCODE123");
      expect(all).not.toContain("STATEVALUE");
    } finally {
      await app.close();
      await t.close();
    }
  });
});
