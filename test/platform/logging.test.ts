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
    const a = await t.tenant();
    let shareToken = "";
    try {
      await app.inject({ url: "/api/goals", headers: { "x-api-key": a.apiKey, cookie: a.adminCookie } });
      await app.inject({ url: "/api/connectors/crm/callback?code=SECRETCODE123&state=STATEVALUE" });
      await app.inject({ url: `/api/nothing/here?code=SECRETCODE123&key=${a.apiKey}` });
      // A dashboard's public link and an invitation carry their token in the path (issue 34).
      const board = await a.post("/api/dashboards", { name: "Logged?" });
      shareToken = (await a.post(`/api/dashboards/${board.body.id}/share`)).body.token;
      await app.inject({ url: `/api/shared/dashboards/${shareToken}` });
      await app.inject({ url: `/api/shared/dashboards/${shareToken}x` }); // 404: its line is written
      await app.inject({ url: `/share/${shareToken}`, headers: { accept: "text/html" } });
      await app.inject({ url: "/api/invites/svc_inv_SECRETINVITE123" }); // 404: its line is written
    } finally {
      await app.close(); // writes the summary of successful requests
      await t.close();
    }
    const all = lines.join("");
    expect(all).toContain('"GET /api/goals 2xx":1'); // the summary counts it …
    expect(all).toMatch(/"url":"\/api\/nothing\/here\?code=\[redacted\]&key=\[redacted\]","status":404/); // … a refusal has its line
    expect(all).not.toContain(a.apiKey);
    expect(all).not.toContain(a.adminCookie.split("=")[1]!);
    expect(all).not.toContain("SECRETCODE123");
    expect(all).not.toContain("STATEVALUE");
    expect(shareToken).toMatch(/^svc_share_/);
    expect(all).toContain("/api/shared/dashboards/svc_share_[redacted]");
    expect(all).not.toContain(shareToken.slice("svc_share_".length));
    expect(all).not.toContain("SECRETINVITE123");
  });

  it("log refusals and slow requests one line each, and successes once a minute in a summary", async () => {
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
      logger: { level: "info", stream: sink } as never,
    });
    try {
      for (let i = 0; i < 50; i++) await app.inject({ url: "/healthz" });
      const res = await app.inject({ url: "/api/goals" }); // 401
      expect(lines).toHaveLength(1);
      const refused = JSON.parse(lines[0]!);
      expect(refused).toMatchObject({
        msg: "request refused",
        status: 401,
        method: "GET",
        url: "/api/goals",
      });
      // The error body names the request its log line names, unique across processes.
      expect(refused.reqId).toMatch(/^req_[0-9a-f-]{36}$/);
      expect(res.json().requestId).toBe(refused.reqId);
    } finally {
      await app.close();
      await t.close();
    }
    const summary = JSON.parse(lines.at(-1)!);
    expect(summary).toMatchObject({
      msg: "requests in the last minute",
      requests: 50,
      byRoute: { "GET /healthz 2xx": 50 },
    });
  });
});
