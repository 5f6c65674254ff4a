import type SQLite from "better-sqlite3";
import type { FastifyBaseLogger } from "fastify";
import { type DbHandle, type Trx, withTransaction } from "../../../platform/db/index.js";
import type { FlushItem } from "../flush-rows.js";
import { SqliteClaims } from "../claims/claims-store.js";
import { AT, COLUMNS, WIDTH } from "./rows.js";
import type { EventStore, InsertedRows } from "./types.js";
import { VisitorIndex } from "./visitor-index.js";
import { type LocalVisitorStates, localVisitorStates } from "./visitor-states.js";

// 15 columns × 200 rows = 3000 parameters, far under SQLite's 32766.
const SQLITE_CHUNK = 200;

export interface SqliteStoreOptions {
  /** events per merge of the per-visitor index (visitor-index.ts) */
  indexMergeRows: number;
  /** index entries written per merge step (default 16384) */
  indexMergeStep?: number;
}

/**
 * SQLite: one process owns the file and one writer writes it. Rows go in through prepared
 * multi-row inserts on the raw connection (the same connection, so the same transaction, as the
 * writer's Kysely transaction, without Kysely's per-statement compile cost); each row's entry goes
 * to the per-visitor index's in-memory tail, merged into the table in steps between flushes;
 * message keys are claimed in this process's memory with a log row per request (claims/claims-store.ts).
 */
export class SqliteEventStore implements EventStore {
  readonly db;
  readonly deferAnswers = false;
  /** returns the `seq` of the first inserted row (the others follow consecutively) */
  private insertMany: (values: unknown[]) => number;
  private index: VisitorIndex;
  readonly visitorStates: LocalVisitorStates;
  private claims: SqliteClaims;
  private sqlite: SQLite.Database;

  constructor(
    private handle: DbHandle,
    opts: SqliteStoreOptions,
    private log: FastifyBaseLogger,
  ) {
    this.db = handle.db;
    this.sqlite = handle.sqlite!;
    this.insertMany = sqliteInserter(handle);
    this.index = new VisitorIndex(this.sqlite, opts.indexMergeRows, opts.indexMergeStep);
    this.claims = new SqliteClaims(this.sqlite);
    this.visitorStates = localVisitorStates(this.sqlite, this.index);
  }

  newestReceipt(): number | undefined {
    const newest = this.sqlite
      .prepare("select received_at from events order by seq desc limit 1")
      .pluck()
      .get() as number | undefined;
    return newest === undefined ? undefined : Number(newest);
  }

  claim(trx: Trx, items: readonly FlushItem[]): Promise<readonly FlushItem[]> {
    return this.claims.claim(trx, items);
  }

  async insert(_trx: Trx, values: unknown[]): Promise<InsertedRows> {
    const first = this.insertMany(values);
    this.index.add(values, WIDTH, first, AT);
    return { keyOf: (i) => first + i };
  }

  committed(): void {
    this.claims.committed();
    this.index.commit();
  }

  rolledBack(): void {
    this.claims.rolledBack();
    this.index.rollback();
  }

  async repair(): Promise<boolean> {
    return false;
  }

  get upkeepDue(): boolean {
    return this.index.mergeDue;
  }

  /**
   * One merge step of the per-visitor index (the writer is its only writer): requests keep
   * arriving and queue meanwhile; the next flush takes them together.
   */
  async upkeep(): Promise<boolean> {
    const index = this.index;
    if (!index.mergeDue) return true;
    try {
      // Through Kysely's transaction, so no other one is open on the connection meanwhile.
      // attempts 1: the step moves in-memory index state, which a rerun would apply twice.
      await withTransaction(this.db, async () => index.mergeStep(), { attempts: 1 });
      index.stepCommitted();
      return true;
    } catch (err) {
      index.stepFailed();
      this.log.error(
        { err },
        "a merge step of the per-visitor event index failed; it is retried after the next flush",
      );
      return false;
    }
  }

  /** Between flushes: the WAL may start over (back-to-back commits never leave it a moment). */
  async maintain(): Promise<void> {
    try {
      await this.handle.maintainWal?.();
    } catch (err) {
      this.log.warn({ err }, "WAL truncation failed; the checkpoint thread keeps copying");
    }
  }

  /** A merge already started is finished: its bucket must not miss what the task deletes. */
  async settle(): Promise<void> {
    while (this.index.merging) {
      if (!(await this.upkeep())) throw new Error("the per-visitor event index merge failed");
    }
  }

  forget(keys: readonly number[]): void {
    if (keys.length > 0) this.index.forget(new Set(keys));
  }
}

/**
 * SQLite inserts of flat column values. One connection, one writer: rows of one run get
 * consecutive `seq` keys (max + 1 each), so it returns the first key.
 */
export function sqliteInserter(handle: DbHandle): (values: unknown[]) => number {
  const db = handle.sqlite!;
  const tuple = `(${COLUMNS.map(() => "?").join(",")})`;
  const head = `insert into events (${COLUMNS.join(",")}) values `;
  const one = db.prepare(head + tuple);
  const many = db.prepare(head + Array(SQLITE_CHUNK).fill(tuple).join(","));
  // The usual chunk holds one project's rows: its id is bound once ($project), a string fewer per
  // row (binding a string costs a UTF-8 copy and a SQLite copy).
  const P = AT.project;
  const projectTuple = `(${COLUMNS.map((_, c) => (c === P ? "$project" : "?")).join(",")})`;
  const manyOneProject = db.prepare(head + Array(SQLITE_CHUNK).fill(projectTuple).join(","));
  const params: unknown[] = new Array(SQLITE_CHUNK * (WIDTH - 1));
  const named = { project: "" };
  const chunk = SQLITE_CHUNK * WIDTH;
  const oneProject = (values: unknown[], i: number): boolean => {
    const project = values[i + P];
    for (let k = i + WIDTH + P; k < i + chunk; k += WIDTH) if (values[k] !== project) return false;
    return true;
  };
  return (values) => {
    let first = -1;
    let i = 0;
    for (; i + chunk <= values.length; i += chunk) {
      let last: number;
      if (oneProject(values, i)) {
        named.project = values[i + P] as string;
        let k = 0;
        for (let j = i; j < i + chunk; j++) if ((j - i) % WIDTH !== P) params[k++] = values[j];
        last = Number(manyOneProject.run(params, named).lastInsertRowid);
      } else last = Number(many.run(values.slice(i, i + chunk)).lastInsertRowid);
      if (first < 0) first = last - SQLITE_CHUNK + 1;
    }
    for (; i < values.length; i += WIDTH) {
      const last = Number(one.run(values.slice(i, i + WIDTH)).lastInsertRowid);
      if (first < 0) first = last;
    }
    return first;
  };
}
