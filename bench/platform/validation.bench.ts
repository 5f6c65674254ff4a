/**
 * Per-call cost of the schema checks on the two hot routes, in a loop (no HTTP): a batch event's
 * check and conversion (readBatch over 500 events) and a send body's check and conversion.
 * Run: npx tsx bench/platform/validation.bench.ts
 */
import { toSendRequest, validateSendBody } from "../../src/modules/email/validate.js";
import { readBatch } from "../../src/modules/events/validate.js";

const events = Array.from({ length: 500 }, (_, i) => ({
  type: "pageview",
  visitorId: `v${i % 50}`,
  url: `https://shop.example.com/p/${i % 100}?utm_source=x`,
  referrer: "https://www.google.com/",
  data: { plan: "pro", i },
  timestamp: Date.now() - 1000,
}));
const body = {
  to: "user@sandbox.svc.test",
  subject: "Your code",
  html: "<p>Hello <b>there</b>, your code is 123456.</p>".repeat(20),
  tags: { flow: "login", n: 3 },
};

function perCall(label: string, calls: number, per: number, fn: () => void) {
  for (let i = 0; i < calls / 10; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) fn();
  const us = ((performance.now() - t0) * 1000) / (calls * per);
  console.log(`${label.padEnd(40)} ${us.toFixed(3)} µs`);
}

const now = Date.now();
perCall("batch event (check + conversion)", 2000, events.length, () => {
  readBatch(events, { leadId: null, visitorId: null }, now);
});
perCall("send body (check + conversion)", 200_000, 1, () => {
  validateSendBody(body);
  toSendRequest(body);
});
