/**
 * One payment authorization pays for one call. The guard holds each authorization's key
 * (network, asset, payer, nonce) from just before it is verified until it can no longer be
 * settled (its `validBefore`), so a replay (sequential or concurrent) is refused here
 * before the facilitator is asked. `reserve` is synchronous, so on one event loop exactly
 * one of several concurrent identical requests wins.
 *
 * The guard is per process. Across several instances the chain itself still lets a nonce
 * settle once, and because work is committed only after settlement (paywall.ts) a replay
 * that wins verify on another instance fails to settle and stores nothing.
 */
export class ReplayGuard {
  private readonly held = new Map<string, number>();
  private nextSweep = 0;

  constructor(
    private readonly now: () => number = Date.now,
    /** kept this long past validBefore, for clock skew between us and the chain */
    private readonly graceMs = 60_000,
  ) {}

  static key(parts: { network: string; asset: string; payer: string; nonce: string }): string {
    return [parts.network, parts.asset, parts.payer, parts.nonce].map((p) => p.toLowerCase()).join("|");
  }

  /** Takes the key until `validBeforeSeconds`; false when it is already held (a replay). */
  reserve(key: string, validBeforeSeconds: number): boolean {
    const now = this.now();
    this.sweep(now);
    const until = this.held.get(key);
    if (until !== undefined && until > now) return false;
    this.held.set(key, Math.max(validBeforeSeconds * 1000, now) + this.graceMs);
    return true;
  }

  /** Gives the key back: the authorization was not used (verification or the work failed). */
  release(key: string): void {
    this.held.delete(key);
  }

  get size(): number {
    return this.held.size;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 10_000;
    for (const [key, until] of this.held) if (until <= now) this.held.delete(key);
  }
}
