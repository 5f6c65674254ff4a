import { writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSelfSignedCert } from "../../src/modules/webhooks/receiver.testing.js";
import { call, type LiftStore, liftStore, printedApiKey } from "./lift-process.js";

/**
 * A worker killed while it delivers a webhook: the jobs it had not started are taken by another
 * process at once, the one in flight within 30 s, and the attempt it was making stays in the
 * delivery's attempt log (as unanswered) next to the attempt that succeeded.
 */
let store: LiftStore;
let certFile: string;
const tls = makeSelfSignedCert();
beforeAll(async () => {
  store = await liftStore("jobs");
  certFile = path.join(store.dataDir, "receiver-ca.pem");
  writeFileSync(certFile, tls.cert);
});
afterAll(async () => store?.dispose());

const LEADS = 5;

describe("a worker SIGKILLed during a webhook delivery", () => {
  it("its unstarted jobs and the interrupted one are delivered by another process within 30 s", async () => {
    let hold = true;
    const held: ServerResponse[] = [];
    const received: { id: string; answered: boolean }[] = [];
    const receiver = https.createServer(tls, (req, res) => {
      // The killed sender resets its connection: not an error of this test.
      req.on("error", () => {});
      res.on("error", () => {});
      req.resume();
      req.on("end", () => {
        const id = String(req.headers["webhook-id"]);
        if (hold) {
          received.push({ id, answered: false });
          held.push(res);
          return;
        }
        received.push({ id, answered: true });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as AddressInfo).port;
    const env = { ALLOW_PRIVATE_WEBHOOK_TARGETS: "1", NODE_EXTRA_CA_CERTS: certFile, JOB_POLL_MS: "100" };
    try {
      const a = await store.start(env);
      const key = printedApiKey(a.output());
      const publicKey = /public key:\s+(\S+)/.exec(a.output())![1]!;
      const wh = await call(a.base, "POST", "/api/webhooks", {
        key,
        body: { url: `https://localhost:${port}/hook`, events: ["lead.created"] },
      });
      expect(wh.status).toBe(201);
      for (let i = 0; i < LEADS; i++) {
        const res = await call(a.base, "POST", "/api/identity/stitch", {
          body: { projectKey: publicKey, visitorId: `v${i}`, email: `lead${i}@example.com` },
        });
        expect(res.status).toBe(200);
      }
      const until = async (cond: () => boolean | Promise<boolean>, ms: number) => {
        const deadline = Date.now() + ms;
        while (Date.now() < deadline) {
          if (await cond()) return true;
          await new Promise((r) => setTimeout(r, 100));
        }
        return false;
      };
      expect(await until(() => received.length > 0, 20_000)).toBe(true);
      const interrupted = received[0]!.id;
      await a.kill();
      hold = false;
      for (const res of held) res.destroy();

      const b = await store.start(env);
      const upAt = Date.now();
      const delivered = () => new Set(received.filter((r) => r.answered).map((r) => r.id));
      const allIn = await until(() => delivered().size === LEADS, 30_000);
      const tookMs = Date.now() - upAt;
      console.log(
        `crash-jobs: ${LEADS} deliveries, all delivered ${tookMs} ms after the second process came up`,
      );
      expect(allIn, `delivered ${delivered().size} of ${LEADS} within 30 s`).toBe(true);
      expect(delivered().has(interrupted)).toBe(true);

      const page = await call(b.base, "GET", `/api/webhooks/${wh.body.id}/deliveries?limit=100`, { key });
      expect(page.status).toBe(200);
      const ok = await until(async () => {
        const p = await call(b.base, "GET", `/api/webhooks/${wh.body.id}/deliveries?limit=100`, { key });
        return p.body.data.every((d: { status: string }) => d.status === "succeeded");
      }, 10_000);
      expect(ok).toBe(true);
      const final = await call(b.base, "GET", `/api/webhooks/${wh.body.id}/deliveries?limit=100`, { key });
      expect(final.body.data).toHaveLength(LEADS);
      const retried = final.body.data.find((d: { id: string }) => d.id === interrupted);
      expect(retried.attemptCount).toBe(2);
      expect(
        retried.attempts.map((x: { attempt: number; succeeded: boolean }) => [x.attempt, x.succeeded]),
      ).toEqual(
        expect.arrayContaining([
          [1, false],
          [2, true],
        ]),
      );
      const first = retried.attempts.find((x: { attempt: number }) => x.attempt === 1);
      expect(first.error).toMatch(/no answer recorded/);
      for (const d of final.body.data.filter((x: { id: string }) => x.id !== interrupted)) {
        expect(d.attempts).toHaveLength(1);
      }
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  }, 180_000);
});
