import { t, ValidationError, type Static, type TSchema } from "elysia";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { DomainError } from "../domain/errors";
import { EmbeddingUnavailable } from "../domain/ports";
import { WriteNotReplicated, StoreUnavailable } from "../domain/store-port";

/** The `error.code` of each status (the shape the public MemoClaw clients parse). */
export const ERROR_CODES = {
  400: "BAD_REQUEST",
  401: "AUTH_ERROR",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "VALIDATION_ERROR",
  429: "RATE_LIMITED",
  500: "INTERNAL_ERROR",
  503: "SERVICE_UNAVAILABLE",
} as const;
export type ErrorStatus = keyof typeof ERROR_CODES;

/**
 * Every error response has this body. `details` carries the facts: for 422 the field (a JSON
 * pointer into the request part, e.g. `body/memories/3/content`), the rule and its limit and the
 * actual size, plus `errors` when several rules failed; otherwise `reason` (the specific cause,
 * e.g. `immutable`, `relation_exists`, `route_not_found`) and what else applies.
 */
export const ErrorBody = t.Object({
  error: t.Object({
    code: t.String({ description: "VALIDATION_ERROR, INVALID_JSON, AUTH_ERROR, PAYMENT_REQUIRED, NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, INTERNAL_ERROR…" }),
    message: t.String(),
    details: t.Record(t.String(), t.Unknown()),
  }),
});
export type ErrorBody = Static<typeof ErrorBody>;

