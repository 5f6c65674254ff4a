import { expect } from "vitest";
import type { Tenant } from "../../helpers/app.js";
import { BOT_USER_AGENT, DEVICES, type Dataset, type DeviceName, SITE, entryOf } from "./dataset.js";

/**
 * Sends a dataset through Lift's public APIs as a site and its servers would: page views through
 * Segment's batch API (web visits), signups and upgrade clicks through the snippet's endpoint (web
 * events in their session), stitches through POST /api/identity, and the servers' activations and
 * purchases through Segment's batch API (track). Web traffic goes in time order, as browsers send it.
 */
export async function sendDataset(t: Tenant, d: Dataset): Promise<void> {
  const basic = { authorization: `Basic ${Buffer.from(`${t.apiKey}:`).toString("base64")}` };
  let batch: unknown[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const res = await t.post("/v1/batch", { batch }, { as: "none", headers: basic });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    batch = [];
  };
  type Web =
    | {
        kind: "page";
        ts: number;
        visitor: string;
        url: string;
        referrer?: string;
        ua: string;
        country?: string;
      }
    | { kind: "action"; ts: number; visitor: string; type: string; url: string; ua: string };
  const web: Web[] = [];
  const countryOf = new Map(d.visitors.map((v) => [v.id, v.country]));
  for (const s of d.sessions)
    s.pages.forEach((p, i) => {
      const entry = i === 0 ? entryOf(s.channel, p.path) : { url: `${SITE}${p.path}` };
      const country = countryOf.get(s.visitor);
      web.push({
        kind: "page",
        ts: p.ts,
        visitor: s.visitor,
        ...entry,
        ua: DEVICES[s.device].ua,
        ...(country ? { country } : {}),
      });
    });
  const deviceOf = new Map(d.visitors.map((v) => [v.id, v.device as DeviceName]));
  for (const a of d.actions)
    web.push({
      kind: "action",
      ts: a.ts,
      visitor: a.visitor,
      type: a.type,
      url: `${SITE}${a.path}`,
      ua: DEVICES[deviceOf.get(a.visitor)!].ua,
    });
  for (const b of d.bots)
    web.push({ kind: "page", ts: b.ts, visitor: b.visitor, url: `${SITE}${b.path}`, ua: BOT_USER_AGENT });
  web.sort((a, b) => a.ts - b.ts);
  for (const w of web) {
    if (w.kind === "page") {
      batch.push({
        type: "page",
        anonymousId: w.visitor,
        properties: {
          url: w.url,
          ...(w.referrer ? { referrer: w.referrer } : {}),
          // The country a browser's address gave (an event that carries one keeps it).
          ...(w.country ? { $country: w.country } : {}),
        },
        context: { userAgent: w.ua },
        timestamp: new Date(w.ts).toISOString(),
      });
      if (batch.length === 1000) await flush();
      continue;
    }
    await flush();
    const res = await t.post(
      "/api/events",
      {
        projectKey: t.publicKey,
        type: w.type,
        visitorId: w.visitor,
        url: w.url,
        timestamp: new Date(w.ts).toISOString(),
      },
      { as: "none", headers: { "user-agent": w.ua } },
    );
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  }
  await flush();
  // Each visitor joins its lead as of its first visit (history brought in with its dates).
  const firstVisit = new Map<string, number>();
  for (const s of d.sessions)
    firstVisit.set(s.visitor, Math.min(firstVisit.get(s.visitor) ?? s.start, s.start));
  for (const lead of d.leads)
    for (const visitorId of lead.visitors) {
      const timestamp = new Date(firstVisit.get(visitorId)!).toISOString();
      const res = await t.post("/api/identity", {
        visitorId,
        leadId: lead.id,
        traits: { plan: lead.plan },
        timestamp,
      });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
  for (const e of [...d.server].sort((a, b) => a.ts - b.ts)) {
    batch.push({
      type: "track",
      event: e.type,
      ...(e.lead ? { userId: e.lead } : { anonymousId: e.visitor }),
      properties: e.revenue !== undefined ? { revenue: e.revenue, currency: "USD" } : {},
      timestamp: new Date(e.ts).toISOString(),
    });
    if (batch.length === 1000) await flush();
  }
  await flush();
}
