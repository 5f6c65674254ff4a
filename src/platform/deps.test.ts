import { describe, expect, it } from "vitest";
import { AppState, type ServiceDeps, appSlot, stateOf } from "./deps.js";

describe("per-app state (AppState)", () => {
  it("creates a slot's value once per app, from that app's dependencies, and keeps apps apart", () => {
    let created = 0;
    const slot = appSlot("test.counter", (deps) => ({ app: deps.config.host, n: ++created }));
    const a = { config: { host: "a" }, state: new AppState() } as unknown as ServiceDeps;
    const b = { config: { host: "b" }, state: new AppState() } as unknown as ServiceDeps;
    expect(stateOf(a, slot)).toEqual({ app: "a", n: 1 });
    expect(stateOf(a, slot)).toBe(stateOf(a, slot));
    expect(stateOf(b, slot)).toEqual({ app: "b", n: 2 });
    expect(created).toBe(2);
  });
});
