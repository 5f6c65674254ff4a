import fc from "fast-check";

/**
 * fast-check arbitraries from the JSON Schemas in /openapi.json, mixed with hostile values: most
 * draws stay close to the schema (so requests get past validation into the handlers), the rest
 * are what an attacker or a broken client sends.
 */
type Schema = Record<string, any>;

export const HOSTILE_STRINGS = [
  "",
  " ",
  "\u0000",
  "%",
  "%E0%A4%A",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "__proto__",
  "constructor",
  "💥".repeat(300),
  "a".repeat(10_000),
  "\ud800",
  "https://[::1]/",
  "javascript:alert(1)",
  "2026-02-30",
  "-1",
  "1e999",
  "NaN",
];

export const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1.5,
  Number.MAX_SAFE_INTEGER + 2,
  1.7e308,
  -1.7e308,
  [],
  {},
  [null],
  JSON.parse('{"__proto__": {"polluted": 1}}'),
  { constructor: { prototype: { polluted: 1 } } },
  ...HOSTILE_STRINGS,
];

const hostile = fc.constantFrom(...HOSTILE_VALUES);

export function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.oneof(hostile, fc.jsonValue({ maxDepth: 2 }));
  return fc.oneof({ weight: 8, arbitrary: shaped(schema, depth) }, { weight: 1, arbitrary: hostile });
}

function shaped(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length)
    return fc.oneof(...alternatives.map((s: Schema) => fromSchema(s, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return fromSchema(schema.allOf[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return string(schema);
    case "integer":
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 }),
        fc.integer(),
      );
    case "number":
      return fc.oneof(
        fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      );
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(fromSchema(schema.items, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case "object":
    case undefined: {
      const props: Record<string, Schema> = schema.properties ?? {};
      if (!Object.keys(props).length)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const required = new Set<string>(schema.required ?? []);
      const record = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fromSchema(s, depth + 1)])),
        { requiredKeys: Object.keys(props).filter((k) => required.has(k)) },
      );
      // Sometimes a key the schema does not know.
      return fc
        .tuple(record, fc.option(fc.constantFrom("extra", "__proto__", "constructor"), { freq: 5 }))
        .map(([r, extra]) => (extra ? { ...(r as object), ...JSON.parse(`{"${extra}": 1}`) } : r));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function string(schema: Schema): fc.Arbitrary<string> {
  const max = Math.min(schema.maxLength ?? 40, 200);
  const min = Math.min(schema.minLength ?? 0, max);
  const byFormat: Record<string, fc.Arbitrary<string>> = {
    email: fc.emailAddress(),
    uri: fc.webUrl(),
    "date-time": fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    date: fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  };
  const formatted = schema.format ? byFormat[schema.format] : undefined;
  return fc.oneof(
    fc.string({ minLength: min, maxLength: max }),
    fc.string({ unit: "grapheme", minLength: min, maxLength: max }),
    fc.constantFrom(...HOSTILE_STRINGS),
    ...(formatted ? [formatted, formatted] : []),
  );
}
