import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject } from "ajv";
import formatsModule from "ajv-formats";

/**
 * The one validator of request input: Ajv compiling the routes' TypeBox schemas. Every route uses
 * it through Fastify; the two routes with their own error shapes (batch ingest's per-event errors,
 * the transactional format) compile the same schemas through `compileSchema` and word failures
 * through `describeSchemaError`, so every 400 names its field the same way.
 *
 * A schema may carry `x-error`: the message (after the field name) for any failure of that schema
 * other than a missing required property, e.g. `must be an absolute URL` for a URL's pattern.
 */
export const X_ERROR = "x-error";

/** Bodies are JSON and validated as typed (no "10" → 10); query strings and params are text and coerced. */
export function createAjv(coerceTypes: boolean | "array"): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    coerceTypes,
    allErrors: false,
    strict: false,
    // Lengths in UTF-16 units (String.length), as everything else in Lift measures text; counting
    // code points walks every string and cost ingest a tenth of a microsecond per event.
    unicode: false,
    // Ajv marks that option deprecated (it still honours it); its one-line notice is not an error.
    logger: {
      log: () => {},
      warn: (...args: unknown[]) => {
        if (!String(args[0]).includes("option unicode")) console.warn(...args);
      },
      error: (...args: unknown[]) => console.error(...args),
    },
    // Errors carry their schema, so `x-error` can word them; built only when a check fails.
    verbose: true,
  });
  // ajv-formats is CommonJS; its default export sits on `.default` under NodeNext.
  (formatsModule as unknown as { default: (a: Ajv) => void }).default(ajv);
  return ajv;
}

const bodyAjv = createAjv(false);

/** A compiled check of a JSON value; `errors` holds the first failure after a false answer. */
export interface SchemaCheck {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Compiles a body schema once (Ajv generates a function; the hot path pays no interpretation). */
export function compileSchema(schema: TSchema): SchemaCheck {
  return bodyAjv.compile(schema) as SchemaCheck;
}

const article = (t: string) =>
  t === "null" ? "null" : t === "object" || t === "array" || t === "integer" ? `an ${t}` : `a ${t}`;

function expected(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "type": {
      // null is accepted as "absent" where a schema allows it; the message names what is expected.
      const all = String(p.type).split(",");
      const types = all.length > 1 ? all.filter((t) => t !== "null") : all;
      return `must be ${types.map(article).join(" or ")}`;
    }
    case "maxLength":
      return `must be at most ${p.limit} characters`;
    case "minLength":
      // An empty string counts as a missing value.
      return p.limit === 1 ? "is required" : `must be at least ${p.limit} characters`;
    case "maxItems":
      return `must hold at most ${p.limit} items`;
    case "minItems":
      return p.limit === 1 ? "must not be empty" : `must hold at least ${p.limit} items`;
    case "maxProperties":
      return `holds at most ${p.limit} keys`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case "format":
      return `must be a valid ${p.format}`;
    default:
      return e.message ?? "is not valid";
  }
}

/**
 * Words one Ajv error as `<where>.<field> <what is wrong>`, e.g. `body.events[0].url is required`.
 * `where` names the value that was checked (`body`, `querystring`, `events[3]`).
 */
