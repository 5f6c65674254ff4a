/**
 * The database schema as Kysely sees it. Each module adds its own tables to this interface by
 * declaration merging in its `tables.ts`:
 *
 *   declare module "../../platform/db/types.js" { interface Database { goals: GoalTable } }
 *
 * Conventions on both dialects: ids are text, record timestamps are ISO-8601 text
 * (`new Date().toISOString()`), high-volume timestamps are epoch milliseconds (bigint),
 * JSON is stored as text, booleans as integer 0/1.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation
export interface Database {}
