import { toErrorReply, type ErrorBody } from "../http/errors";
import { log } from "../log";

/**
 * Anything a tool throws, as the service's nested error body (the same one the REST endpoint would
 * answer) plus the HTTP headers that go with it. The x402 402 document (not a nested error) is
 * wrapped: code PAYMENT_REQUIRED, its `error` as the reason and the whole document in `details.x402`;
 * the PAYMENT-REQUIRED header comes with it, for the HTTP transport to pass on.
 */
export function toolError(error: unknown): { body: ErrorBody; headers: Record<string, string> } {
  const { reply, unexpected } = toErrorReply("UNKNOWN", error);
  if (unexpected) log.error("[engram] MCP tool failed:", error);
  const body = reply.body as Partial<ErrorBody> & { error?: unknown; message?: unknown };
  const headers = reply.headers ?? {};
  if (body.error && typeof body.error === "object") return { body: body as ErrorBody, headers };
  const message = typeof body.message === "string" ? body.message : `status ${reply.status}`;
  return {
    body: { error: { code: reply.status === 402 ? "PAYMENT_REQUIRED" : `HTTP_${reply.status}`, message, details: { reason: body.error, x402: reply.body } } },
    headers,
  };
}
