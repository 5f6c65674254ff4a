/**
 * Cost of resolving the workspace of an incoming webhook by trying every workspace's secret
 * (DESIGN.md "Webhooks in"): requests/s of POST /api/webhooks/payments (a verified replay, so the
 * work is signature checks + one insert) with 1 (baseline), 100 and 1000 workspaces configured.
 * In-process (app.inject, SQLite), so the figures are the server's own cost, no network.
 * Run: npx tsx bench/webhooks/incoming-secrets.bench.ts   (BENCH_REQUESTS=400 by default)
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { startTestApp } from "../../test/helpers/app.js";
import { setSourceSecret } from "../../src/modules/webhooks/incoming/service.js";
import { fixture } from "../../src/modules/webhooks/incoming/fixtures.testing.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const t = await startTestApp();
const stripe = new Stripe("sk_test_dummy");

async function measure(workspaces: number): Promise<number> {
  const a = await t.tenant();
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  await setSourceSecret(t.app.db, t.app.secrets, a.workspaceId, "payments", secret);
  const have = await t.app.db.selectFrom("webhook_sources").select("workspace_id").execute();
  for (let i = have.length; i < workspaces; i++) {
    await setSourceSecret(
      t.app.db,
      t.app.secrets,
      `ws_bench_${i}`,
      "payments",
      `whsec_${randomBytes(24).toString("base64")}`,
    );
  }
  const e = fixture("stripe-invoice.paid.json");
  e.id = `evt_${randomBytes(8).toString("hex")}`;
  e.created = Math.floor(Date.now() / 1000);
  const body = JSON.stringify(e);
  const headers = {
    "content-type": "application/json",
    "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
  };
  const send = () => t.app.inject({ method: "POST", url: "/api/webhooks/payments", headers, payload: body });
  const first = await send();
  if (first.statusCode !== 200) throw new Error(`first request answered ${first.statusCode}: ${first.body}`);
  for (let i = 0; i < 20; i++) await send(); // warm-up
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const r = await send();
    if (r.statusCode !== 200) throw new Error(`answered ${r.statusCode}`);
  }
  return REQUESTS / ((performance.now() - started) / 1000);
}

try {
  const base = await measure(1);
  const hundred = await measure(100);
  const thousand = await measure(1000);
  console.log(`1 workspace     : ${base.toFixed(0)} req/s (baseline)`);
  console.log(`100 workspaces  : ${hundred.toFixed(0)} req/s, ratio ${(hundred / base).toFixed(2)}`);
  console.log(`1000 workspaces : ${thousand.toFixed(0)} req/s, ratio ${(thousand / base).toFixed(2)}`);
  console.log(`per secret tried: ${(((1 / thousand - 1 / base) / 999) * 1e6).toFixed(1)} µs`);
} finally {
  await t.close();
}
