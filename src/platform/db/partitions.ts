/**
 * Monthly range partitions (PostgreSQL) of a table partitioned by an epoch-ms column: one
 * partition per UTC calendar month, named `<table>_pYYYYMM`, created ahead of the rows that need
 * them. `run` executes one SQL text (no parameters: every value here is a number we format).
 */
export type RunSql = (text: string) => Promise<{ rows: unknown[] }>;

/** The first millisecond of `ms`'s UTC month. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The first millisecond of the UTC month `months` after `ms`'s. */
export function monthAfter(ms: number, months = 1): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1);
}

export function partitionName(table: string, ms: number): string {
  const d = new Date(ms);
  return `${table}_p${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, "0")}`;
}

// duplicate_table, and unique_violation on the catalog when two sessions create one at once
const CREATED_MEANWHILE = new Set(["42P07", "23505"]);

/**
 * Creates the missing monthly partitions of `table` from `fromMs`'s month through `toMs`'s month.
 * Safe to run from several processes at once: each creates what none has yet, and one that loses
 * the race to another takes the error as done. Returns the names this call created. Outside a
 * transaction where processes may race (the error would abort it).
 */
export async function ensureMonthlyPartitions(
  run: RunSql,
  table: string,
  fromMs: number,
  toMs: number,
): Promise<string[]> {
  const created: string[] = [];
  for (let start = monthStart(fromMs); start <= toMs; start = monthAfter(start)) {
    const name = partitionName(table, start);
    // null when missing, whatever the connection's type parsers make of the rest
    const { rows } = await run(`select to_regclass('${name}') as found`);
    if ((rows[0] as { found: unknown }).found !== null) continue;
    try {
      await run(
        `create table ${name} partition of ${table} for values from (${start}) to (${monthAfter(start)})`,
      );
      created.push(name);
    } catch (err) {
      if (!CREATED_MEANWHILE.has((err as { code?: string }).code ?? "")) throw err;
    }
  }
  return created;
}

/** Whether `err` is PostgreSQL's "no partition of relation … found for row" (a month not created). */
export const isMissingPartition = (err: unknown): boolean =>
  (err as { code?: string } | null)?.code === "23514" &&
  /no partition of relation/.test((err as { message?: string }).message ?? "");