export function describeSchemaError(e: ErrorObject, where: string): string {
  const p = e.params as Record<string, unknown>;
  let path = e.instancePath
    .split("/")
    .slice(1)
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s.replace(/~1/g, "/").replace(/~0/g, "~")}`))
    .join("");
  if (e.keyword === "required") return `${where}${path}.${p.missingProperty} is required`;
  if (e.keyword === "additionalProperties") return `${where}${path}.${p.additionalProperty} is not allowed`;
  // A key refused by `propertyNames` is named like a field.
  const key = e.propertyName ?? p.propertyName;
  if (typeof key === "string") path += `.${key}`;
  const custom = (e.parentSchema as Record<string, unknown> | undefined)?.[X_ERROR];
  if (typeof custom === "string") return `${where}${path} ${custom}`;
  // A JSON body that is not an object says so in the words a client understands.
  if (path === "" && e.keyword === "type" && p.type === "object" && where === "body")
    return "body must be a JSON object";
  return `${where}${path} ${expected(e)}`;
}

/**
 * The first of a failed check's errors, worded. A value outside a union of constants (TypeBox's
 * literal unions) fails each branch; Ajv reports the first branch's constant, so the message would
 * name one allowed value: it names them all, as an enum's does.
 */
export function describeFirstError(errors: ErrorObject[], where: string): string {
  const tagged = taggedUnionError(errors, where);
  if (tagged) return tagged;
  return describeOneOf(errors, where);
}

/** The first error, a literal union's named as the list of its constants. */
function describeOneOf(errors: ErrorObject[], where: string): string {
  const first = errors[0]!;
  if (first.keyword === "const") {
    const union = errors.find((e) => e.keyword === "anyOf" && e.instancePath === first.instancePath);
    const branches = union?.schema;
    if (Array.isArray(branches) && branches.every((b) => b && typeof b === "object" && "const" in b))
      return describeSchemaError(
        { ...first, keyword: "enum", params: { allowedValues: branches.map((b) => b.const) } },
        where,
      );
  }
  return describeSchemaError(first, where);
}

type Branch = { properties?: Record<string, { const?: unknown }> };

/**
 * A union of objects told apart by a property every branch pins to a constant (a tagged union,
 * e.g. a flag rule's `type`): Ajv reports one complaint per branch, the first from whichever
 * branch came first. The message is the complaint of the branch the value's tag names (nested
 * unions the same way), or names the allowed tags when the value's names none.
 */
function taggedUnionError(errors: ErrorObject[], where: string): string | undefined {
  // The outermost union's error comes after those of its branches.
  const at = errors.findLastIndex((e) => e.keyword === "anyOf");
  const union = errors[at];
  const branches = union?.schema as Branch[] | undefined;
  const value = union?.data as Record<string, unknown> | undefined;
  if (!union || !Array.isArray(branches) || !value || typeof value !== "object") return undefined;
  const tag = Object.keys(branches[0]?.properties ?? {}).find((k) =>
    branches.every((b) => b?.properties?.[k]?.const !== undefined),
  );
  if (!tag) return undefined;
  const tags = branches.map((b) => b.properties![tag]!.const);
  const index = tags.indexOf(value[tag]);
  if (index < 0)
    return describeSchemaError(
      {
        ...union,
        keyword: "enum",
        instancePath: `${union.instancePath}/${tag}`,
        params: { allowedValues: tags },
      },
      where,
    );
  const prefix = `${union.schemaPath}/${index}/`;
  const own = errors.slice(0, at).filter((e) => e.schemaPath.startsWith(prefix));
  if (own.length === 0) return undefined;
  return taggedUnionError(own, where) ?? describeOneOf(own, where);
}

/** The first error of a failed check, worded; `where` as in `describeSchemaError`. */
export function firstSchemaError(check: SchemaCheck, where: string): { error: ErrorObject; message: string } {
  const error = check.errors?.[0];
  if (!error) return { error: { keyword: "unknown" } as ErrorObject, message: `${where} is not valid` };
  return { error, message: describeFirstError(check.errors!, where) };
}

/**
 * A route's `validatorCompiler` from a function that throws the route's own error (a batch's
 * per-event errors, the transactional format); the route's schema stays what OpenAPI documents.
 */
export function validatorFrom(check: (body: unknown) => void) {
  return () => (body: unknown) => {
    try {
      check(body);
      return { value: body };
    } catch (error) {
      return { error: error as Error };
    }
  };
}

/** An ISO 8601 date, or date-time with an optional offset: what period and range queries accept. */
export const ISO_DATE_OR_TIME =
  /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
