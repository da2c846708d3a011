import { ReplyError } from "../http/errors";
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
 * The 402 answer in both forms clients read: the v1 JSON body (`x402Version: 1`, `accepts`,
 * `error`, plus our `message`) and the v2 document the library built, base64 in the
 * PAYMENT-REQUIRED header. This body is the x402 protocol's, not the service's nested error
 * (a v1 client reads `x402Version`, `accepts` and the string `error`). `accepts` is empty when no
 * payment can be taken right now (facilitator unreachable): the `error` says why.
 */
export function paymentRequiredReply(
  refusal: Refusal,
  document: PaymentRequired,
  acceptsV1: RequirementsV1[],
  headers: Record<string, string> = {},
): ReplyError {
  return new ReplyError({
    status: 402,
    body: { x402Version: 1, error: refusal.error, message: refusal.message, accepts: acceptsV1 },
    headers: { ...paymentRequiredHeaders({ ...document, error: refusal.error }), ...headers },
  });
}
