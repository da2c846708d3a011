import { errorBody, toErrorReply, type ErrorBody } from "../http/errors";
import type { PaymentRequiredBody } from "../billing/payment-required";
import { log } from "../log";

/**
 * Anything a tool throws, as the service's nested error body (the same one the REST endpoint would
 * answer) plus the HTTP headers that go with it. The x402 402 document (x402 v1's body, whose
 * `error` is the refusal's reason) becomes the nested PAYMENT_REQUIRED error with that reason and
 * the whole document in `details.x402`; the PAYMENT-REQUIRED header comes with it, for the HTTP
 * transport to pass on.
 */
export function toolError(error: unknown): { body: ErrorBody; headers: Record<string, string> } {
  const { reply, unexpected } = toErrorReply("UNKNOWN", error);
  if (unexpected) log.error("[engram] MCP tool failed:", error);
  const headers = reply.headers ?? {};
  if (reply.body.x402Version !== undefined) {
    const x402 = reply.body as PaymentRequiredBody;
    return { body: errorBody(402, x402.message, { reason: x402.error, x402 }), headers };
  }
  const body = reply.body as Partial<ErrorBody>;
  if (body.error) return { body: body as ErrorBody, headers };
  return { body: { error: { code: `HTTP_${reply.status}`, message: `status ${reply.status}`, details: {} } }, headers };
}
