import type SQLite from "better-sqlite3";

/** Entries written per merge step: one step runs between two flushes (~15 ms), not one long stall. */
const MERGE_STEP = 16_384;
const CHUNK = 200;
const INSERT_HEAD = "insert into event_visitor_index (project_id, bucket, visitor_id, ts, seq) values ";
const LAST_HEAD = "insert into event_visitor_last (project_id, visitor_id, ts) values ";
const LAST_TAIL = " on conflict (project_id, visitor_id) do update set ts = max(ts, excluded.ts)";

/**
 * SQLite's per-visitor index of events, log-structured (migrations 0301, 0302). The newest events'
 * entries (those after `event_index_state.merged_seq`) live in this object, the "tail": adding one
 * costs a map push instead of an insert at a random place in a table, and no page of it is written
 * at commit. Every `mergeRows` events the tail is written, sorted by key, into a new bucket of
 * `event_visitor_index` (an append), in steps between flushes; the bucket becomes visible (and the
 * entries leave the tail) with its last step. The tail is rebuilt from `events` on start: it is
 * derived from rows that are already committed. SQL readers on this connection see it through the
 * `event_visitor_tail(project_id, visitor_ids_json)` table-valued function. Each merge step also
 * raises the visitors' rows in `event_visitor_last` (their latest merged event time), so the
 * session step's lookup of a visitor's latest event reads one row, not one per bucket. Only the
 * events writer's SQLite store (sqlite.ts) changes any of it.
 */
export class VisitorIndex {
  // the tail, in seq order: parallel arrays, plus positions per project and visitor
  private projects: string[] = [];
  private visitors: string[] = [];
  private tss: number[] = [];
  private seqs: number[] = [];
  private byVisitor = new Map<string, Map<string, number[]>>();
  /** entries below this position are committed (visible to readers, mergeable) */
  private committed = 0;
  private bucket: number;
  /** a merge in progress: entries in key order, how many were written, how many it covers */
  private merge: { order: Int32Array; done: number; stepEnd: number } | null = null;
  private many: SQLite.Statement;
  private one: SQLite.Statement;
  private manyOneProject: SQLite.Statement;
  private publish: SQLite.Statement;
  private lastMany: SQLite.Statement;
  private lastOne: SQLite.Statement;

  constructor(
    sqlite: SQLite.Database,
    private mergeRows: number,
    private mergeStepRows = MERGE_STEP,
  ) {
    const tuple = "(?,?,?,?,?)";
    this.many = sqlite.prepare(INSERT_HEAD + Array(CHUNK).fill(tuple).join(","));
    this.one = sqlite.prepare(INSERT_HEAD + tuple);
    this.manyOneProject = sqlite.prepare(
      INSERT_HEAD + Array(CHUNK).fill("($project,$bucket,?,?,?)").join(","),
    );
    this.publish = sqlite.prepare("update event_index_state set bucket = ?, merged_seq = ?");
    this.lastMany = sqlite.prepare(LAST_HEAD + Array(CHUNK).fill("(?,?,?)").join(",") + LAST_TAIL);
    this.lastOne = sqlite.prepare(`${LAST_HEAD}(?,?,?)${LAST_TAIL}`);
    const state = sqlite.prepare("select bucket, merged_seq from event_index_state").get() as {
      bucket: number;
      merged_seq: number;
    };
    this.bucket = state.bucket;
    const rows = sqlite
      .prepare("select seq, project_id, visitor_id, ts from events where seq > ? order by seq")
      .raw()
      .iterate(state.merged_seq) as IterableIterator<[number, string, string, number]>;
    for (const [seq, project, visitor, ts] of rows) this.push(project, visitor, Number(ts), seq);
    this.committed = this.seqs.length;
    // A merge cut short by a crash left part of the (invisible) next bucket: it starts over.
    const clear = sqlite.prepare("delete from event_visitor_index where project_id = ? and bucket = ?");
    sqlite.transaction(() => {
      for (const project of this.byVisitor.keys()) clear.run(project, this.bucket);
    })();
    registerTail(sqlite, this);
  }

  private push(project: string, visitor: string, ts: number, seq: number): void {
    const at = this.seqs.length;
    this.projects.push(project);
    this.visitors.push(visitor);
    this.tss.push(ts);
    this.seqs.push(seq);
    let ofProject = this.byVisitor.get(project);
    if (!ofProject) {
      ofProject = new Map();
      this.byVisitor.set(project, ofProject);
    }
    const list = ofProject.get(visitor);
    if (list) list.push(at);
    else ofProject.set(visitor, [at]);
  }

