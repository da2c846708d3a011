import { leastBytes, type UserVectors } from "./wallet-cache";
import type { RssWatch } from "./rss-watch";

/** Wallets remembered as too large for the budget at most (forgotten all at once beyond). */
const MAX_OVERSIZED = 10_000;

/**
 * A collection (asynchronous) is asked for each time the cache has grown by this much. A wallet's arrays and
 * objects are allocated among the requests' garbage, and JSC collects its old generation seldom (two
 * full collections while 2,000 wallets were written in process): the heap grew blocks for that
 * garbage, the cache's cells were spread among it, and the blocks stayed once it died. Collected
 * every MiB of growth, a 20-memory wallet cost 18–19 KiB of anonymous memory in process instead of
 * 26 (every 2 MiB: 22); through the service the main thread's CPU per wallet written stayed within
 * the runs' noise (scripts/bench/many-wallets.ts).
 */
const COLLECT_EVERY = 2 ** 20;

/**
 * The byte budget of the vector index's wallet caches (vector-index.ts): what it has charged each
 * cached or loading wallet (UserVectors.bytes() when it last looked), their sum, and the wallets
 * found too large to cache alone. Which wallets go when the sum is over is the index's choice
 * (the least recently used).
 *
 * With an RssWatch, the sum is held below its cap too, which the process's anonymous memory lowers
 * when it goes beyond its baseline plus `max` (rss-watch.ts): `max` then bounds the process's growth,
 * not only the cache's accounting. Whether a wallet fits at all is judged against `max` alone.
 */
export class CacheBudget {
  private charged = new WeakMap<UserVectors, number>();
  /** what the charged wallets hold together */
  used = 0;
  /** wallets found too large to cache alone → their rows then (tried again with fewer) */
  private readonly oversized = new Map<string, number>();

  /** bytes charged (growth only) since the last collection asked for */
  private grownSinceCollection = 0;

  constructor(
    readonly max: number,
    private readonly rss: RssWatch | null = null,
    /** asynchronous: the collector's threads do most of the work (a synchronous one would pause every request) */
    private readonly collect: () => void = () => Bun.gc(false),
  ) {}

  /** What the wallets may hold together now (≤ max). */
  get cap(): number {
    return this.rss ? Math.min(this.max, this.rss.cap) : this.max;
  }

  get over(): boolean {
    return this.used > this.cap;
  }

  /** Reads the process's memory when it is time to (true when the cap went down); see RssWatch. */
  watch(): boolean {
    return this.rss?.check(this.used) ?? false;
  }

  /** Wallets were dropped for the process's memory (RssWatch.dropped). */
  dropped(): void {
    this.rss?.dropped();
  }

  /** Brings the wallet's charge up to date (its bytes change as rows come and go, and with reads). */
  charge(user: UserVectors): void {
    const bytes = user.bytes();
    const grown = bytes - (this.charged.get(user) ?? 0);
    this.used += grown;
    this.charged.set(user, bytes);
    if (grown > 0 && (this.grownSinceCollection += grown) >= COLLECT_EVERY) {
      this.grownSinceCollection = 0;
      this.collect();
    }
  }

  uncharge(user: UserVectors): void {
    this.used -= this.charged.get(user) ?? 0;
    this.charged.delete(user);
  }

  chargeOf(user: UserVectors): number {
    return this.charged.get(user) ?? 0;
  }

  /**
   * Could the wallet, with `rows` rows of `dim` dimensions, fit? Not when its rows alone need more
   * than the whole budget (leastBytes: their vectors and columns, without their text), nor when it
   * was found too large with as many rows or fewer.
   */
  mayFit(userId: string, dim: number, rows: number): boolean {
    if (leastBytes(dim, rows) > this.max) return false;
    const tooLarge = this.oversized.get(userId);
    if (tooLarge === undefined) return true;
    if (rows >= tooLarge) return false;
    this.oversized.delete(userId);
    return true;
  }

  /** The wallet did not fit alone with `rows` rows. */
  tooLarge(userId: string, rows: number): void {
    if (this.oversized.size >= MAX_OVERSIZED) this.oversized.clear();
    this.oversized.set(userId, rows);
  }

  /** Nothing is cached any more. */
  clear(): void {
    this.charged = new WeakMap();
    this.used = 0;
    this.oversized.clear();
    this.rss?.reset();
  }
}
