import type SQLite from "better-sqlite3";
import { readConfigVersions } from "./config-version.js";
import type { Trx } from "./db/index.js";

/**
 * Where an event comes from. `web`: the snippet format (one event per request, from a browser or
 * anything posting that format). `server`: the batch (SDK) format and server-side sources
 * (incoming webhooks, connectors). Server events never start a session or a touchpoint and never
 * set a visitor's first touch; they convert and belong to their visitor's or lead's journey.
 */
export type EventOrigin = "web" | "server";

/**
 * The channel of a server event (it has no session) and of a conversion whose person has no web
 * touch: revenue without a web visit is not `direct`.
 */
export const UNATTRIBUTED_CHANNEL = "unattributed";

/** A tracking event as committed by the events module, after enrichment. */
export interface CommittedEvent {
  id: string;
  workspaceId: string;
  projectId: string;
  visitorId: string;
  leadId: string | null;
  type: string;
  url: string;
  data: Record<string, unknown>;
  referrer: string | null;
  /** epoch milliseconds */
  timestamp: number;
  /** "" for a server event (no session) */
  sessionId: string;
  /** the session's channel; `UNATTRIBUTED_CHANNEL` for a server event */
  channel: string;
  source: string | null;
  /** this event started its session (web events): its url, referrer and User-Agent are the session's */
  sessionStarted: boolean;
  /** the browser's User-Agent of a web event; null for server events */
  userAgent: string | null;
  /** a crawler's or headless browser's event: stored, left out of analytics and experiments */
  isBot: boolean;
  origin: EventOrigin;
  /**
   * Sent with a page's public key (svc_pk_, which anyone can read): the identity processor lets its
   * `$set` fill a lead's missing properties only, never overwrite them, and marks what it fills as
   * the browser's (flag targeting leaves those out).
   */
  fromPublicKey?: boolean;
}

/** What one events transaction knows beside its events. */
export interface FlushContext {
  /**
   * The project's configuration version, read in this transaction before any processor ran (on
   * PostgreSQL under a share lock): key processors' configuration caches on it
   * (platform/config-version.ts), so no stale copy decides what is stored.
   */
  configVersion(projectId: string): number;
  /**
   * Runs `fn` once the transaction has committed (not at all if it rolls back): a processor's
   * memory of what it wrote must not outlive a rollback.
   */
  afterCommit(fn: () => void): void;
}

/**
 * Called by the event store's writer inside the group-commit transaction, with every event of that
 * transaction, so derived state (experiment counters, conversions, rollups) commits together with
 * the events or not at all. Processors must be batch-oriented and fast: they hold the writer.
 */
export type EventProcessor = (trx: Trx, events: CommittedEvent[], flush: FlushContext) => Promise<void>;

export class EventBus {
  private processors: { name: string; fn: EventProcessor }[] = [];
  private steps: readonly string[] = [];
  /** `sqlite`: the raw connection under the app's transactions, for the per-flush version read */
  constructor(private sqlite?: SQLite.Database) {}

  /** The order of the steps (the events module's `PIPELINE_STEPS`); set before any registration. */
  setPipeline(steps: readonly string[]): void {
    this.steps = steps;
    this.processors.sort((x, y) => this.steps.indexOf(x.name) - this.steps.indexOf(y.name));
  }

  /**
   * Registers the processor of pipeline step `name`; `reads` names the steps whose output it uses,
   * which must come before it. Processors run in pipeline order, not in registration order.
   */
  register(name: string, fn: EventProcessor, reads: readonly string[] = []): void {
    const at = this.steps.indexOf(name);
    if (at < 0) throw new Error(`event processor ${name} is not a step of the ingest pipeline`);
    for (const r of reads) {
      const from = this.steps.indexOf(r);
      if (from < 0 || from >= at)
        throw new Error(`event processor ${name} reads ${r}, which does not run before it`);
    }
    if (this.processors.some((p) => p.name === name))
      throw new Error(`event processor ${name} is registered twice`);
    this.processors.push({ name, fn });
    this.setPipeline(this.steps);
  }

  /** The registered steps, in the order they run. */
  get order(): string[] {
    return this.processors.map((p) => p.name);
  }

  /**
   * Runs the processors in the caller's transaction; returns what to run once it commits.
   * `versions`: the projects' configuration versions when the caller read them already in this
   * transaction (readConfigVersions), else they are read here.
   */
  async process(trx: Trx, events: CommittedEvent[], read?: Map<string, number>): Promise<(() => void)[]> {
    const committed: (() => void)[] = [];
    if (this.processors.length === 0 || events.length === 0) return committed;
    // One read per project per transaction: events of one request share a project, so this is
    // mostly a comparison per event.
    let versions = read;
    if (!versions) {
      const projects = new Set<string>();
      let last = "";
      for (const e of events) {
        if (e.projectId === last) continue;
        last = e.projectId;
        projects.add(last);
      }
      versions = await readConfigVersions(trx, [...projects], { sqlite: this.sqlite });
    }
    const flush: FlushContext = {
      configVersion(projectId) {
        const v = versions!.get(projectId);
        if (v === undefined) throw new Error(`project ${projectId} has no event in this transaction`);
        return v;
      },
      afterCommit: (fn) => committed.push(fn),
    };
    for (const p of this.processors) await p.fn(trx, events, flush);
    return committed;
  }
}
