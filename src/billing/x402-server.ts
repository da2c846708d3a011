import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { PaymentPayloadSchema } from "@x402/core/schemas";
import { SettleError, VerifyError } from "@x402/core/types";
import type { Network, PaymentPayload, PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse, VerifyResponse } from "@x402/core/types";
import type { PaymentPayloadV1, PaymentRequiredV1, PaymentRequirementsV1 } from "@x402/core/types/v1";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { getEvmChainIdV1 } from "@x402/evm/v1";
import { t } from "elysia";
import { Value } from "@sinclair/typebox/value";
import type { Config } from "../config";
import { priceTable, type PaidRoute } from "./prices";
import { log } from "../log";

/**
 * The x402 side of the paywall, built on the maintained packages: `@x402/core`'s
 * `x402ResourceServer` (requirements, 402 documents, matching, verify and settle through
 * the facilitator's HTTP API) with `@x402/evm`'s `exact` scheme (USDC amounts, asset
 * addresses and EIP-712 domains per network). This file adds only what an Elysia app needs
 * around it: reading the payment headers, the v1 forms (the body older clients read, the
 * `X-PAYMENT` header), and the headers of the answer. No protocol rule is re-implemented.
 *
 * `@x402/core` 2.x speaks v2 in its resource server; a v1 payment (`X-PAYMENT`) is verified
 * and settled by the same facilitator client with v1 requirements derived from the v2 ones,
 * exactly what the facilitator API accepts (`x402Version` is per request).
 */

/** Seconds a client has between signing an authorization and our settling it. */
export const MAX_TIMEOUT_SECONDS = 300;
/** Per facilitator request (verify, settle, supported). */
const FACILITATOR_TIMEOUT_MS = 30_000;

const DESCRIPTIONS: Record<PaidRoute, string> = {
  "POST /v1/store": "Store one memory",
  "POST /v1/store/batch": "Store up to 100 memories",
  "POST /v1/recall": "Semantic recall",
  "POST /v1/context": "Assemble a context block",
  "POST /v1/ingest": "Ingest a conversation or text",
  "PATCH /v1/memories/batch": "Update up to 100 memories",
  "POST /v1/memories/consolidate": "Merge near-duplicate memories",
};

/** The payer's signed EIP-3009 `transferWithAuthorization`, the only payload `exact` on an EIP-3009 asset (USDC) carries. */
const Eip3009Payload = t.Object({
  signature: t.String({ pattern: "^0x[0-9a-fA-F]+$" }),
  authorization: t.Object({
    from: t.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
    to: t.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
    value: t.String({ pattern: "^[0-9]+$" }),
    validAfter: t.String({ pattern: "^[0-9]+$" }),
    validBefore: t.String({ pattern: "^[0-9]+$" }),
    nonce: t.String({ pattern: "^0x[0-9a-fA-F]{64}$" }),
  }),
});
export type Authorization = (typeof Eip3009Payload)["static"]["authorization"];

/** A decoded payment header: v2 from PAYMENT-SIGNATURE, v1 from X-PAYMENT. */
export type Payment = { version: 2; payload: PaymentPayload; authorization: Authorization } | { version: 1; payload: PaymentPayloadV1; authorization: Authorization };

/** The payment header was present but is not a usable x402 payment. */
export class MalformedPayment extends Error {}

export type HeaderSource = Headers | Record<string, string | undefined>;
function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  return headers[name] ?? headers[name.toLowerCase()] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/** The v1 shape of one v2 requirement (v1 puts resource, description and mime type in each requirement). */
export type RequirementsV1 = Omit<PaymentRequirementsV1, "outputSchema">;

export class X402Server {
  /** CAIP-2 id (v2), e.g. eip155:8453 */
  readonly network: Network;
  /** v1 name, e.g. base */
  readonly networkV1: string;
  readonly payTo: string;
  private readonly facilitator: HTTPFacilitatorClient;
  private readonly server: x402ResourceServer;
  private readonly prices: Record<PaidRoute, string>;
  private init: Promise<void> | null = null;
  private readonly requirementsCache = new Map<PaidRoute, Promise<PaymentRequirements>>();

