/**
 * The browser snippet served at /api/svc-js?key=<public key>. Loaded with a plain
 * <script src> (ideally in <head>): it keeps an anonymous visitor id, applies running
 * experiments' variants (same bucketing as the server), sends exposures once per visitor and
 * experiment, and tracks pageviews (SPA navigations included), clicks and form submits.
 */
import { assignVariant } from "../modules/experiments/bucketing.js";
import { urlMatches } from "./url-match.js";

interface Variant {
  name: string;
  css?: string;
  js?: string;
}
interface ActiveExperiment {
  id: string;
  targetUrl: string;
  trafficSplit: number;
  weights: number[];
  variants: Variant[];
}
type Data = Record<string, unknown>;

const w = window as unknown as { svc?: { loaded?: boolean } & Record<string, unknown>; fetch?: unknown };
const d = document;
const VID = "svc_vid";
const ANTI_FLICKER_MS = 500;

function store(key: string, value?: string): string | null {
  try {
    if (value === undefined) return localStorage.getItem(key);
    localStorage.setItem(key, value);
  } catch {
    // Storage can be disabled (privacy modes); the cookie still carries the visitor id.
  }
  return null;
}
function readJson(key: string): Record<string, string> {
  try {
    return JSON.parse(store(key) || "{}") as Record<string, string>;
  } catch {
    return {};
  }
}
function readCookie(name: string): string | null {
  const m = d.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return m ? decodeURIComponent(m[1]!) : null;
}
function newVisitorId(): string {
  const c = (window as { crypto?: Crypto }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

function start(): void {
  if (w.svc?.loaded) return;
  const script = (d.currentScript ||
    d.querySelector('script[src*="/api/svc-js"]')) as HTMLScriptElement | null;
  const src = new URL(script?.src || location.href, location.href);
  const key = src.searchParams.get("key") || "";
  const api = src.origin;

  const visitorId = readCookie(VID) || store(VID) || newVisitorId();
  // First-party cookie (2 years) and localStorage: either one surviving keeps the visitor.
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser yet
  d.cookie = `${VID}=${encodeURIComponent(visitorId)}; path=/; max-age=63072000; samesite=lax`;
  store(VID, visitorId);

  // sendBeacon posts text/plain JSON (no CORS preflight) and survives page unloads; both public
  // endpoints accept it. fetch with keepalive is the fallback when a beacon is refused.
  function post(path: string, body: string): void {
    const url = api + path;
    if (navigator.sendBeacon?.(url, body)) return;
    fetch(url, { method: "POST", body, keepalive: true, headers: { "content-type": "text/plain" } }).catch(
      () => {},
    );
  }

  function track(type: string, data?: Data): void {
    const event: Data = { type, visitorId, projectKey: key, url: location.href, data: data || {} };
    if (d.referrer) event.referrer = d.referrer;
    post("/api/events", JSON.stringify(event));
  }

  // Stitching goes by fetch (keepalive, text/plain: no preflight) so a transient server error can
  // be retried; the endpoint is idempotent for the same visitor and email.
  function identify(email: string, attempt = 0): void {
    const body = JSON.stringify({ visitorId, email, projectKey: key });
    const retry = () => attempt < 2 && setTimeout(() => identify(email, attempt + 1), 300 * 3 ** attempt);
    if (!w.fetch) return void post("/api/identity/stitch", body);
    fetch(`${api}/api/identity/stitch`, {
      method: "POST",
      body,
      keepalive: true,
      headers: { "content-type": "text/plain" },
    }).then((r) => r.status >= 500 && retry(), retry);
  }

  const assigned: Record<string, string> = {};
  const sticky = readJson("svc_assign");
  const exposed = readJson("svc_exposed");
  let experiments: ActiveExperiment[] = [];

  function whenReady(fn: () => void): void {
    if (d.readyState === "loading") d.addEventListener("DOMContentLoaded", fn);
    else fn();
  }

  function apply(): void {
    for (const e of experiments) {
      if (assigned[e.id] || !urlMatches(e.targetUrl, location.href)) continue;
      // A visitor keeps the variant first shown (bandit reweights must not flip what they saw).
      let v = e.variants.find((x) => x.name === sticky[e.id]);
      if (!v) v = e.variants[assignVariant(e.id, visitorId, e.weights, e.trafficSplit)];
      if (!v) continue;
      const variant = v;
      assigned[e.id] = sticky[e.id] = variant.name;
      if (variant.css) {
        const style = d.createElement("style");
        style.setAttribute("data-svc-experiment", e.id);
        style.textContent = variant.css;
        (d.head || d.documentElement).appendChild(style);
      }
      if (variant.js)
        whenReady(() => {
          try {
            new Function(variant.js!)();
          } catch {
            // A broken variant script must not break the page or the tracking.
          }
        });
      if (!exposed[e.id]) {
        exposed[e.id] = variant.name;
        track("$exposure", { experimentId: e.id, variant: variant.name });
      }
    }
    store("svc_assign", JSON.stringify(sticky));
    store("svc_exposed", JSON.stringify(exposed));
  }

  // Anti-flicker: hide the page until variants are applied, never longer than ANTI_FLICKER_MS.
  const hide = d.createElement("style");
  hide.textContent = "body{opacity:0!important}";
  (d.head || d.documentElement).appendChild(hide);
  const reveal = () => hide.parentNode?.removeChild(hide);
  setTimeout(reveal, ANTI_FLICKER_MS);

  const ready = fetch(`${api}/api/experiments/active?key=${encodeURIComponent(key)}`)
    .then((r) => (r.ok ? (r.json() as Promise<ActiveExperiment[]>) : []))
    .then((list) => {
      experiments = list;
      apply();
    })
    .catch(() => {})
    .then(() => whenReady(reveal));

  let lastUrl = location.href;
  track("pageview");
  function navigated(): void {
    if (location.href === lastUrl) return;
    lastUrl = location.href;
    track("pageview");
    apply();
  }
  for (const m of ["pushState", "replaceState"] as const) {
    const original = history[m];
    history[m] = function (this: History, ...args: Parameters<History["pushState"]>) {
      original.apply(this, args);
      navigated();
    };
  }
  addEventListener("popstate", navigated);

  d.addEventListener(
    "click",
    (ev) => {
      const el = (ev.target as Element | null)?.closest?.(
        "a,button,[role=button],input[type=submit],input[type=button]",
      ) as (HTMLElement & { href?: string; value?: string }) | null;
      if (!el) return;
      const data: Data = {
        tag: el.tagName.toLowerCase(),
        text: (el.textContent || el.value || "").trim().slice(0, 200),
      };
      if (el.href) data.href = el.href;
      if (el.id) data.id = el.id;
      track("click", data);
    },
    true,
  );

  d.addEventListener(
    "submit",
    (ev) => {
      const form = ev.target as HTMLFormElement;
      const fields: string[] = [];
      let email = "";
      for (const el of Array.from(form.elements) as HTMLInputElement[]) {
        if (!el.name) continue;
        fields.push(el.name);
        if (!email && (el.type === "email" || /e-?mail/i.test(el.name)) && /@/.test(el.value))
          email = el.value.trim();
      }
      const data: Data = { fields };
      if (form.id) data.formId = form.id;
      if (form.getAttribute("name")) data.formName = form.getAttribute("name");
      if (form.getAttribute("action")) data.action = form.action;
      track("form_submit", data);
      if (email) identify(email);
    },
    true,
  );

  w.svc = {
    loaded: true,
    visitorId,
    ready,
    track: (name: string, data?: Data) => track(String(name), data),
    identify: (email: string) => identify(String(email).trim()),
    getVariant: (experimentId: string) => assigned[experimentId] ?? null,
  };
}

start();
