import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { blockedReason } from "./ssrf.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: false });
});
afterAll(async () => t.close());

describe("POST /api/webhooks refuses unsafe targets", () => {
  const refused = [
    "https://127.0.0.1/hook",
    "https://10.0.0.1/hook",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/hook",
    "https://localhost/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://[fd00:ec2::254]/hook",
    "https://100.64.0.1/hook",
    "https://192.168.1.10/hook",
    "https://[fe80::1]/hook",
    "https://0.0.0.0/hook",
    "https://2130706433/hook", // 127.0.0.1 in decimal, normalised by the URL parser
    "https://0x7f.1/hook",
    "https://localhost./hook",
    "https://user:pass@93.184.215.14/hook",
    "http://example.com/hook",
    "ftp://example.com/hook",
    "not a url",
  ];
  for (const url of refused) {
    it(`400 for ${url}`, async () => {
      const a = await t.tenant();
      const res = await a.post("/api/webhooks", { url, events: ["lead.created"] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect((await a.get("/api/webhooks")).body).toEqual([]);
    });
  }

  it("refuses a PATCH that moves the url to a private address", async () => {
    const a = await t.tenant();
    const created = await a.post("/api/webhooks", {
      url: "https://93.184.215.14/hook",
      events: ["lead.created"],
    });
    expect(created.status).toBe(201);
    const res = await a.patch("/api/webhooks", { id: created.body.id, url: "https://127.0.0.1/x" });
    expect(res.status).toBe(400);
    expect((await a.get("/api/webhooks")).body[0].url).toBe("https://93.184.215.14/hook");
  });
});

describe("checked again at delivery", () => {
  it("a target that now points at a private address is refused without connecting, and logged", async () => {
    const a = await t.tenant();
    const wh = await a.post("/api/webhooks", { url: "https://93.184.215.14/hook", events: ["lead.created"] });
    // What DNS rebinding does to a name: the stored target now leads to loopback.
    await t.app.db
      .updateTable("webhook_endpoints")
      .set({ url: "https://127.0.0.1:9/hook" })
      .where("id", "=", wh.body.id)
      .execute();
    await emitServiceEvent(
      t.app.db,
      { workspaceId: a.workspaceId, projectId: a.projectId },
      "lead.created",
      {},
    );
    await t.app.worker.drain();
    const [d] = (await a.get(`/api/webhooks/${wh.body.id}/deliveries`)).body.data;
    expect(d.status).toBe("pending");
    expect(d.attempts[0]).toMatchObject({
      succeeded: false,
      statusCode: null,
      error: expect.stringMatching(/non-public address \(127\.0\.0\.1, loopback\)/),
    });
  });
});

describe("blockedReason", () => {
  it("lets public unicast through and names the range of everything else", () => {
    expect(blockedReason("93.184.215.14")).toBeNull();
    expect(blockedReason("2606:4700::6810:85e5")).toBeNull();
    expect(blockedReason("127.0.0.1")).toBe("loopback");
    expect(blockedReason("::ffff:10.1.2.3")).toBe("private");
    expect(blockedReason("172.16.5.4")).toBe("private");
    expect(blockedReason("169.254.169.254")).toBe("linkLocal");
    expect(blockedReason("100.100.100.200")).toBe("carrierGradeNat");
    expect(blockedReason("fd00:ec2::254")).toBe("uniqueLocal");
    expect(blockedReason("64:ff9b::a00:1")).not.toBeNull();
    expect(blockedReason("2002:a00:1::")).not.toBeNull();
  });
});
