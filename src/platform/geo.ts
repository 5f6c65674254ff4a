import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Reader } from "maxmind";
import { isAddress, ipv4Of } from "./client-address.js";
import { appSlot } from "./deps.js";

/**
 * An address's country (ISO 3166-1 alpha-2) from an MMDB country database, read with `maxmind`
 * (docs/privacy.md). The file is read into memory once, at start; a lookup walks its tree in
 * memory (a few µs) and nothing is sent anywhere. Both the bundled database's `country_code` and
 * MaxMind's `country.iso_code` shapes are read.
 */

/** GEOIP's default: the database shipped with Lift (@ip-location-db/geo-whois-asn-country-mmdb). */
export const BUNDLED = "bundled";

type CountryRecord = { country_code?: string; country?: { iso_code?: string } };

export interface GeoLookup {
  /** The address's country, or null (private, unknown, not an address). */
  country(address: string): string | null;
}

const bundledPath = () =>
  createRequire(import.meta.url).resolve(
    "@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
  );

/** The lookup GEOIP names: null when "off". A path that cannot be read fails the start. */
export function openGeo(setting: string): GeoLookup | null {
  if (setting === "off") return null;
  // maxmind types records as MaxMind's own databases shape them; the bundled one is flatter.
  const reader = new Reader<never>(readFileSync(setting === BUNDLED ? bundledPath() : setting));
  return {
    country(address) {
      // `::ffff:a.b.c.d` (a dual-stack socket's IPv4 client) is looked up as the IPv4 address.
      const plain = ipv4Of(address) ?? (isAddress(address) ? address : null);
      if (plain === null) return null;
      const r = reader.get(plain) as CountryRecord | null;
      const code = r?.country_code ?? r?.country?.iso_code;
      return typeof code === "string" && /^[A-Z]{2}$/.test(code) ? code : null;
    },
  };
}

/** This app's lookup, opened from its config on first use (the events module opens it at start). */
export const GEO = appSlot("geo", (deps) => openGeo(deps.config.geoip));
