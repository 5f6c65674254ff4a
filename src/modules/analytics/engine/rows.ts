/**
 * Rows as reports use them: DuckDB answers BIGINT and HUGEINT as bigint, which JSON cannot carry and
 * arithmetic would refuse to mix; counts and sums fit in a double, so they become numbers.
 */
export function plainRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const r of rows) for (const k in r) if (typeof r[k] === "bigint") r[k] = Number(r[k]);
  return rows;
}