export interface ErrorReply {
  status: number;
  /** the nested error, or the x402 protocol's own 402 document */
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The nested error body for a status. */
export function errorBody(status: ErrorStatus, message: string, details: Record<string, unknown> = {}, code: string = ERROR_CODES[status]): ErrorBody {
  return { error: { code, message, details } };
}

/** An error that carries its own response (e.g. the x402 402 answer, or a 500 with a payment receipt). */
export class ReplyError extends Error {
  constructor(readonly reply: ErrorReply) {
    const { error, message } = reply.body as { error?: { message?: unknown }; message?: unknown };
    super(typeof error?.message === "string" ? error.message : typeof message === "string" ? message : `status ${reply.status}`);
  }
}

type Facts = Record<string, unknown>;

const allowedValues = (schema: TSchema): unknown[] | undefined =>
  Array.isArray(schema.anyOf) && schema.anyOf.every((s: TSchema) => "const" in s) ? schema.anyOf.map((s: TSchema) => s.const) : undefined;

/** The rule one TypeBox error broke, with its limit and the actual size (never the value itself: it may be huge). */
function ruleOf(e: ValueError): Facts {
  const { schema, value } = e;
  const length = typeof value === "string" ? value.length : undefined;
  switch (e.type) {
    case ValueErrorType.StringMaxLength: return { rule: "max_length", max_length: schema.maxLength, actual_length: length };
    case ValueErrorType.StringMinLength: return { rule: "min_length", min_length: schema.minLength, actual_length: length };
    case ValueErrorType.StringFormat: return { rule: "format", format: schema.format };
    case ValueErrorType.StringPattern: return { rule: "pattern", pattern: schema.pattern };
    case ValueErrorType.ArrayMaxItems: return { rule: "max_items", max_items: schema.maxItems, actual_items: Array.isArray(value) ? value.length : undefined };
    case ValueErrorType.ArrayMinItems: return { rule: "min_items", min_items: schema.minItems, actual_items: Array.isArray(value) ? value.length : undefined };
    case ValueErrorType.ObjectMaxProperties: return { rule: "max_properties", max_properties: schema.maxProperties, actual_properties: value && typeof value === "object" ? Object.keys(value).length : undefined };
    case ValueErrorType.ObjectMinProperties: return { rule: "min_properties", min_properties: schema.minProperties };
    case ValueErrorType.ObjectRequiredProperty: return { rule: "required" };
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum: return { rule: "maximum", maximum: schema.maximum, actual: value };
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum: return { rule: "minimum", minimum: schema.minimum, actual: value };
    case ValueErrorType.Union: {
      const allowed = allowedValues(schema);
      return allowed ? { rule: "enum", allowed } : { rule: "type" };
    }
    default: return { rule: "type", expected: schema.type ?? (schema.const !== undefined ? schema.const : undefined) };
  }
}

/** For a union (e.g. string | null), the error of the first non-null branch says more than "Expected union value". */
function innermost(e: ValueError): ValueError {
  if (e.type !== ValueErrorType.Union || allowedValues(e.schema)) return e;
  for (const branch of e.errors ?? []) {
    const first = branch.First();
    if (first && first.schema.type !== "null") return innermost(first);
  }
  return e;
}

/** Marks a query integer's string schema (see QueryInt), so a pattern failure is reported as an integer rule. */
export const INTEGER_RANGE = "x-integer-range";

/** A field longer than this is cut in messages and details (an unknown key may be megabytes long). */
const FIELD_CHARS = 200;

/**
 * A field the schema does not declare (its object is `additionalProperties: false`): refused, never
 * dropped, so a misspelt `improtance` is a 422 naming it rather than a default silently applied.
 */
export function unknownField(field: string, allowed: string[]): Facts & { field: string; message: string } {
  const shown = field.length > FIELD_CHARS ? `${field.slice(0, FIELD_CHARS)}…` : field;
  return { field: shown, message: `unknown field (allowed: ${allowed.join(", ") || "none"})`, rule: "unknown_field", allowed };
}

/** One failed rule as `{field, message, rule, …limit and actual}`; `part` is body, query or params. */
export function describeError(part: string, raw: ValueError): Facts & { field: string; message: string } {
  const e = innermost(raw);
  const field = [part, ...e.path.split("/").filter(Boolean)].join("/");
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return unknownField(field, Object.keys(e.schema.properties ?? {}));
  const range = e.schema[INTEGER_RANGE] as { minimum: number; maximum: number } | undefined;
  if (range) return { field, message: `must be an integer from ${range.minimum} to ${range.maximum} (digits only)`, rule: "integer", ...range };
  const facts = Object.fromEntries(Object.entries(ruleOf(e)).filter(([, v]) => v !== undefined));
  return { field, message: e.message, ...facts };
}

/** A 422 from a list of failed rules: the first one's facts at the top, every one in `errors` when several. */
export function validationFailure(failures: (Facts & { field: string; message: string })[]): DomainError {
  const [first, ...rest] = failures;
  if (!first) return new DomainError(422, "validation_failed", "invalid request", {});
  const { message, ...facts } = first;
  return new DomainError(422, "validation_failed", `${first.field}: ${message}`, rest.length ? { ...facts, errors: failures } : facts);
}

function validationReply(error: ValidationError): DomainError {
  const seen = new Set<string>();
  const failures = error.all
    .filter((e): e is typeof e & ValueError => "path" in e && "schema" in e)
    .map((e) => describeError(error.type, e))
    .filter((f) => !seen.has(f.field + f.message) && seen.add(f.field + f.message));
  return validationFailure(failures);
}

/** A DomainError as a reply: the public code of its status, its reason kept in details. */
function domainReply(error: DomainError): ErrorReply {
  const status = error.status as ErrorStatus;
  if (status === 422) return { status, body: errorBody(422, error.message, error.details) };
  const code = error.code === "invalid_json" ? "INVALID_JSON" : ERROR_CODES[status];
  return { status, body: errorBody(status, error.message, { reason: error.code, ...error.details }, code) };
}

/**
 * The Retry-After of a store outage, in seconds. How long one lasts is unknown here (a connection
 * back in milliseconds, a failover in 8–10 s: docs/deployment.md › Redis Cluster); a client that
 * retries every second with backoff is served within about a second of the store's return.
 */
const STORE_RETRY_AFTER_S = 1;

/**
 * Maps anything thrown while handling a request to a status and nested JSON body. Unknown errors
 * (and a response our own schema rejects) are 500 with no internals; the caller logs them.
 */
export function toErrorReply(code: string | number, error: unknown): { reply: ErrorReply; unexpected: boolean } {
  if (error instanceof ReplyError) return { reply: error.reply, unexpected: error.reply.status >= 500 };
  if (error instanceof DomainError) return { reply: domainReply(error), unexpected: false };
  // Logged with its cause (what to check) for the operator; the client only learns to retry later.
  if (error instanceof EmbeddingUnavailable) {
    return { reply: { status: 503, body: errorBody(503, "the embedding provider is unavailable; try again later", { reason: "embedding_unavailable" }) }, unexpected: true };
  }
  if (error instanceof StoreUnavailable) {
    const body = errorBody(503, "the data store is unavailable; try again later", { reason: "store_unavailable" });
    return { reply: { status: 503, body, headers: { "retry-after": String(STORE_RETRY_AFTER_S) } }, unexpected: true };
  }
  if (error instanceof WriteNotReplicated) {
    const details = { reason: "not_replicated", replicas_acknowledged: error.acknowledged, replicas_required: error.required };
    const message = `the write was applied but not confirmed by ${error.required} replica(s) within ${error.timeoutMs} ms; it may exist: read it back before retrying`;
    return { reply: { status: 503, body: errorBody(503, message, details) }, unexpected: true };
  }
  if (error instanceof ValidationError && error.type !== "response") return { reply: domainReply(validationReply(error)), unexpected: false };
  // Elysia wraps whatever the body parser throws (ours: 413, 415, 422, 400 with the reason) in a ParseError.
  const parseCause = code === "PARSE" ? (error as { cause?: unknown } | null)?.cause : undefined;
  if (parseCause instanceof DomainError) return { reply: domainReply(parseCause), unexpected: false };
  if (code === "PARSE") return { reply: domainReply(new DomainError(400, "invalid_json", "request body is not valid JSON")), unexpected: false };
  if (code === "NOT_FOUND") return { reply: domainReply(new DomainError(404, "route_not_found", "no such endpoint; see /swagger")), unexpected: false };
  // A throw inside a TypeBox Transform decode (e.g. a query integer out of range) arrives wrapped.
  const cause = (error as { error?: unknown } | null)?.error;
  if (cause instanceof DomainError) return { reply: domainReply(cause), unexpected: false };
  return { reply: { status: 500, body: errorBody(500, "internal error; the request was not completed") }, unexpected: true };
}
