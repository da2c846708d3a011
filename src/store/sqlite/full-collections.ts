/**
 * Full garbage collections for the cache, process-wide (a collection is), at most one every
 * MIN_INTERVAL_MS: one costs tens of milliseconds on a large heap, during which nothing else runs.
 *
 * Why the cache asks for them: JSC frees a typed array's memory only when a full collection finds
 * it unreachable, and schedules those by how much the heap grew. Memory the cache gave up therefore
 * stayed resident until the next burst of allocation: the wallets the budget drops (rss-watch.ts), and
 * the columns a growing wallet replaces. A wallet's columns grow by 25% at a time, so growing one
 * leaves about four times its final size in replaced arrays behind; in a soak adding memories to
 * large wallets, the process's memory read after 45 s without requests held 1.6–2.0× the cache's
 * accounting per memory added, most of it in the JS heap's typed arrays.
 */

const MIN_INTERVAL_MS = 10_000;
/** Columns replaced at once below this are left to JSC's own schedule (a small wallet's growth). */
export const LARGE_REPLACEMENT_BYTES = 4 * 2 ** 20;

export class FullCollections {
  private last = -Infinity;
  private pending: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly clock: () => number = () => performance.now(),
    private readonly later: (run: () => void, ms: number) => ReturnType<typeof setTimeout> = (run, ms) => setTimeout(run, ms),
  ) {}

  /** A collection now, unless one ran less than MIN_INTERVAL_MS ago; true when it ran. */
  now(): boolean {
    const at = this.clock();
    if (at - this.last < MIN_INTERVAL_MS) return false;
    this.last = at;
    this.collect();
    return true;
  }

  /**
   * A collection after the current work (the request that replaced the arrays is not paused by it),
   * or once MIN_INTERVAL_MS has passed since the last; one pending at most, and it never keeps the
   * process alive.
   */
  soon(): void {
    if (this.pending !== null) return;
    const wait = Math.max(0, this.last + MIN_INTERVAL_MS - this.clock());
    this.pending = this.later(() => {
      this.pending = null;
      this.now();
    }, wait);
    (this.pending as { unref?: () => void }).unref?.();
  }

  /** `bytes` of arrays were replaced: a collection soon if they are many. */
  replaced(bytes: number): void {
    if (bytes >= LARGE_REPLACEMENT_BYTES) this.soon();
  }
}

/** The process's one scheduler (every cache of the process shares the interval). */
export const fullCollections = new FullCollections();
