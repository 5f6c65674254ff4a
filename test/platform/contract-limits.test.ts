import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { txTenant } from "../../src/modules/email/email.testing.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

/**
 * The OpenAPI document is the contract that is enforced: the limits are read from /openapi.json,
 * and a value one past each is refused naming the field, while the value at the limit is accepted.
 * (Ingest and send used to validate by hand, so their documented schemas omitted these limits.)
 */
let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await (await t.tenant()).get("/openapi.json", { as: "none" })).body;
});
afterAll(async () => t.close());

const bodyOf = (path: string): any => doc.paths[path].post.requestBody.content["application/json"].schema;
const shape = (schema: any, title: string) =>
  schema.anyOf.find((s: any) => s.title === title || s.properties?.[title]);

describe("POST /api/v1/transactional/send: the documented limits are the enforced ones", () => {
  const SBX = "user@sandbox.svc.test";
  it("subject, html, text and tags: at the limit 200, one past it 400 naming the field", async () => {
    const a = await txTenant(t);
    const inline = shape(bodyOf("/api/v1/transactional/send"), "Inline shape");
    const subjectMax: number = inline.properties.subject.maxLength;
    const htmlMax: number = inline.properties.html.maxLength;
    const tagsMax: number = inline.properties.tags.maxProperties;
    expect([subjectMax, htmlMax, tagsMax]).toEqual([998, 512 * 1024, 50]);
    const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    const ok = { to: SBX, subject: "s".repeat(subjectMax), html: "h".repeat(htmlMax), tags: tags(tagsMax) };
    expect((await a.send(ok)).status).toBe(200);
    for (const [field, body] of [
      ["subject", { ...ok, subject: "s".repeat(subjectMax + 1) }],
      ["html", { ...ok, html: "h".repeat(htmlMax + 1) }],
      ["tags", { ...ok, tags: tags(tagsMax + 1) }],
      ["tags.k0", { ...ok, tags: { k0: "v".repeat(1001) } }],
    ] as const) {
      const res = await a.send(body);
      expect(res.status, field).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.message).toContain(`body.${field} `);
    }
  });

  it("the template shape documents and enforces its nesting limit for variables", async () => {
    const a = await txTenant(t);
    const template = shape(bodyOf("/api/v1/transactional/send"), "Template shape");
    expect(template.additionalProperties).toBe(false);
    let nested: unknown = "x";
    for (let i = 0; i < 7; i++) nested = { n: nested };
    const res = await a.send({ to: SBX, commId: "welcome", variables: { deep: nested } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      /^body\.variables\.deep(\.n)+ must be a string, number or boolean/,
    );
  });
});

describe("POST /api/events: the documented limits are the enforced ones", () => {
  it("type, url and batch size: at the limit accepted, one past it refused naming the field", async () => {
    const a = await t.tenant();
    const [snippet, batch] = bodyOf("/api/events").anyOf;
    const typeMax: number = snippet.properties.type.maxLength;
    const urlMax: number = snippet.properties.url.maxLength;
    const batchMax: number = batch.properties.events.maxItems;
    expect([typeMax, urlMax, batchMax]).toEqual([200, 4096, 1000]);
    const url = (n: number) => `https://shop.example/${"p".repeat(n - 21)}`;
    const event = { projectKey: a.publicKey, visitorId: "v1", type: "t".repeat(typeMax), url: url(urlMax) };
    expect((await a.post("/api/events", event, { as: "none" })).status).toBe(200);
    const longType = await a.post("/api/events", { ...event, type: "t".repeat(typeMax + 1) }, { as: "none" });
    expect(longType.status).toBe(400);
    expect(longType.body.error).toBe(`body.type must be at most ${typeMax} characters`);
    const longUrl = await a.post("/api/events", { ...event, url: url(urlMax + 1) }, { as: "none" });
    expect(longUrl.status).toBe(400);
    expect(longUrl.body.error).toContain("body.url ");
    const events = (n: number) => Array.from({ length: n }, () => ({ type: "t", url: url(30) }));
    // A server's (secret key's) batch; a page's (public key's) holds at most 100 events.
    const full = await a.post(
      "/api/events",
      { projectKey: a.apiKey, events: events(batchMax) },
      { as: "none" },
    );
    expect(full.body).toEqual({ received: batchMax, errors: [] });
    const over = await a.post(
      "/api/events",
      { projectKey: a.apiKey, events: events(batchMax + 1) },
      { as: "none" },
    );
    expect(over.status).toBe(413);
    const page = await a.post(
      "/api/events",
      { projectKey: a.publicKey, events: events(101) },
      { as: "none" },
    );
    expect(page.status).toBe(413);
  });

  it("a batch keeps its valid events: each event is checked by the documented event schema", async () => {
    const a = await t.tenant();
    const [, batch] = bodyOf("/api/events").anyOf;
    expect(batch.properties.events.items.required).toEqual(["type", "url"]);
    const res = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        events: [
          { type: "ok", url: "https://shop.example/a" },
          { type: "ok", url: "https://shop.example/a", referrer: "r".repeat(4097) },
        ],
      },
      { as: "none" },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      received: 1,
      errors: [
        { index: 1, code: "VALIDATION_ERROR", message: "events[1].referrer must be at most 4096 characters" },
      ],
    });
  });
});

/**
 * Public bodies sent by snippets and SDKs of every version: unknown fields are ignored (GrowthBook's
 * SDKs have added fields to the remote-evaluation body over their versions; Segment's send context,
 * integrations, _metadata …).
 */
const INGEST_BODIES = new Set([
  "POST /api/events",
  "POST /api/identity/stitch",
  "POST /api/eval/{clientKey}",
  ...["track", "identify", "page", "screen", "group", "alias", "batch"].map((call) => `POST /v1/${call}`),
  // PostHog's capture API (events/posthog/)
  "POST /e",
  "POST /batch",
  // OpenFeature's OFREP providers (flags/ofrep/): the protocol's request may grow fields
  "POST /ofrep/v1/evaluate/flags",
  "POST /ofrep/v1/evaluate/flags/{key}",
  // PostHog's flags (flags/posthog/): posthog-js and posthog-node send fields of their versions
  "POST /flags",
  "POST /decide",
]);

describe("unknown body fields: refused everywhere but ingest (docs/decisions.md)", () => {
  it("every JSON body object of the management API says additionalProperties: false", () => {
    const open: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const schema = (op as any).requestBody?.content?.["application/json"]?.schema;
        if (!schema || INGEST_BODIES.has(where)) continue;
        const walk = (s: any) => {
          const x = s.$ref ? doc.components.schemas[s.$ref.split("/").pop()] : s;
          if (x.anyOf) for (const y of x.anyOf) walk(y);
          else if (x.type === "object" && x.properties && x.additionalProperties !== false) open.push(where);
        };
        walk(schema);
      }
    }
    expect(open).toEqual([]);
  });

  it("a management body with a misspelt field is 400 naming it; an ingest body ignores it", async () => {
    const a = await t.tenant();
    const goal = await a.post("/api/goals", {
      metric: "conversions",
      target: 10,
      deadline: "2030-01-01",
      dedline: "2030-01-01",
    });
    expect(goal.status).toBe(400);
    expect(goal.body.error).toBe("body.dedline is not allowed");
    const event = {
      projectKey: a.publicKey,
      visitorId: "v1",
      type: "pageview",
      url: "https://shop.example/",
      sdk: "x",
    };
    expect((await a.post("/api/events", event, { as: "none" })).status).toBe(200);
  });
});
