import { errorBody, ReplyError } from "../http/errors";
import type { FreeTier } from "./free-tier";
import { paymentRequiredReply, type Refusal } from "./payment-required";
import type { PaidRoute } from "./prices";
import { ReplayGuard } from "./replay-guard";
import type { StagingStore } from "./staged-writes";
import { FacilitatorUnavailable, MalformedPayment, X402Server, paymentRequiredHeaders, paymentResponseHeaders, type HeaderSource, type Payment, type PaymentRequirements, type ResourceInfo } from "./x402-server";
import { log } from "../log";
import { freeTierCalls, paymentRefusals, x402Payments } from "../metrics/registry";

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The 402 reasons the service names itself; the facilitator's own (invalid_exact_evm_…) count as facilitator_rejected. */
const REFUSALS = new Set(["payment_required", "invalid_payment", "payment_requirements_mismatch", "payer_mismatch", "nonce_already_used", "facilitator_unavailable", "settlement_failed"]);

/**
 * Runs paid work. While the wallet has free calls, one is taken (and given back if the work
 * fails); payment headers are ignored then. After that the call is paid with x402:
 *
 *   1. read the payment (PAYMENT-SIGNATURE v2, else X-PAYMENT v1); none → 402 with requirements
 *   2. it must answer this route's requirements, and its payer must be the authenticated wallet
 *   3. reserve its nonce in the replay guard, in the store (a second use, even concurrent or on
 *      another process, → 402)
 *   4. verify with the facilitator, BEFORE any work
 *   5. run the work with its writes staged (StagingStore): nothing is stored yet
 *   6. settle with the facilitator; failure (refused or no answer) → 402, staged writes dropped
 *   7. commit the staged writes, answer with X-PAYMENT-RESPONSE / PAYMENT-RESPONSE
 *
 * So a call is charged iff it succeeded: a failing call (validation runs before the handler;
 * a domain error inside the work) is never settled, and a payment that does not settle
 * leaves nothing behind. Before step 5 the nonce is given back on failure (the
 * authorization was not used); from settlement on it stays held until it expires.
 *
 * Payer rule: the authorization's `from` (and the payer the facilitator reports) must be the
 * authenticated wallet. A wallet pays for its own calls, so a captured payment header cannot
 * be spent on another account's calls and each charge belongs to the account it served.
 */
export class Paywall {
  /** kept in the store: every process and replica on it refuses a replay (replay-guard.ts) */
  private readonly guard: ReplayGuard;

  constructor(
    private readonly freeTier: FreeTier,
    private readonly staging: StagingStore,
    /** null when PAYMENTS=off: after the free calls, paid endpoints answer 402 payments_disabled */
    private readonly x402: X402Server | null,
  ) {
    this.guard = new ReplayGuard(staging);
  }

  async charge<T>(
    wallet: string,
    route: PaidRoute,
    request: { url: string; headers: HeaderSource },
    setHeader: (name: string, value: string) => void,
    work: () => Promise<T>,
  ): Promise<T> {
    const remaining = await this.freeTier.reserve(wallet);
    if (remaining !== null) return this.free(wallet, remaining, setHeader, work);
    if (!this.x402) throw this.disabled(route, request.url);
    return this.paid(this.x402, wallet, route, request, setHeader, work);
  }

  private async free<T>(wallet: string, remaining: number, setHeader: (name: string, value: string) => void, work: () => Promise<T>): Promise<T> {
    setHeader("x-free-tier-remaining", String(remaining));
    freeTierCalls.inc({ outcome: "used" });
    try {
      return await work();
    } catch (error) {
      await this.freeTier.release(wallet);
      freeTierCalls.inc({ outcome: "returned" });
      setHeader("x-free-tier-remaining", String(remaining + 1));
      throw error;
    }
  }

