import type { ServiceDeps } from "../../platform/deps.js";
import { stateOf } from "../../platform/deps.js";
import { GEO } from "../../platform/geo.js";
import type { IngestSender } from "../../platform/ingest-limits.js";
import type { IncomingEvent } from "../event-store/service.js";

/** The data property reports read a country from (analytics' filter key `country`). */
export const COUNTRY_PROPERTY = "$country";

/**
 * Gives events a country (docs/privacy.md). An event whose message names its end user's address
 * (`addresses[i]`: a server relaying for many users) gets that address's country. Any other gets
 * the country of its request's address only when sent with a public key, whose request came from
 * the person's browser — a secret key's address is a server's. An event that carries a country
 * keeps it. Each address is looked up once per request and goes no further than this call.
 */
export function addCountry(
  deps: ServiceDeps,
  sender: IngestSender,
  events: IncomingEvent[],
  addresses?: readonly (string | undefined)[],
): void {
  if (events.length === 0) return;
  if (sender.keyKind !== "public" && !addresses?.some(Boolean)) return;
  const geo = stateOf(deps, GEO);
  if (!geo) return;
  // The request's country is looked up once, on first need; other addresses once each.
  let fromRequest: string | null | undefined = sender.keyKind === "public" ? undefined : null;
  let known: Map<string, string | null> | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (COUNTRY_PROPERTY in e.data) continue;
    const own = addresses?.[i];
    let country: string | null = null;
    if (own) {
      known ??= new Map();
      if (known.has(own)) country = known.get(own)!;
      else {
        country = geo.country(own);
        known.set(own, country);
      }
    }
    // An address that gives no country (private, not an address) says nothing: the request's rule.
    if (country === null) {
      if (fromRequest === undefined) fromRequest = geo.country(sender.address);
      country = fromRequest;
    }
    if (!country) continue;
    e.data = { ...e.data, [COUNTRY_PROPERTY]: country };
    // Two capital letters need no escaping: spliced in rather than serializing the data again.
    e.dataJson =
      e.dataJson === "{}"
        ? `{"${COUNTRY_PROPERTY}":"${country}"}`
        : `${e.dataJson.slice(0, -1)},"${COUNTRY_PROPERTY}":"${country}"}`;
  }
}
