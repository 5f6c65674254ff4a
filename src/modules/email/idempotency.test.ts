import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { buildApp } from "../../app.js";
import { enqueueJob } from "../../platform/jobs/index.js";
import { canonicalJson, requestHash } from "./idempotency.js";
import { CLEANUP_JOB } from "./schema.js";
import { type SmtpPeer, startSmtpPeer, txTenant } from "./email.testing.js";

let t: TestApp;
let peer: SmtpPeer;
/** A second app instance on the same database: stands in for another process / API node. */
let other: FastifyInstance;
beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await startTestApp({ smtpUrl: peer.url });
  other = await buildApp(t.config, { logger: false });
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await t.close();
  await peer.close();
});
beforeEach(() => {
  peer.messages.length = 0;
  peer.onRcpt = null;
  peer.onData = null;
  peer.delayMs = 0;
});

const body = { to: "ivy@example.com", subject: "Your code", text: "code 123456", tags: { flow: "login" } };

describe("Idempotency-Key", () => {
  it("50 parallel requests on two app instances → one message; the others 409 in flight or replays", async () => {
    const a = await txTenant(t);
    peer.delayMs = 1000; // keep the first request in flight while the others arrive, even on a loaded machine
    const headers = {
      authorization: `Bearer ${a.txKey}`,
      "content-type": "application/json",
      "idempotency-key": "login-u1-a1",
    };
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? other : t.app).inject({
          method: "POST",
          url: "/api/v1/transactional/send",
          headers,
          payload: JSON.stringify(body),
        }),
      ),
    );
    const ok = results.filter((r) => r.statusCode === 200);
    const inFlight = results.filter((r) => r.statusCode === 409);
    expect(ok.length + inFlight.length).toBe(50);
    expect(inFlight.length).toBeGreaterThan(0);
    for (const r of inFlight)
      expect(JSON.parse(r.body)).toEqual({
        error: { code: "idempotency_in_flight", message: expect.any(String), requestId: expect.any(String) },
      });
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    expect(peer.messages).toHaveLength(1);

    const replay = await a.send(body, { "idempotency-key": "login-u1-a1" });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(ok[0]!.body); // byte-identical
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    // key order does not matter: the hash is over canonical JSON
    const reordered = await a.send(
      { tags: { flow: "login" }, text: body.text, subject: body.subject, to: body.to },
      { "idempotency-key": "login-u1-a1" },
    );
    expect(reordered.text).toBe(ok[0]!.body);
    expect(peer.messages).toHaveLength(1);
    const sends = await t.app.db
      .selectFrom("tx_sends")
      .select("id")
      .where("workspace_id", "=", a.workspaceId)
      .execute();
    expect(sends).toHaveLength(1);
  });

  it("a different payload with a used key is 409 idempotency_key_mismatch", async () => {
    const a = await txTenant(t);
    expect((await a.send(body, { "idempotency-key": "k1" })).status).toBe(200);
    const res = await a.send({ ...body, text: "code 999999" }, { "idempotency-key": "k1" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: { code: "idempotency_key_mismatch", message: expect.any(String), requestId: expect.any(String) },
    });
    expect(peer.messages).toHaveLength(1);
  });

  it("keys are per workspace", async () => {
    const a = await txTenant(t);
    const b = await txTenant(t);
    expect((await a.send(body, { "idempotency-key": "same" })).status).toBe(200);
    expect((await b.send({ ...body, text: "other" }, { "idempotency-key": "same" })).status).toBe(200);
    expect(peer.messages).toHaveLength(2);
  });

  it("refuses keys over 255 characters with 400 validation_error", async () => {
    const a = await txTenant(t);
    const res = await a.send(body, { "idempotency-key": "k".repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect((await a.send(body, { "idempotency-key": "k".repeat(255) })).status).toBe(200);
  });

  it("a 422 outcome is final and replayed without a second SMTP attempt", async () => {
    const a = await txTenant(t);
    let rcpts = 0;
    peer.onRcpt = () => {
      rcpts++;
      return { code: 550, message: "5.1.1 no such user" };
    };
    const first = await a.send(body, { "idempotency-key": "bounce-1" });
    expect(first.status).toBe(422);
    const again = await a.send(body, { "idempotency-key": "bounce-1" });
    expect(again.status).toBe(422);
    // The stored outcome again; only the request id is this request's own.
    const { requestId: firstId, ...firstError } = first.body.error;
    const { requestId: againId, ...againError } = again.body.error;
    expect(againError).toEqual(firstError);
    expect(againId).not.toBe(firstId);
    expect(rcpts).toBe(1);
  });

  it("a request refused before sending (validation, template error) does not consume the key", async () => {
    const a = await txTenant(t);
    const bad = await a.send({ to: "ivy@example.com", commId: "nope" }, { "idempotency-key": "k2" });
    expect(bad.status).toBe(404);
    const good = await a.send(body, { "idempotency-key": "k2" });
    expect(good.status).toBe(200);
  });

  it("after 24 hours the key is free again; a crashed holder's lock is taken over", async () => {
    const a = await txTenant(t);
    const first = await a.send(body, { "idempotency-key": "old" });
    await t.app.db
      .updateTable("tx_idempotency")
      .set({ expires_at: Date.now() - 1 })
      .where("idem_key", "=", "old")
      .execute();
    const second = await a.send({ ...body, text: "new" }, { "idempotency-key": "old" });
    expect(second.status).toBe(200);
    expect(second.body.send_id).not.toBe(first.body.send_id);

    const lock = (key: string, lockedUntil: number, sendId: string | null) =>
      t.app.db
        .insertInto("tx_idempotency")
        .values({
          workspace_id: a.workspaceId,
          idem_key: key,
          request_hash: requestHash(body, false),
          state: "in_flight",
          locked_until: lockedUntil,
          send_id: sendId,
          response_status: null,
          response_body: null,
          expires_at: Date.now() + 86_400_000,
          created_at: Date.now(),
        })
        .execute();
    // held by a live request (another node): 409 in flight
    await lock("live", Date.now() + 60_000, null);
    const blocked = await a.send(body, { "idempotency-key": "live" });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.code).toBe("idempotency_in_flight");
    // holder died before creating a send record: the lock is taken over and the mail is sent
    const before = peer.messages.length;
    await lock("dead-early", Date.now() - 1, null);
    const taken = await a.send(body, { "idempotency-key": "dead-early" });
    expect(taken.status).toBe(200);
    expect(peer.messages.length).toBe(before + 1);
    // holder died after its send was recorded as sent: answered from the record, nothing re-sent
    await lock("dead-late", Date.now() - 1, first.body.send_id);
    const recovered = await a.send(body, { "idempotency-key": "dead-late" });
    expect(recovered.status).toBe(200);
    expect(recovered.body.send_id).toBe(first.body.send_id);
    expect(peer.messages.length).toBe(before + 1);
  });

  it("the cleanup job deletes expired keys only", async () => {
    const a = await txTenant(t);
    await a.send(body, { "idempotency-key": "fresh" });
    await a.send(body, { "idempotency-key": "stale" });
    await t.app.db
      .updateTable("tx_idempotency")
      .set({ expires_at: Date.now() - 1 })
      .where("idem_key", "=", "stale")
      .execute();
    await enqueueJob(t.app.db, CLEANUP_JOB, {});
    await t.app.worker.drain();
    const left = await t.app.db
      .selectFrom("tx_idempotency")
      .select("idem_key")
      .where("workspace_id", "=", a.workspaceId)
      .execute();
    expect(left.map((r) => r.idem_key)).toEqual(["fresh"]);
  });

  it("canonical JSON sorts keys at every level", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}',
    );
  });
});
