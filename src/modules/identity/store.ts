import { type RawBuilder, sql } from "kysely";
import { type DbOrTrx, isPostgresDb } from "../../platform/db/index.js";
import type { LeadPropertyTest } from "./lead-analytics.js";
import "./tables.js";

/** Identity's SQL that differs between SQLite and PostgreSQL: conditions over `identity_leads`. */

/**
 * A property condition on a lead. `serverOnly` (flag targeting): a property a browser wrote counts
 * as missing.
 */
export function leadPropertyCondition(
  db: DbOrTrx,
  test: LeadPropertyTest,
  { serverOnly = false }: { serverOnly?: boolean } = {},
): RawBuilder<boolean> {
  const pg = isPostgresDb(db);
  const props = serverOnly ? serverPropertiesSql(test.property, pg) : sql.ref("properties");
  return test.sql(props, pg);
}

/** A lead's property `name` as text equals `value` ("pro", "5", "true": booleans spelled as JSON). */
export function leadPropertyIs(db: DbOrTrx, name: string, value: string): RawBuilder<boolean> {
  const text = isPostgresDb(db)
    ? sql<string>`(properties::jsonb ->> ${name})`
    : sql<string>`(case json_type(properties, ${`$."${name}"`}) when 'true' then 'true' when 'false' then 'false' else cast(json_extract(properties, ${`$."${name}"`}) as text) end)`;
  return sql<boolean>`${text} = ${value}`;
}

/**
 * The lead's properties as targeting sees them for a condition on `name`: the whole object, or `{}`
 * when a browser wrote that property (a condition reads one property, so this is the property
 * left out). Over `identity_leads` columns.
 */
function serverPropertiesSql(name: string, postgres: boolean): RawBuilder<string> {
  const marked = postgres
    ? sql<boolean>`browser_properties::jsonb @> jsonb_build_array(${name}::text)`
    : sql<boolean>`exists (select 1 from json_each(browser_properties) m where m.value = ${name})`;
  return sql<string>`(case when browser_properties is not null and ${marked} then '{}' else properties end)`;
}
