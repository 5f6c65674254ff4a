import { UAParser } from "ua-parser-js";
import type { CommittedEvent } from "../../../platform/event-bus.js";
import { memoize } from "../../../platform/cache.js";
import { deriveAcquisition } from "../../event-store/service.js";

/** The dimensions a session decides once, at its first event; stored on its touchpoint row. */
export const SESSION_DIMENSIONS = [
  "source",
  "campaign",
  "landing_page",
  "referrer_domain",
  "device",
  "browser",
  "os",
] as const;
export type SessionDimension = (typeof SESSION_DIMENSIONS)[number];

/** What a breakdown can group by (`GET /api/analytics/breakdown?by=`), in the order documented. */
export const BREAKDOWN_DIMENSIONS = ["channel", ...SESSION_DIMENSIONS, "event_type"] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];
/** What a funnel can be broken down by: the values of the session a person entered in. */
export const FUNNEL_BREAKDOWNS = ["channel", ...SESSION_DIMENSIONS] as const;
export type FunnelBreakdown = (typeof FUNNEL_BREAKDOWNS)[number];
export type SessionDimensions = Record<SessionDimension, string | null>;

/** The key of a missing value (a direct visit has no source, a server event no session). */
export const NONE_KEY = "(none)";

export interface UserAgentFacts {
  device: string | null;
  browser: string | null;
  os: string | null;
}

/**
 * ua-parser-js is costly per string; browsers send a handful of distinct User-Agents, so parses
 * are memoized. A parser gives no device type for desktops: a known browser or OS without one is
 * "desktop".
 */
export const parseUserAgent = memoize<UserAgentFacts>(5000, (ua) => {
  const r = new UAParser(ua).getResult();
  const browser = r.browser.name ?? null;
  const os = r.os.name ?? null;
  const device = r.device.type ?? (browser || os ? "desktop" : null);
  return { device, browser, os };
});

const NO_AGENT: UserAgentFacts = { device: null, browser: null, os: null };

/** The session dimensions of the event that started a session. */
export function sessionDimensions(e: CommittedEvent): SessionDimensions {
  const acq = deriveAcquisition(e.url, e.referrer);
  const agent = e.userAgent ? parseUserAgent(e.userAgent) : NO_AGENT;
  return {
    source: e.source,
    campaign: acq.campaign,
    landing_page: acq.landingPage || null,
    referrer_domain: acq.referrerHost,
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
  };
}
