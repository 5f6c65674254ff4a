import { describe, expect, it } from "vitest";
import { AppState, type ServiceDeps, appSlot, provide, providedSlot, stateOf, stateSlot } from "./deps.js";

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

  it("holds a cache slot and a provided slot for any holder of a state (a read worker's too)", () => {
    const cache = stateSlot("test.cache", () => new Map<string, number>());
    const greet = providedSlot<(name: string) => string>("test.greet", "greeter");
    const worker = { state: new AppState() };
    const other = { state: new AppState() };
    stateOf(worker, cache).set("k", 1);
    expect(stateOf(worker, cache).get("k")).toBe(1);
    expect(stateOf(other, cache).size).toBe(0);
    expect(() => stateOf(worker, greet)).toThrow(
      "no test.greet: the greeter module provides it when it registers",
    );
    provide(worker, greet, (name) => `hello ${name}`);
    expect(stateOf(worker, greet)("you")).toBe("hello you");
    expect(() => stateOf(other, greet)).toThrow("no test.greet");
    expect(() => provide(worker, greet, () => "again")).toThrow("test.greet is provided twice");
  });
});
