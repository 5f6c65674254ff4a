import { createRequire } from "node:module";
import { boundedCache } from "../../../platform/cache.js";

/** Marketing channels, evaluated in the order of GA4's default channel group (see channels.json). */
export const CHANNELS = [
  "direct",
  "organic_search",
  "paid_search",
  "organic_social",
  "paid_social",
  "email",
  "referral",
  "display",
  "affiliate",
  "ai_assistant",
] as const;
export type Channel = (typeof CHANNELS)[number];

interface Clause {
  noSource?: boolean;
  category?: string;
  medium?: string;
  source?: string;
  hasReferrer?: boolean;
}
interface RulesFile {
  patterns: Record<string, string>;
  clickIds: Record<string, { source: string; medium: string | null }>;
  rules: { channel: Channel; when: Clause[] }[];
  fallback: Channel;
  sources: Record<string, { category: string; hosts: string[]; aliases?: string[] }>;
}

// Loaded with require so the JSON file ships as data and tsx/node need no import attributes.
const rules = createRequire(import.meta.url)("./channels.json") as RulesFile;
const patterns = new Map(Object.entries(rules.patterns).map(([k, v]) => [k, new RegExp(v, "i")]));
const hostToSource = new Map<string, string>();
const wildcardToSource = new Map<string, string>(); // "google" for "google.*"
const nameToCategory = new Map<string, string>();
for (const [name, s] of Object.entries(rules.sources)) {
  nameToCategory.set(name, s.category);
  for (const alias of s.aliases ?? []) nameToCategory.set(alias, s.category);
  for (const host of s.hosts) {
    if (host.endsWith(".*")) wildcardToSource.set(host.slice(0, -2), name);
    else hostToSource.set(host, name);
  }
}
const CLICK_IDS = Object.keys(rules.clickIds);

/** What an event's URL and referrer say about where the visit came from. */
export interface Acquisition {
  channel: Channel;
  /** canonical source name ("google", "newsletter", "example.com"), null for direct */
  source: string | null;
  medium: string | null;
  campaign: string | null;
  referrerHost: string | null;
  /** set when the referrer is the site itself: not a new source */
  selfReferral: boolean;
  /** the page without query or fragment */
  landingPage: string;
}

function parse(url: string | null | undefined): URL | null {
  if (!url) return null;
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function bareHost(u: URL): string {
  // android-app://com.google.android.gm/ referrers name the app package as host.
  return u.hostname.toLowerCase().replace(/^www\./, "");
}

/** Maps a referrer host to a known source name: exact host, parent domains, then "name.*" (any TLD). */
export function sourceForHost(host: string): string | null {
  const labels = host.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    const hit = hostToSource.get(labels.slice(i).join("."));
    if (hit) return hit;
  }
  for (let i = 0; i < labels.length - 1; i++) {
    const rest = labels.slice(i + 1);
    // "google.co.uk", "yandex.ru": the name followed by one or two short TLD labels.
    if (rest.length <= 2 && rest.every((l) => l.length <= 3)) {
      const hit = wildcardToSource.get(labels[i]!);
      if (hit) return hit;
    }
  }
  return null;
}

function categoryOf(source: string | null, referrerHost: string | null): string | null {
  if (source) {
    const c = nameToCategory.get(source);
    if (c) return c;
    const named = sourceForHost(source);
    if (named) return nameToCategory.get(named) ?? null;
  }
  if (referrerHost) {
    const named = sourceForHost(referrerHost);
    if (named) return nameToCategory.get(named) ?? null;
  }
  return null;
}

function matches(
  c: Clause,
  f: { source: string | null; medium: string | null; category: string | null; ref: boolean },
): boolean {
  if (c.noSource !== undefined && c.noSource !== (f.source === null && f.medium === null)) return false;
  if (c.category !== undefined && c.category !== f.category) return false;
  if (c.medium !== undefined && !(f.medium !== null && patterns.get(c.medium)!.test(f.medium))) return false;
  if (c.source !== undefined && !(f.source !== null && patterns.get(c.source)!.test(f.source))) return false;
  if (c.hasReferrer !== undefined && c.hasReferrer !== f.ref) return false;
  return true;
}

// Landing URL + referrer pairs repeat a lot (ads, newsletters, home page): remember recent answers.
const cache = boundedCache<string, Acquisition>(5000);

/**
 * Derives channel and source of a visit; results are cached by (url, referrer) and must not be
 * mutated by callers.
 */
export function deriveAcquisition(url: string, referrer: string | null | undefined): Acquisition {
  const key = `${url}\n${referrer ?? ""}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = Object.freeze(derive(url, referrer));
    cache.set(key, hit);
  }
  return hit;
}

/**
 * Derives channel and source of a visit from the landing URL (UTM tags, click ids) and the
 * referrer. UTM tags win over click ids, which win over the referrer (GA4 precedence).
 */
function derive(url: string, referrer: string | null | undefined): Acquisition {
  const page = parse(url);
  const ref = parse(referrer);
  const q = page?.searchParams;
  const pageHost = page ? bareHost(page) : null;
  let referrerHost = ref ? bareHost(ref) || null : null;
  const selfReferral = referrerHost !== null && pageHost !== null && referrerHost === pageHost;
  if (selfReferral) referrerHost = null;

  const lower = (v: string | null | undefined) => (v ? v.trim().toLowerCase() || null : null);
  let source = lower(q?.get("utm_source"));
  let medium = lower(q?.get("utm_medium"));
  const campaign = q?.get("utm_campaign")?.trim() || null;
  if (!source && !medium && q) {
    const id = CLICK_IDS.find((k) => q.has(k));
    if (id) ({ source, medium } = rules.clickIds[id]!);
  }
  if (!source && referrerHost) source = sourceForHost(referrerHost) ?? referrerHost;
  const category = categoryOf(source, referrerHost);
  const facts = { source, medium, category, ref: referrerHost !== null };
  const rule = rules.rules.find((r) => r.when.some((c) => matches(c, facts)));
  return {
    channel: rule?.channel ?? rules.fallback,
    source,
    medium,
    campaign,
    referrerHost,
    selfReferral,
    landingPage: page && page.origin !== "null" ? page.origin + page.pathname : url.split(/[?#]/)[0]!,
  };
}
