import type { ServerResponse } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { PayloadCache, PayloadEntry } from "./sdk-cache.js";

/**
 * The open `GET /sub/:clientKey` streams of this process, by project. GrowthBook's SDKs listen
 * for `features` (data = the payload JSON, which replaces theirs when its dateUpdated differs)
 * and `features-updated` (no data: fetch again; what remote-evaluation clients get, so the rules
 * never reach them).
 */
interface Stream {
  res: ServerResponse;
  /** ETag of the payload this stream last got. */
  etag: string | null;
}

export interface StreamOptions {
  /** Streams this process holds at most (503 beyond). */
  maxStreams: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  pingMs: number;
  /** Projects with streams are re-read this often, for changes whose notification was lost. */
  recheckMs: number;
  /** A stream whose unsent output exceeds this (a client that stopped reading) is closed. */
  maxBuffered: number;
}

export const STREAM_DEFAULTS: StreamOptions = {
  maxStreams: 20_000,
  pingMs: 25_000,
  recheckMs: 30_000,
  maxBuffered: 4 * 1024 * 1024,
};

const PING = Buffer.from(": ping\n\n");
const UPDATED = Buffer.from("event: features-updated\ndata: \n\n");

export class FlagStreams {
  private byProject = new Map<string, Set<Stream>>();
  private count = 0;
  private dirty = new Set<string>();
  private running = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  /** One event buffer per payload, shared by every stream that gets it. */
  private events = new WeakMap<PayloadEntry, Buffer>();

  constructor(
    private cache: PayloadCache,
    private log: FastifyBaseLogger,
    private opts: StreamOptions = STREAM_DEFAULTS,
  ) {
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(opts.pingMs, () => {
      for (const set of this.byProject.values()) for (const s of set) this.write(s, PING);
    });
    every(opts.recheckMs, () => {
      for (const projectId of this.byProject.keys()) {
        this.cache.invalidate(projectId);
        this.changed(projectId);
      }
    });
  }

  get size(): number {
    return this.count;
  }

  /** Projects with open streams. */
  projects(): string[] {
    return [...this.byProject.keys()];
  }

  full(): boolean {
    return this.count >= this.opts.maxStreams;
  }

  /**
   * Takes over a response whose headers are written: sends the current payload at once (a change
   * between the SDK's fetch and this stream's start would otherwise be missed; an SDK ignores a
   * payload whose dateUpdated it has), then every change.
   */
  open(projectId: string, res: ServerResponse, entry: PayloadEntry): void {
    const stream: Stream = { res, etag: null };
    const set = this.byProject.get(projectId) ?? new Set<Stream>();
    this.byProject.set(projectId, set);
    set.add(stream);
    this.count++;
    res.once("close", () => {
      if (!set.delete(stream)) return;
      this.count--;
      if (set.size === 0 && this.byProject.get(projectId) === set) this.byProject.delete(projectId);
    });
    if (!entry.remoteEvalOnly) this.send(stream, entry, this.featuresEvent(entry));
    else stream.etag = entry.etag;
  }

  /** The project's payload may have changed (its cache entry was dropped): push it if it did. */
  changed(projectId: string): void {
    if (!this.byProject.has(projectId)) return;
    this.dirty.add(projectId);
    // One push at a time per project, always of the newest payload: an older build can never
    // overtake a newer one, and a burst of changes costs one or two pushes.
    if (!this.running.has(projectId)) void this.drain(projectId);
  }

  private async drain(projectId: string): Promise<void> {
    this.running.add(projectId);
    try {
      while (this.dirty.delete(projectId)) {
        const set = this.byProject.get(projectId);
        if (!set) return;
        try {
          const entry = await this.cache.get(projectId);
          let event: Buffer | undefined;
          for (const s of set) {
            if (s.etag === entry.etag) continue;
            event ??= entry.remoteEvalOnly ? UPDATED : this.featuresEvent(entry);
            this.send(s, entry, event);
          }
        } catch (err) {
          this.log.warn({ err, projectId }, "flags: payload not pushed to streams");
        }
      }
    } finally {
      this.running.delete(projectId);
    }
  }

  private featuresEvent(entry: PayloadEntry): Buffer {
    let event = this.events.get(entry);
    if (!event) {
      // JSON.stringify escapes line breaks: the payload is one `data:` line.
      event = Buffer.from(`event: features\ndata: ${entry.body}\n\n`);
      this.events.set(entry, event);
    }
    return event;
  }

  private send(s: Stream, entry: PayloadEntry, event: Buffer): void {
    s.etag = entry.etag;
    this.write(s, event);
  }

  private write(s: Stream, chunk: Buffer): void {
    if (s.res.destroyed) return;
    if (s.res.writableLength > this.opts.maxBuffered) {
      s.res.destroy();
      return;
    }
    s.res.write(chunk);
  }

  /** Ends every stream (shutdown: the server waits for open connections). */
  closeAll(): void {
    for (const t of this.timers) clearInterval(t);
    for (const set of this.byProject.values()) for (const s of set) s.res.end();
  }
}
