import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

/**
 * Parallel duplicate creates of every resource with a unique name or id: exactly one is created,
 * every other answer is 409 in the general format — never a 500 from the database's unique index,
 * however the requests interleave.
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
});
afterAll(async () => t?.close());

const PARALLEL = 12;
const ROUNDS = 4;

interface Resource {
  name: string;
  url: string;
  as: "admin" | "key";
  body: (round: number) => Record<string, unknown>;
}

const resources: Resource[] = [
  {
    name: "workspace user (email)",
    url: "/api/workspace/users",
    as: "admin",
    body: (r) => ({ email: `race-${r}@example.com`, role: "member", password: "correct horse battery" }),
  },
  {
    name: "communication (id)",
    url: "/api/communications",
    as: "admin",
    body: (r) => ({
      id: `race-comm-${r}`,
      name: "Race",
      commType: "transactional",
      slots: { subject: "Hi" },
      blocks: [{ type: "text", text: "Hello" }],
    }),
  },
  {
    name: "conversion goal (name)",
    url: "/api/conversion-goals",
    as: "key",
    body: (r) => ({ name: `race-goal-${r}`, eventType: "purchase" }),
  },
];

describe("parallel duplicate creates", () => {
  for (const res of resources) {
    it(`${res.name}: one 201, the rest 409`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const body = res.body(round);
        const answers = await Promise.all(
          Array.from({ length: PARALLEL }, () => a.post(res.url, body, { as: res.as })),
        );
        const statuses = answers.map((r) => r.status).sort();
        expect(
          statuses,
          JSON.stringify(answers.find((r) => r.status !== 201 && r.status !== 409)?.body),
        ).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
        for (const r of answers.filter((x) => x.status === 409)) {
          expect(r.body).toMatchObject({ code: "CONFLICT", status: 409 });
          expect(typeof r.body.error).toBe("string");
        }
      }
    });
  }
});

/** Writes that are idempotent by design: every parallel duplicate succeeds and one row results. */
describe("parallel duplicates of idempotent writes", () => {
  it("suppressing one address: every answer is 2xx, one suppression", async () => {
    // A workspace of its own: the ones above have spent their admin's write budget.
    const a = await t.tenant();
    for (let round = 0; round < ROUNDS; round++) {
      const email = `race-${round}@example.com`;
      const answers = await Promise.all(
        Array.from({ length: PARALLEL }, () =>
          a.post("/api/transactional/suppressions", { email }, { as: "admin" }),
        ),
      );
      expect(answers.map((r) => r.status).filter((s) => s >= 300)).toEqual([]);
      const list = (await a.get("/api/transactional/suppressions", { as: "admin" })).body as {
        email: string;
      }[];
      expect(list.filter((s) => s.email === email)).toHaveLength(1);
    }
  });

  it("stitching one email from many visitors at once: one lead", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const email = `stitch-${round}@example.com`;
      const answers = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) =>
          a.post(
            "/api/identity/stitch",
            { projectKey: a.apiKey, visitorId: `race-v${round}-${i}`, email },
            { as: "none" },
          ),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(PARALLEL).fill(200));
      expect(new Set(answers.map((r) => r.body.leadId)).size).toBe(1);
      expect(answers.filter((r) => r.body.created)).toHaveLength(1);
    }
  });
});
