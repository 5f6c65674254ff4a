/**
 * The one HTTP client every platform adapter uses: timeouts, retries on 429/5xx and network errors
 * honouring Retry-After, and errors that carry the platform's own message (never the request's
 * credentials or query string, which can hold codes and secrets).
 */
export interface HttpClientOptions {
  timeoutMs: number;
  maxRetries: number;
  /** Multiplies every wait (tests use 0.001). */
  retryScale: number;
  /** A Retry-After longer than this (after scaling) is not slept on: the caller reschedules. */
  maxWaitMs: number;
}

export interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  form?: Record<string, string | undefined>;
  bearer?: string;
  /** Basic auth (OAuth client authentication). */
  basic?: { user: string; password: string };
}

export class PlatformError extends Error {
  constructor(
    readonly status: number,
    /** The platform's own message, for the user. */
    readonly platformMessage: string,
    /** Milliseconds the platform asked us to wait (429 with Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(`platform answered ${status}: ${platformMessage}`);
  }
}

export const DEFAULT_HTTP: HttpClientOptions = {
  timeoutMs: 15_000,
  maxRetries: 4,
  retryScale: 1,
  maxWaitMs: 30_000,
};

/** Parses Retry-After as seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Pulls a human message out of the error bodies the seven platforms use. */
export function platformMessage(body: unknown, fallback: string): string {
  if (typeof body === "string") return body.slice(0, 300) || fallback;
  if (!body || typeof body !== "object") return fallback;
  // biome-ignore lint/suspicious/noExplicitAny: error bodies differ per platform; each path is checked below
  const b = body as Record<string, any>;
  const candidates = [
    b.error?.message, // Google, Stripe, Meta
    b.message, // HubSpot, LinkedIn
    b.error_description, // OAuth
    b.Fault?.Error?.[0]?.Detail ?? b.Fault?.Error?.[0]?.Message, // QuickBooks
    typeof b.error === "string" ? b.error : undefined,
    Array.isArray(b) ? b[0]?.error?.message : undefined,
  ];
  const found = candidates.find((c) => typeof c === "string" && c.length > 0);
  return found ? String(found).slice(0, 300) : fallback;
}

/** Replaces any occurrence of a secret in a platform message before it is stored or shown. */
export function redactSecrets(message: string, secrets: Array<string | undefined>): string {
  let out = message;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join("[redacted]");
  return out.slice(0, 500);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class HttpClient {
  constructor(readonly opts: HttpClientOptions = DEFAULT_HTTP) {}

  async request<T = unknown>(url: string, init: RequestInit = {}): Promise<T> {
    const target = new URL(url);
    for (const [k, v] of Object.entries(init.query ?? {})) {
      if (v !== undefined) target.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { accept: "application/json", ...(init.headers ?? {}) };
    let body: string | undefined;
    if (init.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(init.form)) if (v !== undefined) form.set(k, v);
      body = form.toString();
    }
    if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
    if (init.basic) {
      const raw = `${encodeURIComponent(init.basic.user)}:${encodeURIComponent(init.basic.password)}`;
      headers.authorization = `Basic ${Buffer.from(raw).toString("base64")}`;
    }

    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(target, {
          method: init.method ?? (body === undefined ? "GET" : "POST"),
          headers,
          body,
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        });
      } catch (err) {
        // Network error or timeout: retried like a 503, then reported without the URL's query.
        if (attempt < this.opts.maxRetries) {
          await sleep(this.backoff(attempt));
          continue;
        }
        const why = (err as Error).name === "TimeoutError" ? "timed out" : "unreachable";
        throw new PlatformError(503, `${target.host} ${why}`);
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON (an HTML error page): keep the text for the message.
      }
      if (res.ok) return parsed as T;
      const retryable = res.status === 429 || res.status >= 500;
      const wait = parseRetryAfter(res.headers.get("retry-after"));
      const scaled = wait !== undefined ? wait * this.opts.retryScale : this.backoff(attempt);
      if (retryable && attempt < this.opts.maxRetries && scaled <= this.opts.maxWaitMs) {
        await sleep(scaled);
        continue;
      }
      throw new PlatformError(
        res.status,
        platformMessage(parsed, `HTTP ${res.status}`),
        res.status === 429 ? (scaled ?? 0) : undefined,
      );
    }
  }

  private backoff(attempt: number): number {
    return 500 * 2 ** attempt * this.opts.retryScale;
  }
}

/** Follows a cursor until the page function returns no next cursor. */
export async function collectPages<T, C>(
  first: C | undefined,
  page: (cursor: C | undefined) => Promise<{ items: T[]; next?: C }>,
  maxPages = 1000,
): Promise<T[]> {
  const out: T[] = [];
  let cursor = first;
  for (let i = 0; i < maxPages; i++) {
    const { items, next } = await page(cursor);
    out.push(...items);
    if (next === undefined || next === null || next === "") return out;
    cursor = next;
  }
  return out;
}
