import { errorBody, ReplyError } from "../http/errors";
import { paymentRequiredHeaders, type PaymentRequired, type RequirementsV1 } from "./x402-server";

/**
 * Why a paid call was not served. `error` is machine-readable (ours, or the facilitator's
 * reason such as `invalid_exact_evm_authorization_value`), `message` says it for people.
 */
export interface Refusal {
  error: string;
  message: string;
}

/**
 * The 402 answer in both forms clients read. The body is the x402 v1 document (`x402Version: 1`,
 * `accepts`, plus our `message`) whose `error` is the service's nested error (`code`
 * PAYMENT_REQUIRED, `message`, `details.reason` the refusal), so one body serves both readers:
 * x402 v1 clients take `x402Version` and `accepts` (the official client ignores `error`), and the
 * MemoClaw SDKs read `error.code` and `error.message` as from every other error, which a string
 * `error` broke (docs/clients.md). The v2 document the library built goes base64 in the
 * PAYMENT-REQUIRED header, with the reason as its string `error`: x402 clients read it first.
 * `accepts` is empty when no payment can be taken right now (facilitator unreachable).
 */
export function paymentRequiredReply(
  refusal: Refusal,
  document: PaymentRequired,
  acceptsV1: RequirementsV1[],
  headers: Record<string, string> = {},
): ReplyError {
  return new ReplyError({
    status: 402,
    body: { x402Version: 1, accepts: acceptsV1, error: errorBody(402, refusal.message, { reason: refusal.error }).error, message: refusal.message },
    headers: { ...paymentRequiredHeaders({ ...document, error: refusal.error }), ...headers },
  });
}
