import { t, type Static, type TSchema } from "elysia";
import { Kind } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { DomainError, invalid } from "../domain/errors";
import { CLOSED, LIMITS } from "../domain/memory";
import { describeError, INTEGER_RANGE, unknownField, validationFailure } from "./errors";

/**
 * The validation layer every route uses, besides its TypeBox schemas: the JSON body parser (size,
 * media type, nesting and syntax checked before anything touches the value), strict query-string
 * integers and tag lists, and guards for what Elysia's normalizer would otherwise coerce.
 */

/** Validates a value the framework could not (e.g. one item of a batch); 422 naming the field and rule. */
export function checked<S extends TSchema>(schema: S, value: unknown, part = "item"): Static<S> {
  const failures = [...Value.Errors(schema, value)].slice(0, 10).map((e) => describeError(part, e));
  if (failures.length) throw validationFailure(failures);
  return value as Static<S>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const tooLarge = (bytes: number) =>
  new DomainError(413, "payload_too_large", `request body is ${bytes} bytes; the limit is ${LIMITS.bodyBytes}`, { max_bytes: LIMITS.bodyBytes, actual_bytes: bytes });

/** 413 before the body is read when its declared length is over the limit. */
export function checkDeclaredLength(request: Request): void {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > LIMITS.bodyBytes) throw tooLarge(declared);
}

/** True when `[`/`{` nest deeper than `limit` anywhere outside strings: a linear scan, no recursion. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

const isJson = (contentType: string) => /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType);

/**
 * The one body parser (an `onParse` hook for every route): JSON only (415 otherwise), at most
 * LIMITS.bodyBytes (413), nesting at most LIMITS.bodyDepth checked on the raw text (422, before
 * JSON.parse or anything recursive sees it), valid JSON (400 INVALID_JSON), and an object at the
 * root (422). Duplicate keys follow JSON.parse: the last one wins.
 */
