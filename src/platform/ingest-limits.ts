import type { ProjectKeyKind } from "./auth/keys.js";
import { addressGroup } from "./client-address.js";
import { type ServiceDeps, appSlot, stateOf } from "./deps.js";
import { type Budget, type Draw, UnitLimiter } from "./unit-limit.js";

/**
 * The budgets of public ingest (POST /api/events, Segment's /v1, the public stitch), counted in
 * events and new leads on top of the request limits. The public key is in every page of a site,
 * so its caller is anyone: its budgets are per key and client address, so that one address past
 * them is refused while every other visitor of the site is still accepted, under a per-key
 * ceiling far above what one address may send. A secret key is one server: per key, as the spec's
 * request limit.
 */

/**
 * Who sends: the project key the request carries, its kind (the principal's), and the client's
 * address (`req.ip`, which TRUST_PROXY decides); an IPv6 client's /64 counts as one address
 * (`addressGroup`). Routes take it from their principal with `senderOf(req)` (platform/auth).
 */
export interface IngestSender {
  key: string;
  keyKind: ProjectKeyKind;
  address: string;
}

/** The request limit's counter: per secret key (the spec), per public key and address. */
export const ingestLimitKey = (s: IngestSender): string =>
  s.keyKind === "secret" ? `key:${s.key}` : `pk:${s.key}:${addressGroup(s.address)}`;

interface IngestBudgets {
  limiter: UnitLimiter;
  keyEvents: Budget;
  addressEvents: Budget;
  addressLeads: Budget;
}

/** Whether any budget is on: when none is, a request's admission makes nothing. */
const anyOn = (b: IngestBudgets) => b.keyEvents.max > 0 || b.addressEvents.max > 0 || b.addressLeads.max > 0;

const BUDGETS = appSlot("platform.ingest-budgets", (deps): IngestBudgets => {
  const l = deps.config.rateLimits;
  return {
    limiter: new UnitLimiter(deps.redis),
    keyEvents: { name: "key-events", max: l.keyEvents ?? 0, describe: "events per minute for this key" },
    addressEvents: {
      name: "address-events",
      max: l.addressEvents ?? 0,
      describe: "events per minute for this key from one address",
    },
    addressLeads: {
      name: "address-leads",
      max: l.addressLeads ?? 0,
      describe: "new leads per minute for this key from one address",
    },
  };
});

const ADMITTED = Promise.resolve();

/** Whether the sender's new leads are counted (a public key, with the budget on). */
export function countsNewLeads(deps: ServiceDeps, sender: IngestSender): boolean {
  return sender.keyKind === "public" && (deps.config.rateLimits.addressLeads ?? 0) > 0;
}

/**
 * Takes a request's events and the new leads they would make from its sender's budgets, before
 * anything is written: all or nothing, else 429 RATE_LIMITED with Retry-After naming the budget.
 */
export function takeIngestBudget(
  deps: ServiceDeps,
  sender: IngestSender,
  units: { events: number; newLeads?: number },
): Promise<void> {
  const b = stateOf(deps, BUDGETS);
  if (!anyOn(b)) return ADMITTED;
  const { key } = sender;
  const draws: Draw[] = [];
  if (sender.keyKind === "public") {
    // The address's own budgets first: the address past them is told about its own limit.
    const from = `${key}:${addressGroup(sender.address)}`;
    draws.push({ budget: b.addressEvents, key: from, units: units.events });
    draws.push({ budget: b.addressLeads, key: from, units: units.newLeads ?? 0 });
  }
  draws.push({ budget: b.keyEvents, key, units: units.events });
  return b.limiter.take(draws);
}
