import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import type { Trx } from "../../platform/db/index.js";
import { type CommittedEvent, EventBus } from "../../platform/event-bus.js";
import { PIPELINE_STEPS } from "./pipeline.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const event = { projectId: "prj_1" } as CommittedEvent;

describe("the ingest pipeline (pipeline.ts)", () => {
  it("the running app's processors are the pipeline's steps, in its order", () => {
    expect(t.app.eventBus.order).toEqual([...PIPELINE_STEPS]);
  });

  it("runs steps in pipeline order whatever order they register in", async () => {
    const bus = new EventBus();
    bus.setPipeline(PIPELINE_STEPS);
    const ran: string[] = [];
    for (const step of [...PIPELINE_STEPS].reverse()) bus.register(step, async () => void ran.push(step));
    await t.app.db.transaction().execute((trx) => bus.process(trx as Trx, [event]));
    expect(ran).toEqual([...PIPELINE_STEPS]);
  });

  it("refuses a step that reads a later one, an unknown step, and a step registered twice", () => {
    const bus = new EventBus();
    bus.setPipeline(PIPELINE_STEPS);
    const noop = async () => {};
    expect(() => bus.register("analytics", noop, ["experiments"])).toThrow(/reads experiments/);
    expect(() => bus.register("goals", noop)).toThrow(/not a step/);
    bus.register("identity", noop);
    expect(() => bus.register("identity", noop)).toThrow(/twice/);
  });
});
