import { t, ValidationError, type Static } from "elysia";
import { DomainError } from "../domain/errors";

/**
 * Every error response has this body. `details` lists each failed rule for validation
 * errors (field as a JSON pointer into the request part, e.g. `body/memories/3/content`).
 */
export const ErrorBody = t.Object({
  error: t.String({ description: "machine-readable code, e.g. validation_failed, not_found, immutable, unauthorized" }),
  message: t.String(),
  details: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }))),
});
export type ErrorBody = Static<typeof ErrorBody>;

export interface ErrorReply {
  status: number;
  body: ErrorBody | Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A domain error that carries its own response body and headers (e.g. the x402 402 answer). */
export class ReplyError extends Error {
  constructor(readonly reply: ErrorReply) {
    super(typeof reply.body.message === "string" ? reply.body.message : `status ${reply.status}`);
  }
}

/**
 * Elysia checks a number converted from the query string on its own, after conversion, and so
 * reports it with type "property" and no path: such query schemas carry their name as `title`
 * (e.g. `t.Integer({ minimum: 1, title: "limit" })`) so the reply can still name the field.
 */
function fieldOf(error: ValidationError, e: (typeof error.all)[number]): string {
  const path = "path" in e ? e.path.split("/").filter(Boolean) : [];
  const title = "schema" in e && typeof e.schema?.title === "string" ? e.schema.title : undefined;
  if (error.type === "property" && path.length === 0 && title) return `query/${title}`;
  return [error.type, ...path].join("/");
}

function validationReply(error: ValidationError): ErrorReply {
  const details = error.all.map((e) => ({ field: fieldOf(error, e), message: e.message }));
  const first = details[0];
  const message = first ? `${first.field}: ${first.message}` : `invalid ${error.type}`;
  return { status: 422, body: { error: "validation_failed", message, details } };
}

/** Maps anything thrown while handling a request to a status and JSON body; unknown errors are 500 with no internals. */
export function toErrorReply(code: string | number, error: unknown): ErrorReply {
  if (error instanceof ReplyError) return error.reply;
  if (error instanceof DomainError) return { status: error.status, body: { error: error.code, message: error.message } };
  if (error instanceof ValidationError) return validationReply(error);
  if (code === "PARSE") return { status: 400, body: { error: "invalid_json", message: "request body is not valid JSON" } };
  if (code === "NOT_FOUND") return { status: 404, body: { error: "route_not_found", message: "no such endpoint; see /swagger" } };
  console.error("[engram] unhandled error:", error);
  return { status: 500, body: { error: "internal", message: "internal error; the request was not completed" } };
}
