/**
 * The snippet's experiments: decides once per page view which variants to show, behind the
 * anti-flicker cover, and applies or removes them as an SPA moves between routes. Bucketing is
 * the server's (GrowthBook's) bucketing.ts, bundled as is.
 */
import { assignVariant } from "../modules/experiments/bucketing.js";
import { readJson, store } from "./storage.js";
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
interface CachedList {
  k: string;
  t: number;
  l: ActiveExperiment[];
}

const d = document;
const ANTI_FLICKER_MS = 500;
const CACHE = "svc_active";
const CACHE_MS = 30 * 60_000;
const SETTLE_MS = 50;
const SETTLE_MAX_MS = 1000;

export interface ExperimentsDeps {
  key: string;
  api: string;
  visitorId: string;
  track: (type: string, data: Record<string, unknown>) => void;
}

function whenReady(fn: () => void): void {
  if (d.readyState === "loading") d.addEventListener("DOMContentLoaded", fn);
  else fn();
}

function runScript(js: string): void {
  try {
    new Function(js)();
  } catch {
    // A broken variant script must not break the page or the tracking.
  }
}

/**
 * Runs `run` once the app has rendered the route it navigated to. Routers render after their own
 * pushState call returns (in the same task, a microtask, or a later task such as React's
 * scheduler), so the script waits until the DOM has not changed for SETTLE_MS, and runs after
 * SETTLE_MAX_MS on a page that never stops changing.
 */
function afterRender(run: () => void): void {
  let quiet: ReturnType<typeof setTimeout>;
  const done = () => {
    observer.disconnect();
    clearTimeout(quiet);
    clearTimeout(cap);
    run();
  };
  const wait = () => {
    clearTimeout(quiet);
    quiet = setTimeout(done, SETTLE_MS);
  };
  const observer = new MutationObserver(wait);
  observer.observe(d.documentElement, { childList: true, subtree: true, characterData: true });
  const cap = setTimeout(done, SETTLE_MAX_MS);
  wait();
}

export function startExperiments({ key, api, visitorId, track }: ExperimentsDeps) {
  const shown: Record<string, string> = {};
  // A visitor keeps the variant first shown (bandit reweights must not flip what they saw).
  const sticky = readJson<Record<string, string>>("svc_assign", {});
  const exposed = readJson<Record<string, string>>("svc_exposed", {});
  const styles: Record<string, Element> = {};
  // The current route entry per applied experiment: a script scheduled for an entry the visitor
  // has already left does not run.
  const entries: Record<string, number> = {};
  let entryCount = 0;
  let experiments: ActiveExperiment[] = [];

  /**
   * Applies the experiments that match the current URL and did not match `from` (null: the page
   * view's first decision) and removes the CSS of those that matched `from` and no longer match.
   * Variant scripts go to `schedule`, which runs them when the page is ready for them.
   */
  function enter(from: string | null, schedule: (run: () => void) => void): void {
    for (const e of experiments) {
      const now = urlMatches(e.targetUrl, location.href);
      const was = from !== null && urlMatches(e.targetUrl, from);
      if (was && !now) {
        styles[e.id]?.remove();
        delete styles[e.id];
        delete entries[e.id];
      }
      if (!now || was) continue;
      const variant =
        e.variants.find((x) => x.name === sticky[e.id]) ||
        e.variants[assignVariant(e.id, visitorId, e.weights, e.trafficSplit)];
      if (!variant) continue;
      shown[e.id] = sticky[e.id] = variant.name;
      const entry = ++entryCount;
      entries[e.id] = entry;
      if (variant.css) {
        const style = d.createElement("style");
        style.setAttribute("data-svc-experiment", e.id);
        style.textContent = variant.css;
        (d.head || d.documentElement).appendChild(style);
        styles[e.id] = style;
      }
      const js = variant.js;
      if (js) schedule(() => entries[e.id] === entry && runScript(js));
      if (!exposed[e.id]) {
        exposed[e.id] = variant.name;
        track("$exposure", { experimentId: e.id, variant: variant.name });
      }
    }
    store("svc_assign", JSON.stringify(sticky));
    store("svc_exposed", JSON.stringify(exposed));
  }

  // Anti-flicker: the page is hidden until this page view's variants are decided, at most
  // ANTI_FLICKER_MS. `decided` is the single place of that decision: the first of the list
  // (cached or answered) and the cap wins. A list answered after the cap is only cached for the
  // next page view, so a page the visitor has seen never switches and records no exposure.
  const hide = d.createElement("style");
  hide.textContent = "body{opacity:0!important}";
  (d.head || d.documentElement).appendChild(hide);
  let shownToVisitor: () => void;
  const ready = new Promise<void>((r) => {
    shownToVisitor = r;
  });
  const reveal = () => {
    hide.remove();
    shownToVisitor();
  };
  let decided = false;
  function decide(list: ActiveExperiment[] | null): boolean {
    if (decided) return false;
    decided = true;
    const scripts: (() => void)[] = [];
    if (list) {
      experiments = list;
      enter(null, (run) => scripts.push(run));
    }
    // CSS is in place before the first visible paint; scripts need the parsed document, and the
    // page stays hidden until they ran, so the visitor never sees them change it.
    if (scripts.length)
      whenReady(() => {
        for (const run of scripts) run();
        reveal();
      });
    else reveal();
    return true;
  }

  // The list last answered, younger than CACHE_MS: this page view decides on it at once and the
  // answer of its own request only refreshes the cache (stale-while-revalidate, as GrowthBook).
  const cache = readJson<CachedList | null>(CACHE, null);
  const cached = cache && cache.k === key && Date.now() - cache.t < CACHE_MS ? cache.l : null;
  if (cached) decide(cached);
  else setTimeout(() => decide(null), ANTI_FLICKER_MS);

  fetch(`${api}/api/experiments/active?key=${encodeURIComponent(key)}`)
    .then((r) => (r.ok ? (r.json() as Promise<ActiveExperiment[]>) : null))
    .then((list) => {
      if (!list) return;
      store(CACHE, JSON.stringify({ k: key, t: Date.now(), l: list } satisfies CachedList));
      // Too late for this page view's URL; later SPA route entries use it.
      if (!decide(list) && !cached) experiments = list;
    })
    .catch(() => {})
    .then(() => decide(null));

  return {
    ready,
    getVariant: (experimentId: string): string | null => shown[experimentId] ?? null,
    /** The URL changed in the page (pushState, replaceState, popstate) from `from`. */
    navigated(from: string): void {
      if (decided) enter(from, afterRender);
    },
  };
}
