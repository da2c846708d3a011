import { toErrorReply, type ErrorBody } from "../http/errors";
import { log } from "../log";

/**
 * Anything a tool throws, as the service's nested error body (the same one the REST endpoint would
 * answer) plus the HTTP headers that go with it. The x402 402 document (a nested error beside
 * `x402Version` and `accepts`) keeps its error, with the whole document in `details.x402`; the
 * PAYMENT-REQUIRED header comes with it, for the HTTP transport to pass on.
 */
export function toolError(error: unknown): { body: ErrorBody; headers: Record<string, string> } {
  const { reply, unexpected } = toErrorReply("UNKNOWN", error);
  if (unexpected) log.error("[engram] MCP tool failed:", error);
  const body = reply.body as Partial<ErrorBody> & { x402Version?: unknown };
  const headers = reply.headers ?? {};
  if (body.error && body.x402Version !== undefined) {
    return { body: { error: { ...body.error, details: { ...body.error.details, x402: reply.body } } }, headers };
  }
  if (body.error) return { body: body as ErrorBody, headers };
  return { body: { error: { code: `HTTP_${reply.status}`, message: `status ${reply.status}`, details: {} } }, headers };
}
