import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { txTenant } from "./email.testing.js";

/**
 * The send record: "tags stored as a JSON blob; sandbox sends are written and tagged sandbox".
 * Tags are string keys with string, number or boolean values, stored as given.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const storedTags = async (sendId: string) =>
  JSON.parse(
    (await t.app.db.selectFrom("tx_sends").select("tags").where("id", "=", sendId).executeTakeFirstOrThrow())
      .tags,
  ) as Record<string, unknown>;

describe("send records: tags", () => {
  it("sandbox sends (header or sandbox domain) are stored tagged sandbox, next to the caller's tags", async () => {
    const a = await txTenant(t);
    const byHeader = await a.send(
      { to: "someone@example.com", subject: "s", text: "t", tags: { env: "ci" } },
      { "x-svc-mode": "sandbox" },
    );
    const byDomain = await a.send({ to: "user@sandbox.svc.test", subject: "s", text: "t" });
    expect([byHeader.status, byDomain.status]).toEqual([200, 200]);
    expect(await storedTags(byHeader.body.send_id)).toEqual({ env: "ci", sandbox: true });
    expect(await storedTags(byDomain.body.send_id)).toEqual({ sandbox: true });
    const recent = (await a.get("/api/transactional/recent", { as: "admin" })).body as Array<{
      id: string;
      tags: Record<string, unknown>;
    }>;
    expect(recent.find((r) => r.id === byHeader.body.send_id)!.tags).toEqual({ env: "ci", sandbox: true });
    const detail = await a.get(`/api/transactional/sends/${byDomain.body.send_id}`, { as: "admin" });
    expect(detail.status).toBe(200);
    expect(detail.body.tags).toEqual({ sandbox: true });
  });

  it("a live send is not tagged sandbox", async () => {
    const a = await txTenant(t);
    const res = await a.send({ to: "real@example.com", subject: "s", text: "t", tags: { env: "prod" } });
    expect(res.status).toBe(200);
    expect(res.body.sandbox).toBe(false);
    expect(await storedTags(res.body.send_id)).toEqual({ env: "prod" });
  });

  it("string, number and boolean tag values are accepted and stored as given", async () => {
    const a = await txTenant(t);
    const tags = { flow: "login", attempt: 3, ratio: 0.25, beta: true, trial: false, empty: "" };
    const res = await a.send({
      to: "user@sandbox.svc.test",
      commId: "verification-code",
      variables: { code: "1" },
      tags,
    });
    expect(res.status).toBe(200);
    expect(await storedTags(res.body.send_id)).toEqual({ ...tags, sandbox: true });
    const recent = (await a.get("/api/transactional/recent", { as: "admin" })).body;
    expect(recent[0].tags).toEqual({ ...tags, sandbox: true });
  });

  it.each([
    ["an object", { a: { b: "c" } }, /body\.tags\.a must be a string, number or boolean/],
    ["an array", { list: ["a"] }, /body\.tags\.list must be a string, number or boolean/],
    ["null", { gone: null }, /body\.tags\.gone must be a string, number or boolean/],
    ["the reserved key sandbox", { sandbox: "no" }, /body\.tags\.sandbox is set by the service/],
  ])("a tag value that is %s is 400 validation_error naming it", async (_name, tags, message) => {
    const a = await txTenant(t);
    const res = await a.send({ to: "user@sandbox.svc.test", subject: "s", text: "t", tags });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: "validation_error",
        message: expect.stringMatching(message),
        requestId: expect.any(String),
      },
    });
  });
});
