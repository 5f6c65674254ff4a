import type { Tenant, TestApp } from "../../../../test/helpers/app.js";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";

/** Test helpers for Segment's tracking API: calls with a write key, and what got stored. */

export const basic = (writeKey: string) => `Basic ${Buffer.from(`${writeKey}:`).toString("base64")}`;

/** A desktop browser's User-Agent (inject's default is a bot to the events module). */
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";

/** POSTs `body` to `path` as a server SDK would: the write key (default: the secret key) by HTTP Basic. */
export function call(
  a: Tenant,
  path: string,
  body: unknown,
  opts: { key?: string | null; headers?: Record<string, string> } = {},
) {
  const key = opts.key === undefined ? a.apiKey : opts.key;
  return a.post(path, body, {
    as: "none",
    headers: {
      ...(key ? { authorization: basic(key) } : {}),
      "user-agent": "analytics-node-next/latest",
      ...opts.headers,
    },
  });
}

/** The project's stored events, oldest first, with data parsed. */
export async function storedEvents(t: TestApp, a: Tenant) {
  const rows = await t.app.db
    .selectFrom("events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .orderBy("ts")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    type: r.type,
    visitorId: r.visitor_id,
    leadId: r.lead_id,
    url: r.url,
    referrer: r.referrer,
    data: JSON.parse(r.data) as Record<string, unknown>,
    ts: Number(r.ts),
    sessionId: r.session_id,
    channel: r.channel,
    source: r.source,
    isBot: Number(r.is_bot) === 1,
    server: Number(r.is_server) === 1,
  }));
}

let n = 0;
/** A unique messageId. */
export const mid = (prefix = "m") => `${prefix}-${process.pid}-${Date.now()}-${++n}`;

/** The project's stored messageIds (PostgreSQL's rows or SQLite's log), oldest first. */
export async function storedMessageIds(
  db: DbOrTrx,
  projectId: string,
): Promise<{ messageId: string; receivedAt: number }[]> {
  if (isPostgresDb(db)) {
    const rows = await db
      .selectFrom("segment_message_ids")
      .select(["message_id", "received_at"])
      .where("project_id", "=", projectId)
      .orderBy("received_at")
      .orderBy("message_id")
      .execute();
    return rows.map((r) => ({ messageId: r.message_id, receivedAt: Number(r.received_at) }));
  }
  const rows = await db
    .selectFrom("segment_message_log")
    .select(["message_ids", "received_at"])
    .where("project_id", "=", projectId)
    .orderBy("received_at")
    .execute();
  return rows.flatMap((r) =>
    (JSON.parse(r.message_ids) as string[]).map((messageId) => ({
      messageId,
      receivedAt: Number(r.received_at),
    })),
  );
}

/** Stores messageIds as claimed `ago` ms before now, as the writer would have. */
export async function storeMessageIds(
  db: DbOrTrx,
  projectId: string,
  ids: [string, number][],
): Promise<void> {
  const now = Date.now();
  for (const [id, ago] of ids) {
    if (isPostgresDb(db))
      await db
        .insertInto("segment_message_ids")
        .values({ project_id: projectId, message_id: id, received_at: now - ago })
        .execute();
    else
      await db
        .insertInto("segment_message_log")
        .values({ project_id: projectId, message_ids: JSON.stringify([id]), received_at: now - ago })
        .execute();
  }
}