  constructor(options: { facilitatorUrl: string; network: "base" | "base-sepolia"; payTo: string; prices: Record<PaidRoute, string> }) {
    this.networkV1 = options.network;
    this.network = `eip155:${getEvmChainIdV1(options.network)}`;
    this.payTo = options.payTo;
    this.prices = options.prices;
    this.facilitator = new HTTPFacilitatorClient({ url: options.facilitatorUrl, timeoutMs: FACILITATOR_TIMEOUT_MS });
    this.server = new x402ResourceServer(this.facilitator).register(this.network, new ExactEvmScheme());
  }

  static fromConfig(config: Config): X402Server | null {
    if (config.PAYMENTS !== "on") return null;
    const server = new X402Server({ facilitatorUrl: config.X402_FACILITATOR_URL!, network: config.X402_NETWORK, payTo: config.X402_PAY_TO!, prices: priceTable(config) });
    // Warm up in the background: a wrong URL shows in the log at start, not at the first paid call.
    server.ready().catch((error: unknown) => log.warn(`[engram] x402: facilitator ${config.X402_FACILITATOR_URL} not ready: ${error instanceof Error ? error.message : error}`));
    return server;
  }

  /** Learns what the facilitator supports (GET /supported); retried on the next call after a failure. */
  ready(): Promise<void> {
    this.init ??= this.server.initialize().catch((error: unknown) => {
      this.init = null;
      this.requirementsCache.clear();
      throw error;
    });
    return this.init;
  }

  /** What one call of `route` costs, as the library builds it: exact scheme, USDC of the network, our payTo. */
  async requirements(route: PaidRoute): Promise<PaymentRequirements> {
    await this.ready();
    let cached = this.requirementsCache.get(route);
    if (!cached) {
      cached = this.server
        .buildPaymentRequirements({ scheme: "exact", network: this.network, payTo: this.payTo, price: `$${this.prices[route]}`, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS })
        .then(([first]) => {
          if (!first) throw new Error(`no payment requirements for ${route}`);
          return first;
        });
      cached.catch(() => this.requirementsCache.delete(route));
      this.requirementsCache.set(route, cached);
    }
    return cached;
  }

  resource(route: PaidRoute, url: string): ResourceInfo {
    return { url, description: `${DESCRIPTIONS[route]} ($${this.prices[route]} USDC)`, mimeType: "application/json", serviceName: "engram" };
  }

  /** The 402 document (v2, via the library) for these requirements (none when payments cannot be taken). */
  async paymentRequired(requirements: PaymentRequirements[], resource: ResourceInfo, error: string): Promise<PaymentRequired> {
    return this.server.createPaymentRequiredResponse(requirements, resource, error);
  }

  toV1(requirements: PaymentRequirements, resource: ResourceInfo): RequirementsV1 {
    return {
      scheme: requirements.scheme,
      network: this.networkV1 as Network,
      maxAmountRequired: requirements.amount,
      resource: resource.url,
      description: resource.description ?? "",
      mimeType: resource.mimeType ?? "application/json",
      payTo: requirements.payTo,
      maxTimeoutSeconds: requirements.maxTimeoutSeconds,
      asset: requirements.asset,
      extra: requirements.extra,
    };
  }

