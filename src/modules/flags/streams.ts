import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { AppError } from "../../platform/errors.js";
import type { PayloadCache, PayloadEntry } from "./sdk-cache.js";

/**
 * The open `GET /sub/:clientKey` streams of this process, by project. GrowthBook's SDKs listen
 * for `features` (data = the payload JSON, which replaces theirs when its dateUpdated differs)
 * and `features-updated` (no data: fetch again; what remote-evaluation clients get, so the rules
 * never reach them).
 */
interface Stream {
  res: ServerResponse;
  /** Taken at open: after a response ends, Node detaches it from the connection. */
  socket?: Socket;
  slot: StreamSlot;
  /** ETag of the payload this stream last got. */
  etag: string | null;
  /** Writes not yet taken by the kernel. */
  pending: number;
  /** Armed while writes are pending: the client has that long to read them. */
  stall?: NodeJS.Timeout;
  lifetime?: NodeJS.Timeout;
  /** Says only `features-updated`: a server's SDK, which refetches the server payload. */
  refetch: boolean;
}

/** A stream's place under the caps, taken before its payload loads (so no burst slips past). */
export interface StreamSlot {
  projectId: string;
  address: string;
  released: boolean;
}

export interface StreamOptions {
  /** Streams this process holds at most (503 beyond). */
  maxStreams: number;
  /** Streams per client address group (429 beyond; 0: no cap). */
  perAddress: number;
  /** Streams per project (429 beyond; 0: no cap). */
  perProject: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  pingMs: number;
  /** Projects with streams are re-read this often, for changes whose notification was lost. */
  recheckMs: number;
  /** A stream whose unsent output exceeds this (a client that stopped reading) is closed. */
  maxBuffered: number;
  /** A stream is ended after this, less up to a quarter at random (SDKs reconnect). */
  lifetimeMs: number;
  /** A stream whose output has waited this long for the kernel to take it is dropped. */
  stallMs: number;
}

export const STREAM_DEFAULTS: StreamOptions = {
  maxStreams: 20_000,
  perAddress: 0,
  perProject: 0,
  pingMs: 25_000,
  recheckMs: 30_000,
  maxBuffered: 4 * 1024 * 1024,
  lifetimeMs: 10 * 60_000,
  stallMs: 30_000,
};

// A refused client's connection is closed, not kept alive: it comes back later with a new one,
// and an idle connection would hold a descriptor meanwhile.
const REFUSED_LATER = { "retry-after": "60", connection: "close" };
const REFUSED_SOON = { "retry-after": "30", connection: "close" };
const PING = Buffer.from(": ping\n\n");
const UPDATED = Buffer.from("event: features-updated\ndata: \n\n");

export class FlagStreams {
  private byProject = new Map<string, Set<Stream>>();
  private count = 0;
  private perProject = new Map<string, number>();
  private perAddress = new Map<string, number>();
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

  /** Streams open or about to open. */
  get size(): number {
    return this.count;
  }

  /** The process's cap. */
  get limit(): number {
    return this.opts.maxStreams;
  }

  /** Projects with open streams. */
  projects(): string[] {
    return [...this.byProject.keys()];
  }

  full(): boolean {
    return this.count >= this.opts.maxStreams;
  }

  /**
   * Takes a place for a stream of `projectId` from `address`, or refuses: the address's and the
   * project's caps first (429: that caller has its share), then the process's (503: everyone waits).
   */
  reserve(projectId: string, address: string): StreamSlot {
    const { perAddress, perProject } = this.opts;
    if (perAddress > 0 && (this.perAddress.get(address) ?? 0) >= perAddress)
      throw new AppError(
        "RATE_LIMITED",
        `at most ${perAddress} flag streams per client address are open at once; retry later`,
        REFUSED_LATER,
      );
    if (perProject > 0 && (this.perProject.get(projectId) ?? 0) >= perProject)
      throw new AppError(
        "RATE_LIMITED",
        `this project holds its maximum of ${perProject} open flag streams on this server; retry later`,
        REFUSED_LATER,
      );
    if (this.full())
      throw new AppError(
        "UNAVAILABLE",
        "this server holds its maximum of streams; retry shortly",
        REFUSED_SOON,
      );
    this.count++;
    bump(this.perProject, projectId, 1);
    bump(this.perAddress, address, 1);
    return { projectId, address, released: false };
  }

