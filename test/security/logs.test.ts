import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  type LiftProcess,
  type LiftStore,
  liftStore,
  printedApiKey,
} from "../hardening/lift-process.js";

/**
 * Issue 31, item 5: no secret minted or sent during a run reaches the log. Before, a secret
 * project key passed as `?key=` to a public endpoint was written in the request line.
 */
let store: LiftStore;
let lift: LiftProcess;
beforeAll(async () => {
  store = await liftStore("logs");
  lift = await store.start({ LOG_LEVEL: "info", ALLOW_PRIVATE_WEBHOOK_TARGETS: "1" });
}, 90_000);
afterAll(async () => store?.dispose());

describe("the log after a run", () => {
  it("holds none of the keys, secrets and passwords minted or sent", async () => {
    const apiKey = printedApiKey(lift.output());
    const signIn = await call(lift.base, "POST", "/api/auth/login", { body: ADMIN });
    const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const as = { headers: { cookie } };
    const projects = await call(lift.base, "GET", "/api/projects", as);
    const minted = await call(lift.base, "POST", `/api/projects/${projects.body[0].id}/keys`, {
      ...as,
      body: { name: "logged?" },
    });
    const tx = await call(lift.base, "POST", "/api/transactional-api-keys", {
      ...as,
      body: { name: "logged?" },
    });
    const hook = await call(lift.base, "POST", "/api/webhooks", {
      key: apiKey,
      body: { url: "https://localhost:9/x", events: ["lead.created"] },
    });
    const own = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ownHook = await call(lift.base, "POST", "/api/webhooks", {
      key: apiKey,
      body: { url: "https://localhost:9/y", events: ["lead.created"], secret: own },
    });
    const secrets = [apiKey, minted.body.rawKey, tx.body.rawKey, hook.body.secret, own, ADMIN.password];
    expect([minted.status, tx.status, hook.status, ownHook.status]).toEqual([201, 201, 201, 201]);
    // Secret keys where a page's public key belongs, in query strings and paths.
    for (const key of [apiKey, minted.body.rawKey]) {
      expect((await fetch(`${lift.base}/api/svc-js?key=${key}`)).status).toBe(200);
      await fetch(`${lift.base}/api/experiments/active?key=${encodeURIComponent(key)}&visitorId=v1`);
      await fetch(`${lift.base}/api/nothing-here/${key}?token=${key}`);
    }
    await fetch(`${lift.base}/api/v1/transactional/send?key=${tx.body.rawKey}`, { method: "POST" });
    await call(lift.base, "GET", "/api/goals", {
      headers: { authorization: `Bearer ${minted.body.rawKey}` },
    });
    await call(lift.base, "POST", "/api/events", {
      body: { projectKey: apiKey, visitorId: "v-log", type: "pageview", url: "https://a.example/" },
    });
    await call(lift.base, "POST", "/api/auth/logout", as);
    // A last 404 marks the end: once its line is out, every earlier line is (the log is in order).
    await fetch(`${lift.base}/api/end-of-run-marker`);
    const end = Date.now() + 10_000;
    while (!lift.output().includes("/api/end-of-run-marker")) {
      if (Date.now() > end) throw new Error("the marker's log line never came");
      await new Promise((r) => setTimeout(r, 20));
    }
    // The log lines (JSON), not the first-start banner that shows the first key once by design.
    const log = lift
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .join("\n");
    expect(log).toMatch(/"url":"\/api\/nothing-here\/svc_key_\[redacted\]\?token=\[redacted\]"/); // the log is there …
    for (const s of secrets) expect(log.includes(s), `${s.slice(0, 10)}… in the log`).toBe(false); // … without secrets
    expect(log.includes(cookie.split("=")[1]!)).toBe(false);
  });
});