  /**
   * Adds entries for events given as flat column values, `width` per event, with the project,
   * visitor and time at the given offsets; their rows got consecutive keys from `firstSeq`. Part of
   * the writer's transaction: `commit` or `rollback` follows.
   */
  add(
    values: unknown[],
    width: number,
    firstSeq: number,
    at: { project: number; visitor: number; ts: number },
  ): void {
    const n = values.length / width;
    for (let i = 0; i < n; i++) {
      const b = i * width;
      this.push(
        values[b + at.project] as string,
        values[b + at.visitor] as string,
        values[b + at.ts] as number,
        firstSeq + i,
      );
    }
  }

  /** The writer's transaction committed: its entries become visible. */
  commit(): void {
    this.committed = this.seqs.length;
  }

  /** The writer's transaction rolled back: its entries go (they are the newest, at the ends). */
  rollback(): void {
    for (let i = this.seqs.length - 1; i >= this.committed; i--) {
      const ofProject = this.byVisitor.get(this.projects[i]!)!;
      const list = ofProject.get(this.visitors[i]!)!;
      list.pop();
      if (list.length === 0) ofProject.delete(this.visitors[i]!);
    }
    for (const a of [this.projects, this.visitors, this.tss, this.seqs]) a.length = this.committed;
  }

  /** Whether a merge step should run: a merge is under way, or enough committed entries wait. */
  get mergeDue(): boolean {
    return this.merge !== null || (this.committed > 0 && this.committed >= this.mergeRows);
  }

  /**
   * Writes the next step of the merge (starting one if none is under way) inside the caller's
   * transaction; the last step also publishes the bucket. Then `stepCommitted` or `stepFailed`.
   */
  mergeStep(): void {
    this.merge ??= { order: this.keyOrder(this.committed), done: 0, stepEnd: 0 };
    const { order, done } = this.merge;
    const end = Math.min(done + this.mergeStepRows, order.length);
    const params: unknown[] = new Array(CHUNK * 5);
    const oneProjectParams: unknown[] = new Array(CHUNK * 3);
    const named = { project: "", bucket: this.bucket };
    let i = done;
    for (; i + CHUNK <= end; i += CHUNK) {
      // In key order a chunk nearly always holds one project: project and bucket bound once.
      named.project = this.projects[order[i]!]!;
      if (named.project === this.projects[order[i + CHUNK - 1]!]) {
        let k = 0;
        for (let j = i; j < i + CHUNK; j++) {
          const p = order[j]!;
          oneProjectParams[k++] = this.visitors[p];
          oneProjectParams[k++] = this.tss[p];
          oneProjectParams[k++] = this.seqs[p];
        }
        this.manyOneProject.run(oneProjectParams, named);
        continue;
      }
      let k = 0;
      for (let j = i; j < i + CHUNK; j++) {
        const p = order[j]!;
        params[k++] = this.projects[p];
        params[k++] = this.bucket;
        params[k++] = this.visitors[p];
        params[k++] = this.tss[p];
        params[k++] = this.seqs[p];
      }
      this.many.run(params);
    }
    for (; i < end; i++) {
      const p = order[i]!;
      this.one.run(this.projects[p], this.bucket, this.visitors[p], this.tss[p], this.seqs[p]);
    }
    this.raiseLastSeen(order, done, end);
    // The tail is in seq order, so its first `order.length` entries end at the largest seq.
    if (end === order.length) this.publish.run(this.bucket + 1, this.seqs[order.length - 1]);
    this.merge.stepEnd = end;
  }

  /**
   * The latest time of each visitor among entries `from`..`end` of `order` (key order: a visitor's
   * entries are together, by time), raised in `event_visitor_last`. A visitor split across two
   * steps is raised twice; the larger time stays.
   */
  private raiseLastSeen(order: Int32Array, from: number, end: number): void {
    const params: unknown[] = [];
    for (let i = from; i < end; i++) {
      const p = order[i]!;
      const next = i + 1 < end ? order[i + 1]! : -1;
      if (next >= 0 && this.visitors[next] === this.visitors[p] && this.projects[next] === this.projects[p])
        continue;
      params.push(this.projects[p], this.visitors[p], this.tss[p]);
      if (params.length === CHUNK * 3) {
        this.lastMany.run(params);
        params.length = 0;
      }
    }
    for (let k = 0; k < params.length; k += 3) this.lastOne.run(params[k], params[k + 1], params[k + 2]);
  }

  stepCommitted(): void {
    const m = this.merge!;
    m.done = m.stepEnd;
    if (m.done < m.order.length) return;
    this.merge = null;
    this.bucket++;
    this.dropMerged(m.order.length);
  }

