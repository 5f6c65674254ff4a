/**
 * The browser snippet served at /api/svc-js?key=<public key>. Loaded with a plain
 * <script src> (ideally in <head>): it keeps an anonymous visitor id, applies running
 * experiments' variants (same bucketing as the server), sends exposures once per visitor and
 * experiment, and tracks pageviews (SPA navigations included), clicks and form submits.
 */
import { startExperiments } from "./experiments.js";
import { store } from "./storage.js";

type Data = Record<string, unknown>;

const w = window as unknown as { svc?: { loaded?: boolean } & Record<string, unknown>; fetch?: unknown };
const d = document;
const VID = "svc_vid";

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

  // The pageview goes first: with a cached list the exposure is sent at once, and a conversion
  // counts from its exposure on (a pageview goal must not count the page that exposed).
  let lastUrl = location.href;
  track("pageview");
  const experiments = startExperiments({ key, api, visitorId, track });
  function navigated(): void {
    const from = lastUrl;
    if (location.href === from) return;
    lastUrl = location.href;
    track("pageview");
    experiments.navigated(from);
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
    ready: experiments.ready,
    track: (name: string, data?: Data) => track(String(name), data),
    identify: (email: string) => identify(String(email).trim()),
    getVariant: experiments.getVariant,
  };
}

start();
