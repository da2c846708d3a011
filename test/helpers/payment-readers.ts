import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/**
 * How the clients engram serves read a 402 body, mirrored from their source so the tests can
 * parse engram's answer the same way (see docs/payments.md › The 402 body, for whom).
 */

/**
 * The official Python x402 client before 2.0 (`x402.clients.httpx.x402HttpxClient`,
 * `x402.clients.requests`): it reads only the body, as `x402PaymentRequiredResponse(**body)`, a
 * pydantic model (coinbase/x402, python/x402/src/x402/types.py) whose fields are all required:
 * `x402Version: int`, `accepts: list[PaymentRequirements]`, `error: str`. Keys it does not know
 * are ignored (pydantic's default). `network` is its `SupportedNetworks` literal; `maxAmountRequired`
 * must parse as an int.
 */
const PydanticPaymentRequirements = Type.Object({
  scheme: Type.String(),
  network: Type.Union(["base", "base-sepolia", "avalanche-fuji", "avalanche", "bitcoin-mainnet", "bitcoin-testnet"].map((n) => Type.Literal(n))),
  maxAmountRequired: Type.String({ pattern: "^[0-9]+$" }),
  resource: Type.String(),
  description: Type.String(),
  mimeType: Type.String(),
  outputSchema: Type.Optional(Type.Unknown()),
  payTo: Type.String(),
  maxTimeoutSeconds: Type.Integer(),
  asset: Type.String(),
  extra: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});
export const PythonX402PaymentRequiredV1 = Type.Object({
  x402Version: Type.Integer(),
  accepts: Type.Array(PydanticPaymentRequirements),
  error: Type.String(),
});
export type PythonX402PaymentRequiredV1 = Static<typeof PythonX402PaymentRequiredV1>;

/** Where the Python x402 v1 client's model rejects `body` (JSON pointers), none when it accepts it. */
export function pythonX402V1Problems(body: unknown): string[] {
  return [...new Set([...Value.Errors(PythonX402PaymentRequiredV1, body)].map((e) => e.path || "/"))];
}

export interface SdkError {
  status: number;
  code: string;
  message: string;
  details?: unknown;
}

/**
 * The MemoClaw TypeScript SDK (`@memoclaw/sdk`, client.ts `request`): on any non-2xx it reads
 * `error.code ?? 'UNKNOWN_ERROR'`, `error.message ?? 'HTTP <status>'` and `error.details`, and
 * throws the class of the status (402: PaymentRequiredError).
 */
export function memoclawTsSdkError(status: number, body: any): SdkError {
  return { status, code: body?.error?.code ?? "UNKNOWN_ERROR", message: body?.error?.message ?? `HTTP ${status}`, details: body?.error?.details };
}

/**
 * The MemoClaw Python SDK (`memoclaw`, errors.py `APIError.from_response`): `error =
 * body.get("error", {})`, then `error.get("code", "UNKNOWN")`, `error.get("message", "Unknown
 * error")`, `error.get("details")`. A string `error` has no `.get`: Python raises AttributeError.
 */
export function memoclawPythonSdkError(status: number, body: Record<string, unknown>): SdkError {
  const error = "error" in body ? body.error : {};
  if (typeof error !== "object" || error === null || Array.isArray(error)) {
    throw new TypeError(`AttributeError: '${typeof error === "string" ? "str" : typeof error}' object has no attribute 'get'`);
  }
  const fields = error as Record<string, unknown>;
  return { status, code: String(fields.code ?? "UNKNOWN"), message: String(fields.message ?? "Unknown error"), details: fields.details };
}
