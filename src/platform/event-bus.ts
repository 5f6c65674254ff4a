import type { Trx } from "./db/index.js";

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
  sessionId: string;
  channel: string;
  source: string | null;
  isBot: boolean;
}

/**
 * Called by the events module inside the group-commit transaction, with every event of that
 * transaction, so derived state (experiment counters, conversions, rollups) commits together with
 * the events or not at all. Processors must be batch-oriented and fast: they hold the writer.
 */
export type EventProcessor = (trx: Trx, events: CommittedEvent[]) => Promise<void>;

export class EventBus {
  private processors: { name: string; fn: EventProcessor }[] = [];
  register(name: string, fn: EventProcessor): void {
    this.processors.push({ name, fn });
  }
  async process(trx: Trx, events: CommittedEvent[]): Promise<void> {
    for (const p of this.processors) await p.fn(trx, events);
  }
}
