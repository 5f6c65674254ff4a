import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { trustCaForTests } from "./sender.js";
import { type Received, drainUntil, makeSelfSignedCert, startReceiver } from "./receiver.testing.js";

/**
 * Subscription secrets: a generated or caller-given `whsec_<base64>` secret, or the caller's own
 * string of 16–256 characters signed with its UTF-8 bytes — each verified on a real delivery with
 * the `standardwebhooks` package, passed the way docs/decisions/webhooks.md tells subscribers.
 */
let t: TestApp;
const tls = makeSelfSignedCert();
let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true });
  trustCaForTests(t.config, tls.cert);
  rx = await startReceiver(tls, () => ({ status: 204 }));
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

/** Subscribes with `secret` (or none), fires one event, and returns the secret and the delivery. */
async function deliverWith(secret: string | undefined): Promise<{ secret: string; received: Received }> {
  const a = await t.tenant();
  const url = `https://127.0.0.1:${rx.port}/${randomBytes(6).toString("hex")}`;
  const created = await a.post("/api/webhooks", { url, events: ["lead.created"], secret });
  expect(created.status).toBe(201);
  if (secret !== undefined) expect(created.body.secret).toBe(secret);
  await emitServiceEvent(t.app.db, { workspaceId: a.workspaceId, projectId: a.projectId }, "lead.created", {
    id: "lead_1",
  });
  const path = new URL(url).pathname;
  const mine = () => rx.received.filter((r) => r.path === path);
  expect(await drainUntil(t.app, async () => mine().length > 0)).toBe(true);
  return { secret: created.body.secret as string, received: mine()[0]! };
}

const verified = (wh: Webhook, r: Received) => wh.verify(r.body, r.headers) as { type: string };

describe("webhook secrets verified with standardwebhooks", () => {
  it("a generated whsec_ secret: pass it as it is", async () => {
    const { secret, received } = await deliverWith(undefined);
    expect(secret).toMatch(/^whsec_/);
    expect(verified(new Webhook(secret), received).type).toBe("lead.created");
  });

  it("a caller's whsec_ secret: pass it as it is", async () => {
    const { secret, received } = await deliverWith(`whsec_${randomBytes(32).toString("base64")}`);
    expect(verified(new Webhook(secret), received).type).toBe("lead.created");
  });

  it("a caller's own string: its UTF-8 bytes as a raw key, or whsec_ + base64 of them", async () => {
    const { secret, received } = await deliverWith("my-own-shared-secret");
    const raw = new Webhook(new TextEncoder().encode(secret), { format: "raw" });
    expect(verified(raw, received).type).toBe("lead.created");
    // An ASCII string may be passed as a string with format "raw" too.
    expect(verified(new Webhook(secret, { format: "raw" }), received).type).toBe("lead.created");
    const asWhsec = `whsec_${Buffer.from(secret, "utf8").toString("base64")}`;
    expect(verified(new Webhook(asWhsec), received).type).toBe("lead.created");
    // Without format "raw" the package base64-decodes the string: not what we sign with.
    expect(() => verified(new Webhook(secret), received)).toThrow();
  });

  it("a non-ASCII string: only its UTF-8 bytes (format raw with a string takes char codes, not UTF-8)", async () => {
    const { secret, received } = await deliverWith("pässwörd-geheim-🔑-1234");
    const raw = new Webhook(new TextEncoder().encode(secret), { format: "raw" });
    expect(verified(raw, received).type).toBe("lead.created");
    expect(() => verified(new Webhook(secret, { format: "raw" }), received)).toThrow();
  });

  it("a string that happens to be base64 is still signed with its own bytes", async () => {
    const { secret, received } = await deliverWith("abcdefghijklmnop");
    const raw = new Webhook(new TextEncoder().encode(secret), { format: "raw" });
    expect(verified(raw, received).type).toBe("lead.created");
  });
});

describe("POST /api/webhooks secret bounds", () => {
  const url = "https://93.184.215.14/hooks/lift"; // a public address: no DNS needed
  it("accepts 16 and 256 characters; refuses 15, 257 and a malformed whsec_ secret", async () => {
    const a = await t.tenant();
    const post = (secret: string) => a.post("/api/webhooks", { url, events: ["lead.created"], secret });
    for (const ok of ["x".repeat(16), "y".repeat(256), "🔑".repeat(16)]) {
      const res = await post(ok);
      expect(res.status).toBe(201);
      expect(res.body.secret).toBe(ok);
    }
    for (const bad of ["x".repeat(15), "y".repeat(257), "whsec_!!!not-base64!!!", "whsec_c2hvcnQ="]) {
      const res = await post(bad);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toMatch(/secret/);
    }
  });
});
