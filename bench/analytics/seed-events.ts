import type SQLite from "better-sqlite3";

const DAY = 86_400_000;

/**
 * Events written straight into `events` for the read benchmarks (funnels, retention, erasure), in
 * arrival order: 10 per visitor `v<n>` over 120 days (pageviews over 50 pages, /pricing among them; 30% of visitors
 * sign up, a third of those buy), 20% of visitors paired into leads (analytics_links), and
 * `analytics_activity` folded in from them as migration 0392 does (the processor writes it at
 * ingest).
 */
export function seedStoredEvents(
  sqlite: SQLite.Database,
  projectId: string,
  events: number,
  now: number,
): void {
  const insert = sqlite.prepare(
    "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot, is_server) values (?, ?, ?, null, ?, ?, null, '{}', ?, ?, ?, 'direct', null, 0, 0)",
  );
  const link = sqlite.prepare(
    "insert into analytics_links (project_id, visitor_id, lead_id) values (?, ?, ?)",
  );
  let seq = 0;
  sqlite.transaction(() => {
    const visitors = Math.floor(events / 10);
    for (let v = 0; v + 1 < visitors; v += 10) {
      link.run(projectId, `v${v}`, `lead${v}`);
      link.run(projectId, `v${v + 1}`, `lead${v}`);
    }
    // Stored in arrival order, as the writer stores them: the oldest day's visitors first, each
    // event received when it happened (never before the previous one).
    const byDay: number[][] = Array.from({ length: 120 }, () => []);
    for (let v = 0; v < visitors; v++) byDay[(v * 7919) % 120]!.push(v);
    let received = 0;
    for (let d = 119; d >= 0; d--)
      for (const v of byDay[d]!) {
        const start = now - d * DAY - (v % 3600) * 1000;
        for (let i = 0; i < 10; i++) {
          const ts = start + i * 5 * 60_000;
          received = Math.max(received, ts);
          let type = "pageview";
          let url = `https://shop.example.com/p/${(v + i) % 50}`;
          if (i === 2) url = "https://shop.example.com/pricing";
          if (i === 6 && v % 10 < 3) type = "signup";
          if (i === 9 && v % 10 === 0) type = "purchase";
          const n = seq++;
          insert.run(
            `ev_${n.toString(36).padStart(8, "0")}`,
            projectId,
            `v${v}`,
            type,
            url,
            ts,
            received,
            `s${v}`,
          );
        }
      }
  })();
  // Retention reads analytics_activity, which the analytics processor writes at ingest: folded in
  // from the seeded events as migration 0392 does for existing ones.
  sqlite.exec(`insert into analytics_activity (project_id, day, type, visitor_id)
    select distinct project_id, cast(ts / 86400000 as integer), type, visitor_id from events
    where is_bot = 0 and visitor_id <> '' order by 1, 2`);
}
