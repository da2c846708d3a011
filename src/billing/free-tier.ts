import type { MemoryStore } from "../domain/store-port";

export interface FreeTierStatus {
  wallet: string;
  free_tier_remaining: number;
  free_tier_total: number;
  free_tier_used: number;
}

/** The per-wallet allowance of free paid-endpoint calls, counted atomically by the store. */
export class FreeTier {
  constructor(
    private readonly store: MemoryStore,
    readonly total: number,
  ) {}

  async status(wallet: string): Promise<FreeTierStatus> {
    const used = Math.min(await this.store.freeCallsUsed(wallet), this.total);
    return { wallet, free_tier_remaining: this.total - used, free_tier_used: used, free_tier_total: this.total };
  }

  /** Takes one call if any is left; the remaining count after it, or null when the allowance is used up. */
  async reserve(wallet: string): Promise<number | null> {
    const used = await this.store.reserveFreeCall(wallet, this.total);
    return used === null ? null : this.total - used;
  }

  /** Gives a reserved call back: a request that failed is not charged. */
  release(wallet: string): Promise<void> {
    return this.store.releaseFreeCall(wallet);
  }
}