  /** Gives a place back (its stream closed, or never opened). */
  release(slot: StreamSlot): void {
    if (slot.released) return;
    slot.released = true;
    this.count--;
    bump(this.perProject, slot.projectId, -1);
    bump(this.perAddress, slot.address, -1);
  }

  /**
   * Takes over a response whose headers are written: sends the current payload at once (a change
   * between the SDK's fetch and this stream's start would otherwise be missed; an SDK ignores a
   * payload whose dateUpdated it has), then every change, until its lifetime ends.
   */
  open(
    projectId: string,
    res: ServerResponse,
    entry: PayloadEntry,
    slot: StreamSlot = this.reserve(projectId, ""),
    opts: { refetch?: boolean } = {},
  ): void {
    // The client left while the payload loaded: its close event has passed.
    if (res.destroyed) {
      this.release(slot);
      return;
    }
    const stream: Stream = {
      res,
      socket: res.socket ?? undefined,
      slot,
      etag: null,
      pending: 0,
      refetch: opts.refetch === true,
    };
    const set = this.byProject.get(projectId) ?? new Set<Stream>();
    this.byProject.set(projectId, set);
    set.add(stream);
    res.once("close", () => {
      clearTimeout(stream.stall);
      clearTimeout(stream.lifetime);
      this.release(slot);
      if (!set.delete(stream)) return;
      if (set.size === 0 && this.byProject.get(projectId) === set) this.byProject.delete(projectId);
    });
    if (this.opts.lifetimeMs > 0) {
      // Spread, so that streams opened together (after a deploy) do not all reconnect together.
      const ms = this.opts.lifetimeMs * (1 - Math.random() / 4);
      stream.lifetime = setTimeout(() => this.finish(stream), ms);
      stream.lifetime.unref();
    }
    if (!entry.remoteEvalOnly && !stream.refetch) this.send(stream, entry, this.featuresEvent(entry));
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
            if (s.refetch || entry.remoteEvalOnly) {
              this.send(s, entry, UPDATED);
              continue;
            }
            event ??= this.featuresEvent(entry);
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

  /**
   * Node's count of unsent bytes misses what the kernel's socket buffers hold (the connection's
   * send buffer and the client's receive window), so a client that stopped reading stays under any
   * byte bound for long. What Node does see is whether the kernel takes each write: once those
   * buffers are full, writes wait. A stream whose writes have waited `stallMs` without its queue
   * emptying is dropped.
   */
  private write(s: Stream, chunk: Buffer): void {
    if (s.res.destroyed || s.res.writableEnded) return;
    if (s.res.writableLength > this.opts.maxBuffered) {
      this.drop(s);
      return;
    }
    s.pending++;
    if (!s.stall) {
      s.stall = setTimeout(() => this.drop(s), this.opts.stallMs);
      s.stall.unref();
    }
    s.res.write(chunk, () => {
      if (--s.pending > 0) return;
      clearTimeout(s.stall);
      s.stall = undefined;
    });
  }

  /**
   * A reset, not a graceful close: the kernel then frees what it still holds for the client at
   * once, instead of retrying to deliver it to a client that does not read.
   */
  private drop(s: Stream): void {
    if (s.socket && !s.socket.destroyed) s.socket.resetAndDestroy();
    else s.res.destroy();
  }

  /**
   * Ends a stream cleanly (its SDK reconnects) and closes its connection, which a client that
   * does not read never lets happen: it is dropped after `stallMs`.
   */
  private finish(s: Stream): void {
    if (s.res.destroyed || s.res.writableEnded) return;
    const socket = s.socket;
    s.res.end(() => socket?.end());
    if (!socket) return;
    const timer = setTimeout(() => this.drop(s), this.opts.stallMs);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  }

  /** Ends every stream (shutdown: the server waits for open connections). */
  closeAll(): void {
    for (const t of this.timers) clearInterval(t);
    for (const set of this.byProject.values()) for (const s of set) this.finish(s);
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
