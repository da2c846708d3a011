import type { FreeTier } from "./free-tier";
import { paymentRequired, type PaymentSettings } from "./payment-required";
import type { PaidRoute } from "./prices";

/**
 * Runs paid work: a free call when the wallet has one left (given back if the work fails),
 * otherwise the x402 402 answer.
 */
export class Paywall {
  constructor(
    private readonly freeTier: FreeTier,
    private readonly payments: PaymentSettings,
  ) {}

  async charge<T>(
    wallet: string,
    route: PaidRoute,
    request: { url: string; headers: Record<string, string | undefined> },
    setHeader: (name: string, value: string) => void,
    work: () => Promise<T>,
  ): Promise<T> {
    const remaining = await this.freeTier.reserve(wallet);
    if (remaining === null) throw paymentRequired(route, request.url, this.payments);
    setHeader("x-free-tier-remaining", String(remaining));
    try {
      return await work();
    } catch (error) {
      await this.freeTier.release(wallet);
      setHeader("x-free-tier-remaining", String(remaining + 1));
      throw error;
    }
  }
}