  /** The step's transaction rolled back: the next attempt writes the same entries again. */
  stepFailed(): void {
    if (this.merge) this.merge.stepEnd = this.merge.done;
  }

  /** Positions 0..n-1 in the index's key order (project, visitor, ts, seq). */
  private keyOrder(n: number): Int32Array {
    const order = new Int32Array(n);
    let k = 0;
    for (const project of [...this.byVisitor.keys()].sort()) {
      const ofProject = this.byVisitor.get(project)!;
      for (const visitor of [...ofProject.keys()].sort()) {
        const list = ofProject.get(visitor)!;
        const start = k;
        for (const p of list) if (p < n) order[k++] = p;
        // positions are in seq order; times are nearly so (SDK batches may be out of order)
        let sorted = true;
        for (let j = start + 1; j < k && sorted; j++)
          sorted = this.tss[order[j - 1]!]! <= this.tss[order[j]!]!;
        if (!sorted) order.subarray(start, k).sort((a, b) => this.tss[a]! - this.tss[b]! || a - b);
      }
    }
    return order;
  }

  /** The first `n` entries are in a published bucket: the tail keeps the rest. */
  private dropMerged(n: number): void {
    const rest = { projects: this.projects, visitors: this.visitors, tss: this.tss, seqs: this.seqs };
    const total = this.seqs.length;
    this.projects = [];
    this.visitors = [];
    this.tss = [];
    this.seqs = [];
    this.byVisitor = new Map();
    for (let i = n; i < total; i++)
      this.push(rest.projects[i]!, rest.visitors[i]!, rest.tss[i]!, rest.seqs[i]!);
    this.committed -= n;
  }

  /** Whether a merge has written part of the next bucket and not published it yet. */
  get merging(): boolean {
    return this.merge !== null;
  }

  /**
   * Erasure (after its transaction committed, with no merge under way): the tail drops the entries
   * of the deleted events, so no later merge writes them into a bucket.
   */
  forget(seqs: Set<number>): void {
    if (this.merge) throw new Error("forget during an index merge");
    const rest = { projects: this.projects, visitors: this.visitors, tss: this.tss, seqs: this.seqs };
    const total = this.seqs.length;
    const committed = this.committed;
    this.projects = [];
    this.visitors = [];
    this.tss = [];
    this.seqs = [];
    this.byVisitor = new Map();
    this.committed = 0;
    for (let i = 0; i < total; i++) {
      if (seqs.has(rest.seqs[i]!)) continue;
      this.push(rest.projects[i]!, rest.visitors[i]!, rest.tss[i]!, rest.seqs[i]!);
      if (i < committed) this.committed++;
    }
  }

  /**
   * The latest time among the visitor's committed tail entries, 0 when none: with its row in
   * `event_visitor_last`, the visitor's latest event (the writer's own lookup, without SQL's
   * `event_visitor_tail` round trip through JSON and a generator).
   */
  tailLastSeen(project: string, visitor: string): number {
    let last = 0;
    const list = this.byVisitor.get(project)?.get(visitor);
    if (list) for (const p of list) if (p < this.committed && this.tss[p]! > last) last = this.tss[p]!;
    return last;
  }

  /** Committed tail entries of the given visitors, as [seq, ts]. */
  *entries(project: string, visitorIds: string[]): Generator<[bigint, number]> {
    const ofProject = this.byVisitor.get(project);
    if (!ofProject) return;
    for (const v of visitorIds) {
      for (const p of ofProject.get(v) ?? [])
        if (p < this.committed) yield [BigInt(this.seqs[p]!), this.tss[p]!];
    }
  }
}

// One table-valued function per connection, answering from every index opened on it. There is one
// in a running app; tests open more (a restarted writer), whose tails may hold the same entries:
// readers use the keys as a set (`seq in (...)`, `max(ts)`), so a repeat does no harm. A closed
// writer's tail keeps answering: its entries may be in no bucket yet.
const tails = new WeakMap<SQLite.Database, Set<VisitorIndex>>();
function registerTail(sqlite: SQLite.Database, index: VisitorIndex): void {
  const open = tails.get(sqlite);
  if (open) {
    open.add(index);
    return;
  }
  const indexes = new Set([index]);
  tails.set(sqlite, indexes);
  sqlite.table("event_visitor_tail", {
    columns: ["seq", "ts"],
    parameters: ["project_id", "visitor_ids"],
    rows: function* (project: unknown, visitorIds: unknown) {
      if (typeof project !== "string" || typeof visitorIds !== "string") return;
      const ids = JSON.parse(visitorIds) as string[];
      for (const index of indexes) yield* index.entries(project, ids);
    },
  });
}