export async function parseJsonBody({ request, contentType }: { request: Request; contentType: string }): Promise<Record<string, unknown> | undefined> {
  const text = await request.text();
  if (text.length === 0) return undefined;
  if (!isJson(contentType)) {
    throw new DomainError(415, "unsupported_media_type", `request bodies must be JSON (Content-Type: application/json), not ${JSON.stringify(contentType.slice(0, 100) || "none")}`);
  }
  if (text.length > LIMITS.bodyBytes / 3 && Buffer.byteLength(text) > LIMITS.bodyBytes) throw tooLarge(Buffer.byteLength(text));
  if (nestsDeeperThan(text, LIMITS.bodyDepth)) {
    throw invalid(`body: JSON nested deeper than ${LIMITS.bodyDepth} levels`, { field: "body", rule: "max_depth", max_depth: LIMITS.bodyDepth });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DomainError(400, "invalid_json", `request body is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  if (!isPlainObject(value)) throw invalid("body: Expected object", { field: "body", rule: "type", expected: "object" });
  const broken = lonelySurrogate(value, "body");
  if (broken) throw invalid(`${broken}: not valid Unicode (a lone surrogate escape such as \\udc00)`, { field: broken, rule: "unicode" });
  return value;
}

/**
 * The JSON pointer of the first key or string holding a lone surrogate, or null. JSON may escape half
 * of a surrogate pair alone; stored as UTF-8 it would become U+FFFD, so it is refused instead.
 */
function lonelySurrogate(value: unknown, at: string): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : at;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const path = `${at}/${pointerSegment(key)}`;
    if (!key.isWellFormed()) return path;
    const found = lonelySurrogate(child, path);
    if (found) return found;
  }
  return null;
}

/**
 * A query-string integer, parsed strictly: decimal digits only (no sign, exponent, hex, fraction,
 * spaces or leading zeros), then the range; 422 otherwise. Never a lossy Number("1e20").
 */
export const QueryInt = (name: string, minimum: number, maximum: number) =>
  t
    .Transform(t.String({ pattern: "^(0|[1-9][0-9]{0,15})$", title: name, description: `integer from ${minimum} to ${maximum}`, [INTEGER_RANGE]: { minimum, maximum } }))
    .Decode((raw) => {
      const value = Number(raw);
      if (value < minimum || value > maximum) {
        throw invalid(`query/${name}: must be an integer from ${minimum} to ${maximum}`, { field: `query/${name}`, rule: value < minimum ? "minimum" : "maximum", minimum, maximum, actual: value });
      }
      return value;
    })
    .Encode(String);

/** `tags=a,b , c` → ["a","b","c"]: at most LIMITS.tags tags of at most LIMITS.tagChars characters. */
export const TagsQuery = t
  .Transform(t.String({ maxLength: LIMITS.tags * (LIMITS.tagChars + 2), description: `comma-separated, at most ${LIMITS.tags} tags` }))
  .Decode((raw) => {
    const tags = raw.split(",").map((s) => s.trim()).filter(Boolean);
    if (tags.length > LIMITS.tags) throw invalid(`query/tags: at most ${LIMITS.tags} tags`, { field: "query/tags", rule: "max_items", max_items: LIMITS.tags, actual_items: tags.length });
    const long = tags.find((tag) => tag.length > LIMITS.tagChars);
    if (long) throw invalid(`query/tags: each tag at most ${LIMITS.tagChars} characters`, { field: "query/tags", rule: "max_length", max_length: LIMITS.tagChars, actual_length: long.length });
    return tags;
  })
  .Encode((tags) => tags.join(","));

/** `true` / `false` in a query string, nothing else. */
export const QueryBool = t
  .Transform(t.Union([t.Literal("true"), t.Literal("false")]))
  .Decode((raw) => raw === "true")
  .Encode((value): "true" | "false" => (value ? "true" : "false"));

/** `metadata={"k":"v"}` in a query string: a JSON object of at most LIMITS.metadataKeys keys (values matched, see list-query.ts). */
export const MetadataQuery = t
  .Transform(t.String({ maxLength: LIMITS.metadataBytes, description: "a JSON object; every key must match" }))
  .Decode((raw) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw invalid("query/metadata: must be a JSON object", { field: "query/metadata", rule: "type", expected: "object" });
    }
    const keys = Object.keys(value).length;
    if (keys > LIMITS.metadataKeys) throw invalid(`query/metadata: at most ${LIMITS.metadataKeys} keys`, { field: "query/metadata", rule: "max_properties", max_properties: LIMITS.metadataKeys, actual_properties: keys });
    return value as Record<string, unknown>;
  })
  .Encode((value) => JSON.stringify(value));

/**
 * A JSON body schema and its shape guard, for a route's options: `{ ...jsonBody(Schema), … }`.
 * Elysia's normalizer (exact-mirror) rebuilds nested objects and arrays from the schema *before*
 * validating them, so a string, number or array sent where an object belongs comes out as `{}` or
 * `{"0":"a",…}` and passes, a string where an array belongs becomes an array of characters, and a
 * field the schema does not declare is dropped. The guard (a `transform` hook, run before that)
 * walks the body along the schema and answers 422 naming the first such field: a wrong shape, or a
 * key an `additionalProperties: false` object does not declare (free-form objects, such as
 * `metadata`, are records and take any key).
 */
export function jsonBody<S extends TSchema>(schema: S) {
  return {
    body: schema,
    transform: ({ body }: { body: unknown }): void => {
      const problem = shapeProblem(schema, body, "body");
      if (problem) throw validationFailure([problem]);
    },
  };
}

/** For a route that takes no body: none, or `{}`; any key in one is an unknown field (422), never ignored. */
export const NO_BODY = jsonBody(t.Optional(t.Object({}, CLOSED)));

type Problem = ReturnType<typeof unknownField>;
const wrongType = (field: string, expected: string): Problem => ({ field, message: `Expected ${expected}`, rule: "type", expected });
/** A key as a JSON pointer segment (as TypeBox writes error paths). */
const pointerSegment = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

function shapeProblem(schema: TSchema, value: unknown, field: string): Problem | null {
  if (value === undefined) return null;
  switch (schema[Kind]) {
    case "Object": {
      if (!isPlainObject(value)) return wrongType(field, "object");
      const properties = schema.properties as Record<string, TSchema>;
      if (schema.additionalProperties === false) {
        // own keys only: "__proto__" or "constructor" in a body are unknown fields, not inherited ones
        const unknown = Object.keys(value).find((key) => !Object.hasOwn(properties, key));
        if (unknown !== undefined) return unknownField(`${field}/${pointerSegment(unknown)}`, Object.keys(properties));
      }
      for (const [key, child] of Object.entries(properties)) {
        const problem = shapeProblem(child, value[key], `${field}/${key}`);
        if (problem) return problem;
      }
      return null;
    }
    case "Record":
      return isPlainObject(value) ? null : wrongType(field, "object");
    case "Intersect":
      for (const part of schema.allOf as TSchema[]) {
        const problem = shapeProblem(part, value, field);
        if (problem) return problem;
      }
      return null;
    case "Array":
      if (!Array.isArray(value)) return wrongType(field, "array");
      for (const [i, item] of value.entries()) {
        const problem = shapeProblem(schema.items as TSchema, item, `${field}/${i}`);
        if (problem) return problem;
      }
      return null;
    default:
      return null;
  }
}

const SANE_REQUEST_ID = /^[\w.:-]{1,128}$/;
/** The client's `x-request-id` when it is a sane token, else a new UUID. */
export const requestIdOf = (request: Request) => {
  const given = request.headers.get("x-request-id");
  return given && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
};

/** The query parameters each API route declares, by "METHOD /route/:pattern". */
type DeclaredQueries = Map<string, string[]>;

function declaredQueries(routes: { method: string; path: string; hooks?: unknown }[]): DeclaredQueries {
  const declared: DeclaredQueries = new Map();
  for (const { method, path, hooks } of routes) {
    const query = (hooks as { query?: { properties?: Record<string, unknown> } } | undefined)?.query;
    declared.set(`${method} ${path}`, Object.keys(query?.properties ?? {}));
  }
  return declared;
}

/**
 * Query strings are closed on the API (/v1/…), as bodies are: a parameter the route does not declare
 * is a 422 naming it (`query/<name>`, rule unknown_field), never silently ignored, so a misspelt
 * `namespce` does not answer for every namespace. Elysia's query validation drops undeclared keys
 * instead, so this runs before it (a global transform), against the routes' own schemas, read once
 * from the app when the first request arrives. Every parameter the MemoClaw clients send is declared.
 * A parameter given twice is refused too (rule repeated): Elysia would read one value and drop the other.
 */
export function closedQueries(app: { routes: { method: string; path: string; hooks?: unknown }[] }) {
  let declared: DeclaredQueries | null = null;
  return ({ request, route, query }: { request: Request; route: string; query: Record<string, unknown> }): void => {
    if (!route.startsWith("/v1/")) return;
    declared ??= declaredQueries(app.routes);
    const allowed = declared.get(`${request.method} ${route}`);
    if (allowed === undefined) return;
    const unknown = Object.keys(query).find((key) => !allowed.includes(key));
    if (unknown !== undefined) throw validationFailure([unknownField(`query/${pointerSegment(unknown)}`, allowed)]);
    const repeated = repeatedParameter(request.url);
    if (repeated !== undefined) {
      const field = `query/${pointerSegment(repeated)}`;
      throw invalid(`${field}: given more than once (give it once; a list such as tags is comma-separated)`, { field, rule: "repeated" });
    }
  };
}

/** The first query parameter given twice: only one of the values would be read, the others ignored. */
function repeatedParameter(url: string): string | undefined {
  if (!url.includes("&")) return undefined; // one parameter at most: nothing to repeat
  const seen = new Set<string>();
  for (const key of new URL(url).searchParams.keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}
