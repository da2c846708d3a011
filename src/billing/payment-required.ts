import { ReplyError } from "../http/errors";
import { paymentRequiredHeaders, type PaymentRequired, type PaymentRequiredV1, type RequirementsV1 } from "./x402-server";

/**
 * Why a paid call was not served. `error` is machine-readable (ours, or the facilitator's
 * reason such as `invalid_exact_evm_authorization_value`), `message` says it for people.
 */
export interface Refusal {
  error: string;
  message: string;
}

/** The 402 body: x402 v1's document, all three fields required and `error` a string, plus our sentence. */
export type PaymentRequiredBody = Required<Omit<PaymentRequiredV1, "accepts">> & { accepts: RequirementsV1[]; message: string };

/**
 * The 402 answer in both forms x402 clients read: the v2 document the library built goes base64
 * in the PAYMENT-REQUIRED header (read first by current clients, the MemoClaw CLI and MCP server
 * included), and the body is the x402 v1 document for clients that read only the body (the
 * official Python client before 2.0 validates it: `error` must be a string). Both carry the
 * refusal's reason as `error`; the body adds `message`. Where that contradicts the MemoClaw SDKs,
 * which read a nested `error.code` from every error body, the protocol wins (docs/payments.md).
 * `accepts` is empty when no payment can be taken right now (facilitator unreachable).
 */
export function paymentRequiredReply(
  refusal: Refusal,
  document: PaymentRequired,
  acceptsV1: RequirementsV1[],
  headers: Record<string, string> = {},
): ReplyError {
  const body: PaymentRequiredBody = { x402Version: 1, accepts: acceptsV1, error: refusal.error, message: refusal.message };
  return new ReplyError({
    status: 402,
    body,
    headers: { ...paymentRequiredHeaders({ ...document, error: refusal.error }), ...headers },
  });
}
