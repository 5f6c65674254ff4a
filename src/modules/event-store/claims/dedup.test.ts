import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { startTestApp } from "../../../../test/helpers/app.js";
import { buildApp } from "../../../app.js";
import { isPostgres } from "../../../config.js";
import { expireMessageIds } from "./claims-store.js";
import { DEDUP_WINDOW_MS } from "./dedup.js";
import { RecentKeys, keyClock } from "./recent-keys.js";
import { sql } from "kysely";
import { isPostgresDb } from "../../../platform/db/index.js";
import {
  call,
  storeMessageIds,
  storedEvents,
  storedMessageIds,
} from "../../events/segment/segment.testing.js";

const DAY_S = 86_400;

describe("RecentKeys (SQLite's memory of claimed messageIds)", () => {
  it("claims a key once within the window, again after it; a released claim is free", () => {
    const keys = new RecentKeys(DAY_S);
    const t0 = keyClock(Date.now());
    expect(keys.claim("p", "a", t0)).toBe(true);
    expect(keys.claim("p", "a", t0 + DAY_S - 1)).toBe(false);
    expect(keys.claim("q", "a", t0)).toBe(true);
    expect(keys.claim("p", "a", t0 + DAY_S)).toBe(true);
    expect(keys.claim("p", "a", t0 + DAY_S + 5)).toBe(false);
    keys.release("p", "a");
    expect(keys.claim("p", "a", t0 + DAY_S + 6)).toBe(true);
    // The key is (scope, id), not their concatenation.
    expect(keys.claim("ab", "c", t0)).toBe(true);
    expect(keys.claim("a", "bc", t0)).toBe(true);
  });

  it("keeps every live key through growth, drops expired ones on a sweep, with no false duplicate", () => {
    const keys = new RecentKeys(DAY_S);
    const t0 = keyClock(Date.now());
    const ids = Array.from({ length: 100_000 }, () => randomUUID());
    expect(ids.filter((k, i) => keys.claim("prj_1", k, t0 + (i < 50_000 ? 0 : DAY_S / 2))).length).toBe(
      100_000,
    );
    expect(keys.capacity).toBeGreaterThanOrEqual(200_000);
    expect(ids.filter((k) => keys.claim("prj_1", k, t0 + DAY_S / 2)).length).toBe(0);
    // A day after the first half: it expired; the second half is still held.
    keys.sweep(t0 + DAY_S);
    expect(keys.size(t0 + DAY_S)).toBe(50_000);
    expect(keys.capacity).toBeLessThan(400_000);
    expect(ids.slice(50_000).filter((k) => keys.claim("prj_1", k, t0 + DAY_S)).length).toBe(0);
    expect(ids.slice(0, 50_000).filter((k) => keys.claim("prj_1", k, t0 + DAY_S)).length).toBe(50_000);
  });
});

const batchOf = (prefix: string, n: number) => ({
  batch: Array.from({ length: n }, (_, i) => ({
    type: "track",
    userId: "u",
    event: "Order Completed",
    messageId: `${prefix}-${i}`,
    properties: { mark: `${prefix}-${i}` },
  })),
});