  private async paid<T>(
    x402: X402Server,
    wallet: string,
    route: PaidRoute,
    request: { url: string; headers: HeaderSource },
    setHeader: (name: string, value: string) => void,
    work: () => Promise<T>,
  ): Promise<T> {
    const resource = x402.resource(route, request.url);
    let requirements: PaymentRequirements;
    try {
      requirements = await x402.requirements(route);
    } catch (error) {
      log.warn(`[engram] x402: cannot build payment requirements: ${error instanceof Error ? error.message : error}`);
      throw await this.refusal(x402, null, resource, {
        error: "facilitator_unavailable",
        message: `no payment can be taken right now: the payment facilitator is unreachable or does not support ${x402.network}; nothing was charged, try again later`,
      });
    }
    const refuse = (refusal: Refusal, headers?: Record<string, string>) => this.refusal(x402, requirements, resource, refusal, headers);

    let payment: Payment | null;
    try {
      payment = X402Server.readPayment(request.headers);
    } catch (error) {
      if (error instanceof MalformedPayment) throw await refuse({ error: "invalid_payment", message: error.message });
      throw error;
    }
    if (!payment) {
      throw await refuse({
        error: "payment_required",
        message: `the ${this.freeTier.total} free calls of this wallet are used; ${resource.description}: pay with x402 (PAYMENT-SIGNATURE or X-PAYMENT)`,
      });
    }
    if (!x402.matches(payment, requirements)) {
      throw await refuse({ error: "payment_requirements_mismatch", message: "the payment does not answer this endpoint's requirements (scheme, network, asset, amount, payTo); pay what `accepts` lists" });
    }
    const { authorization } = payment;
    if (!same(authorization.from, wallet)) {
      throw await refuse({ error: "payer_mismatch", message: `the payment is signed by ${authorization.from}, not by the authenticated wallet ${wallet}; a wallet pays for its own calls` });
    }
    const key = ReplayGuard.key({ network: x402.network, asset: requirements.asset, payer: authorization.from, nonce: authorization.nonce });
    if (!(await this.guard.reserve(key, Number(authorization.validBefore)))) {
      throw await refuse({ error: "nonce_already_used", message: "this payment authorization has already been used (one authorization pays for one call); sign a new one" });
    }

    let settling = false;
    try {
      const verdict = await viaFacilitator(() => x402.verify(payment, requirements, resource), () =>
        refuse({ error: "facilitator_unavailable", message: "the payment facilitator cannot be reached to verify the payment; nothing was charged or stored, try again later" }),
      );
      if (!verdict.isValid) {
        const reason = verdict.invalidReason ?? "invalid_payment";
        throw await refuse({ error: reason, message: `the facilitator rejected the payment: ${verdict.invalidMessage ?? reason}` });
      }
      if (verdict.payer && !same(verdict.payer, wallet)) {
        throw await refuse({ error: "payer_mismatch", message: `the payment is made by ${verdict.payer}, not by the authenticated wallet ${wallet}` });
      }

      const staged = await this.staging.stage(work);

      settling = true;
      const settlement = await viaFacilitator(() => x402.settle(payment, requirements, resource), () => {
        x402Payments.inc({ outcome: "settlement_failed" });
        return refuse({ error: "settlement_failed", message: "the payment facilitator did not confirm settlement; the call was not applied (nothing stored)" });
      });
      const receipt = paymentResponseHeaders(payment.version, settlement);
      x402Payments.inc({ outcome: settlement.success ? "settled" : "settlement_failed" });
      if (!settlement.success) {
        const reason = settlement.errorReason ?? "settlement_failed";
        throw await refuse({ error: "settlement_failed", message: `the payment did not settle (${settlement.errorMessage ?? reason}); the call was not applied (nothing stored)` }, receipt);
      }

      for (const [name, value] of Object.entries(receipt)) setHeader(name, value);
      setHeader("Cache-Control", "private");
      try {
        await staged.commit();
      } catch (error) {
        x402Payments.inc({ outcome: "settled_not_stored" });
        log.error(`[engram] x402: payment settled (${settlement.transaction}) but its writes failed:`, error);
        throw new ReplyError({
          status: 500,
          body: errorBody(
            500,
            `the payment settled (transaction ${settlement.transaction}) but the result could not be saved; keep the PAYMENT-RESPONSE receipt and contact the operator`,
            { reason: "settled_not_stored", transaction: settlement.transaction },
          ),
          headers: { ...receipt, "Cache-Control": "private" },
        });
      }
      return staged.result;
    } catch (error) {
      // A claim that cannot be given back only expires: the payer signs a new authorization.
      if (!settling) await this.guard.release(key).catch((cause: unknown) => log.warn(`[engram] x402: could not release a payment nonce: ${cause instanceof Error ? cause.message : cause}`));
      throw error;
    }
  }

  /** A 402 with this route's requirements in both forms (or none, when none can be built). */
  private async refusal(x402: X402Server, requirements: PaymentRequirements | null, resource: ResourceInfo, refusal: Refusal, headers?: Record<string, string>): Promise<ReplyError> {
    paymentRefusals.inc({ reason: REFUSALS.has(refusal.error) ? refusal.error : "facilitator_rejected" });
    const accepts = requirements ? [requirements] : [];
    const document = await x402.paymentRequired(accepts, resource, refusal.error);
    return paymentRequiredReply(refusal, document, accepts.map((r) => x402.toV1(r, resource)), headers);
  }

  /**
   * PAYMENTS=off: nothing can be paid, so this is no x402 challenge: the body is the service's
   * nested error (reason `payments_disabled`); the v2 PAYMENT-REQUIRED header still says the same
   * to x402 clients, with no requirements.
   */
  private disabled(route: PaidRoute, url: string): ReplyError {
    const reason = "payments_disabled";
    paymentRefusals.inc({ reason });
    const message = `the ${this.freeTier.total} free calls of this wallet are used and this server does not take payments (PAYMENTS=off), so ${route} cannot be served`;
    return new ReplyError({
      status: 402,
      body: errorBody(402, message, { reason, free_tier_total: this.freeTier.total }),
      headers: paymentRequiredHeaders({ x402Version: 2, error: reason, resource: { url, description: route, mimeType: "application/json" }, accepts: [] }),
    });
  }
}

/** A facilitator call; when the facilitator cannot be reached, logs it and throws the given 402 instead. */
async function viaFacilitator<T>(call: () => Promise<T>, refusal: () => Promise<ReplyError>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof FacilitatorUnavailable)) throw error;
    log.warn(`[engram] x402: ${error.message}`);
    throw await refusal();
  }
}
