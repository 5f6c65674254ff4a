import type { Trx } from "../../../platform/db/index.js";
import type { FlushItem, IncomingEvent } from "../flush-rows.js";

/** Segment deduplicates a project's messageIds for 24 hours. */
export const DEDUP_WINDOW_MS = 86_400_000;
/** how often the job deletes expired keys from the table */
export const EXPIRE_EVERY_MS = 3_600_000;

/**
 * Stores each message key once per project: a flush holding keyed requests claims their keys in
 * its own transaction, before its rows, and stores only the events whose key it claimed. The keys
 * commit with the events or roll back with them, so a crash can neither store a message twice nor
 * keep a key whose events were lost. Each event store holds its dialect's claims (claims-store.ts).
 */
export interface MessageClaims {
  /**
   * In the flush's transaction: the items without the events whose key is already stored, or is
   * claimed by an earlier event of the flush; the others' keys are stored.
   */
  claim(trx: Trx, items: readonly FlushItem[]): Promise<readonly FlushItem[]>;
  /** the transaction of the last `claim` committed */
  committed(): void;
  /** the transaction of the last `claim` rolled back: its keys are free again */
  rolledBack(): void;
}

/** A message's key: project and id, with a separator neither contains. */
export const keyOf = (projectId: string, messageId: string) => `${projectId}\u0000${messageId}`;

/**
 * The namespace a request's messageIds are claimed in: a public key's (a page's) claims apart from
 * the secret keys' (servers'), so an id that anyone can send from a page never suppresses a
 * server's message with the same id (an order id is predictable). A retry is deduplicated within
 * its own namespace.
 */
export const fromPublic = (it: FlushItem): boolean => it.fromPublicKey === true;

/** SQLite memory's scope of a claim: the project, or the project's public namespace. */
export const scopeOf = (projectId: string, isPublic: boolean) =>
  isPublic ? `${projectId}\u0000public` : projectId;

/**
 * Calls `keep(item, messageId)` for each keyed event of the flush, in flush order, and returns the
 * items without the events it refused. Items without keys, or where nothing was refused, are
 * returned as they are.
 */
export function filterItems(
  items: readonly FlushItem[],
  keep: (item: FlushItem, messageId: string) => boolean,
): FlushItem[] {
  return items.map((it) => {
    const ids = it.messageIds;
    if (!ids) return it;
    let events: IncomingEvent[] | null = null;
    let kept: (string | null)[] | null = null;
    for (let i = 0; i < it.events.length; i++) {
      const id = ids[i]!;
      if (id === null || keep(it, id)) {
        events?.push(it.events[i]!);
        kept?.push(id);
      } else if (!events) {
        events = it.events.slice(0, i);
        kept = ids.slice(0, i);
      }
    }
    return events ? { ...it, events, messageIds: kept! } : it;
  });
}
