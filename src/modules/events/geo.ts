import type { ServiceDeps } from "../../platform/deps.js";
import { stateOf } from "../../platform/deps.js";
import { GEO } from "../../platform/geo.js";
import type { IngestSender } from "../../platform/ingest-limits.js";
import type { IncomingEvent } from "./validate.js";

/** The data property reports read a country from (analytics' filter key `country`). */
export const COUNTRY_PROPERTY = "$country";

/**
 * Gives a browser's events the country of its request's address (docs/privacy.md): only events
 * sent with a public key, whose request came from the person's browser — a secret key's address
 * is a server's. An event that carries a country keeps it. The address is looked up once per
 * request and goes no further than this call.
 */
export function addCountry(deps: ServiceDeps, sender: IngestSender, events: IncomingEvent[]): void {
  if (sender.keyKind !== "public" || events.length === 0) return;
  const country = stateOf(deps, GEO)?.country(sender.address);
  if (!country) return;
  for (const e of events) {
    if (COUNTRY_PROPERTY in e.data) continue;
    e.data = { ...e.data, [COUNTRY_PROPERTY]: country };
    // Two capital letters need no escaping: spliced in rather than serializing the data again.
    e.dataJson =
      e.dataJson === "{}"
        ? `{"${COUNTRY_PROPERTY}":"${country}"}`
        : `${e.dataJson.slice(0, -1)},"${COUNTRY_PROPERTY}":"${country}"}`;
  }
}
