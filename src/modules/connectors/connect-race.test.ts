import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import type { FakePlatform } from "../../../test/fakes/server.js";
import { STRIPE_KEY, startStripeFake } from "../../../test/fakes/stripe.js";
import { platformConfig } from "./connectors.testing.js";

/**
 * Connecting is "create or replace": parallel connects of one type (a double click, two tabs)
 * all succeed and leave one connector — never a 409 or 500 from the (project, type) unique index.
 */
let t: TestApp;
let stripe: FakePlatform;
beforeAll(async () => {
  stripe = await startStripeFake();
  t = await startTestApp(platformConfig([["payments", stripe]]));
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

describe("parallel connects of one connector type", () => {
  it("all succeed and one connector results", async () => {
    for (let round = 0; round < 4; round++) {
      const a = await t.tenant();
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } }),
        ),
      );
      expect(
        answers.map((r) => r.status).filter((s) => s >= 300),
        JSON.stringify(answers.map((r) => r.body)),
      ).toEqual([]);
      const list = (await a.get("/api/connectors")).body as { type: string }[];
      expect(list.filter((c) => c.type === "payments")).toHaveLength(1);
    }
  });
});