describe("messageIds across a rolled-back flush, a restart and another process", () => {
  it("a flush that fails releases its keys: the retry is stored, once", async () => {
    const t = await startTestApp();
    try {
      const a = await t.tenant();
      const bus = t.app.eventBus;
      const process = bus.process.bind(bus);
      let failures = 0;
      bus.process = async (trx, events, versions) => {
        if (failures === 0 && events.some((e) => e.type === "Order Completed")) {
          failures++;
          throw new Error("a processor failed");
        }
        return process(trx, events, versions);
      };
      const body = batchOf("rollback", 10);
      expect((await call(a, "/v1/batch", body)).status).toBe(500);
      expect(await storedEvents(t, a)).toEqual([]);
      expect((await call(a, "/v1/batch", body)).status).toBe(200);
      expect((await call(a, "/v1/batch", body)).status).toBe(200);
      expect(await storedEvents(t, a)).toHaveLength(10);
      expect(failures).toBe(1);
    } finally {
      await t.close();
    }
  });

  it("another process (PostgreSQL: at the same time; SQLite: after a restart) stores a retried message once", async () => {
    const t = await startTestApp();
    const a = await t.tenant();
    const body = batchOf("elsewhere", 50);
    expect((await call(a, "/v1/batch", body)).status).toBe(200);
    let other: FastifyInstance | undefined;
    try {
      if (isPostgres(t.config)) {
        // A second app on the same schema: its own writer, its own connections.
        other = await buildApp({ ...t.config, rollupShard: 7 }, { logger: false });
        const fresh = batchOf("both-at-once", 50);
        const via = (app: FastifyInstance, b: unknown) =>
          app.inject({
            method: "POST",
            url: "/v1/batch",
            headers: { "content-type": "application/json", authorization: `Basic ${btoa(`${a.apiKey}:`)}` },
            payload: JSON.stringify(b),
          });
        const answers = await Promise.all([
          via(t.app, fresh),
          via(other, fresh),
          via(other, body),
          via(other, fresh),
        ]);
        expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      } else {
        // One process owns a SQLite file: the next one reads the keys back from the table.
        await t.app.close();
        other = await buildApp(t.config, { logger: false });
        const again = await other.inject({
          method: "POST",
          url: "/v1/batch",
          headers: { "content-type": "application/json", authorization: `Basic ${btoa(`${a.apiKey}:`)}` },
          payload: JSON.stringify(body),
        });
        expect(again.statusCode).toBe(200);
      }
      const rows = await other
        .db!.selectFrom("events")
        .select(["data"])
        .where("project_id", "=", a.projectId)
        .execute();
      const marks = rows.map((r) => r.data).sort();
      expect(new Set(marks).size).toBe(marks.length);
      expect(marks).toHaveLength(isPostgres(t.config) ? 100 : 50);
    } finally {
      await other?.close();
      if (isPostgres(t.config)) await t.close();
      else rmSync(t.config.dataDir, { recursive: true, force: true });
    }
  });

  it("the expiry deletes every expired key, chunk after chunk, and keeps the others", async () => {
    const t = await startTestApp();
    try {
      const a = await t.tenant();
      const old = Date.now() - DEDUP_WINDOW_MS - 60_000;
      // 25,000 expired keys: more than two of the expiry's statements.
      if (isPostgresDb(t.app.db))
        await sql`insert into segment_message_ids (project_id, message_id, received_at)
          select ${a.projectId}, 'old-' || g, ${old} from generate_series(1, 25000) g`.execute(t.app.db);
      else
        await sql`with recursive g(n) as (select 1 union all select n + 1 from g where n < 25000)
          insert into segment_message_log (received_at, project_id, message_ids)
          select ${old}, ${a.projectId}, json_array('old-' || n) from g`.execute(t.app.db);
      await storeMessageIds(t.app.db, a.projectId, [["fresh", 60_000]]);
      expect(await expireMessageIds(t.app.db)).toBe(25_000);
      expect((await storedMessageIds(t.app.db, a.projectId)).map((r) => r.messageId)).toEqual(["fresh"]);
      expect(await expireMessageIds(t.app.db)).toBe(0);
    } finally {
      await t.close();
    }
  });

  it("keys older than 24 hours count as new, and the hourly expiry deletes them", async () => {
    const t = await startTestApp();
    const a = await t.tenant();
    const now = Date.now();
    await storeMessageIds(t.app.db, a.projectId, [
      ["old", DEDUP_WINDOW_MS + 60_000],
      ["recent", DEDUP_WINDOW_MS - 60_000],
    ]);
    // SQLite reads the table at start: a restart shows the stored keys are what decides.
    let app = t.app;
    if (!isPostgres(t.config)) {
      await t.app.close();
      app = await buildApp(t.config, { logger: false });
    }
    try {
      for (const id of ["old", "recent"]) {
        const res = await app.inject({
          method: "POST",
          url: "/v1/track",
          headers: { "content-type": "application/json", authorization: `Basic ${btoa(`${a.apiKey}:`)}` },
          payload: JSON.stringify({ userId: "u", event: id, messageId: id }),
        });
        expect(res.statusCode).toBe(200);
      }
      const types = (
        await app.db.selectFrom("events").select("type").where("project_id", "=", a.projectId).execute()
      ).map((r) => r.type);
      expect(types).toEqual(["old"]);
      // PostgreSQL took the expired key's row over; SQLite's log has the new claim besides the old.
      expect((await storedMessageIds(app.db, a.projectId)).map((r) => r.messageId)).toEqual(
        isPostgresDb(app.db) ? ["recent", "old"] : ["old", "recent", "old"],
      );
      expect(await expireMessageIds(app.db, now)).toBe(isPostgresDb(app.db) ? 0 : 1);
      const left = await storedMessageIds(app.db, a.projectId);
      expect(left.map((r) => r.messageId)).toEqual(["recent", "old"]);
      expect(left.every((r) => r.receivedAt >= now - DEDUP_WINDOW_MS)).toBe(true);
    } finally {
      if (app !== t.app) {
        await app.close();
        rmSync(t.config.dataDir, { recursive: true, force: true });
      } else await t.close();
    }
  });
});
