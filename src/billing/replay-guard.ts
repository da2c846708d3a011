import type { MemoryStore } from "../domain/store-port";

/**
 * One payment authorization pays for one call. The guard holds each authorization's key
 * (network, asset, payer, nonce) from just before it is verified until it can no longer be
 * settled (its `validBefore`), so a replay (sequential or concurrent) is refused here before
 * the facilitator is asked.
 *
 * The claim lives in the store (a table of the SQLite file, a Redis key with an expiry), and
 * the store takes it atomically: of several concurrent uses of one authorization, in one
 * process or in several on the same store (WORKERS, replicas), exactly one wins, and a replay
 * never costs a facilitator round trip.
 */
export class ReplayGuard {
  constructor(
    private readonly store: Pick<MemoryStore, "claimPaymentNonce" | "releasePaymentNonce">,
    private readonly now: () => number = Date.now,
    /** kept this long past validBefore, for clock skew between us and the chain */
    private readonly graceMs = 60_000,
  ) {}

  static key(parts: { network: string; asset: string; payer: string; nonce: string }): string {
    return [parts.network, parts.asset, parts.payer, parts.nonce].map((p) => p.toLowerCase()).join("|");
  }

  /** Takes the key until `validBeforeSeconds` (plus the grace); false when it is already held (a replay). */
  reserve(key: string, validBeforeSeconds: number): Promise<boolean> {
    const now = this.now();
    return this.store.claimPaymentNonce(key, Math.max(validBeforeSeconds * 1000, now) + this.graceMs, now);
  }

  /** Gives the key back: the authorization was not used (verification or the work failed). */
  release(key: string): Promise<void> {
    return this.store.releasePaymentNonce(key);
  }
}
