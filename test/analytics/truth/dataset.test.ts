import { describe, expect, it } from "vitest";
import { DAY, generate } from "./dataset.js";

/**
 * The seeded month must be unambiguous whatever the time of day it is generated at: a person's
 * first touch is their earliest session, and two sessions starting in the same millisecond would
 * leave it to Lift's tie-break (session ids, random at ingest) — a coin flip the truth cannot know.
 */
describe("the truth dataset", () => {
  it("gives no person two sessions that start in the same millisecond, at any hour", () => {
    const midnight = Math.floor(Date.now() / DAY) * DAY;
    for (let minute = 0; minute < 24 * 60; minute += 20) {
      const d = generate(41, midnight + minute * 60_000);
      const personOf = new Map(d.visitors.map((v) => [v.id, v.lead ?? v.id]));
      const starts = new Set<string>();
      for (const s of d.sessions) {
        const key = `${personOf.get(s.visitor)}@${s.start}`;
        expect(starts.has(key), `${key} at minute ${minute}`).toBe(false);
        starts.add(key);
      }
    }
  });
});