  /**
   * The payment attached to a request: PAYMENT-SIGNATURE first, else X-PAYMENT; null when there
   * is none. The payload's own `x402Version` decides how it is handled (a v2 payload sent as
   * X-PAYMENT by an older client is still v2), validated with the library's schemas.
   */
  static readPayment(headers: HeaderSource): Payment | null {
    const signature = header(headers, "payment-signature");
    const raw = signature ?? header(headers, "x-payment");
    if (!raw) return null;
    const name = signature ? "PAYMENT-SIGNATURE" : "X-PAYMENT";
    let decoded: unknown;
    try {
      decoded = decodePaymentSignatureHeader(raw.trim());
    } catch {
      throw new MalformedPayment(`${name} is not base64-encoded JSON`);
    }
    const parsed = PaymentPayloadSchema.safeParse(decoded);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new MalformedPayment(`${name} is not an x402 payment payload (${issue ? `${issue.path.join(".") || "payload"}: ${issue.message}` : "invalid"})`);
    }
    if (!Value.Check(Eip3009Payload, parsed.data.payload)) throw new MalformedPayment(`${name}: the payload is not a signed EIP-3009 transferWithAuthorization`);
    const { authorization } = parsed.data.payload as (typeof Eip3009Payload)["static"];
    return parsed.data.x402Version === 2
      ? { version: 2, payload: parsed.data as PaymentPayload, authorization }
      : { version: 1, payload: parsed.data as PaymentPayloadV1, authorization };
  }

  /** Whether the payment answers these requirements (v2: the echoed `accepted` must equal them; v1: scheme and network). */
  matches(payment: Payment, requirements: PaymentRequirements): boolean {
    if (payment.version === 2) return this.server.findMatchingRequirements([requirements], payment.payload) !== undefined;
    return payment.payload.scheme === requirements.scheme && payment.payload.network === this.networkV1;
  }

  /** Asks the facilitator (POST /verify). A refusal is a result; an unreachable facilitator throws FacilitatorUnavailable. */
  async verify(payment: Payment, requirements: PaymentRequirements, resource: ResourceInfo): Promise<VerifyResponse> {
    try {
      if (payment.version === 2) return await this.server.verifyPayment(payment.payload, requirements);
      return await this.facilitator.verify(payment.payload as unknown as PaymentPayload, this.toV1(requirements, resource) as unknown as PaymentRequirements);
    } catch (error) {
      if (error instanceof VerifyError) return { isValid: false, invalidReason: error.invalidReason ?? "invalid_payment", invalidMessage: error.invalidMessage, payer: error.payer };
      throw new FacilitatorUnavailable("verify", error);
    }
  }

  /** Moves the money (POST /settle). A refusal is a result; no answer (down, timeout) throws FacilitatorUnavailable. */
  async settle(payment: Payment, requirements: PaymentRequirements, resource: ResourceInfo): Promise<SettleResponse> {
    try {
      if (payment.version === 2) return await this.server.settlePayment(payment.payload, requirements);
      return await this.facilitator.settle(payment.payload as unknown as PaymentPayload, this.toV1(requirements, resource) as unknown as PaymentRequirements);
    } catch (error) {
      if (error instanceof SettleError) {
        return { success: false, errorReason: error.errorReason ?? "settlement_failed", errorMessage: error.errorMessage, payer: error.payer, transaction: error.transaction ?? "", network: error.network ?? this.network };
      }
      throw new FacilitatorUnavailable("settle", error);
    }
  }
}

/** The facilitator did not answer (down, timeout, malformed reply). */
export class FacilitatorUnavailable extends Error {
  constructor(
    readonly operation: "verify" | "settle",
    cause: unknown,
  ) {
    super(`payment facilitator unavailable (${operation}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Headers of a 402: the v2 document in PAYMENT-REQUIRED (the v1 one goes in the body). */
export function paymentRequiredHeaders(document: PaymentRequired): Record<string, string> {
  return { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(document), "Cache-Control": "no-store" };
}

/** The settlement receipt in the header the payer's protocol version reads. */
export function paymentResponseHeaders(version: 1 | 2, settlement: SettleResponse): Record<string, string> {
  return { [version === 2 ? "PAYMENT-RESPONSE" : "X-PAYMENT-RESPONSE"]: encodePaymentResponseHeader(settlement) };
}

export type { PaymentRequired, PaymentRequiredV1, PaymentRequirements, ResourceInfo, SettleResponse };
