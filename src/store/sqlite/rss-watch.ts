import { readFileSync } from "node:fs";

/** A process's anonymous resident memory in bytes (RssAnon of /proc/<pid>/status; this one's by default); null where there is no /proc (not Linux). */
export function anonymousRss(pid: number | "self" = "self"): number | null {
  try {
    const kib = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

/** How often the process's memory is read at most (a read of /proc costs ~30 µs). */
const INTERVAL_MS = 250;
/** Full collections run after an over-limit reading at most this often (one costs tens of ms on a large heap). */
const GC_INTERVAL_MS = 10_000;

/**
 * Keeps the process's anonymous memory within `baseline + allowed`, where `baseline` is the reading
 * when the cache first loads a wallet (the model and the service's own first growth are in it), by
 * lowering what the cache may hold (`cap`, in the cache's own accounting).
 *
 * Why: the cache's accounting counts the bytes its arrays and strings hold, but a process holds more
 * for them: JSC's heap and mimalloc keep the memory of dropped wallets, of request garbage and of
 * their fragments, and reuse it rather than return it (with a budget of 64 MiB, 10,000 small wallets
 * grew anonymous memory by 136 MiB). Reading what the kernel counts and giving way by what is over
 * bounds that instead of an estimate of it: a wallet dropped frees memory that the next one loaded
 * reuses, so memory stops growing. Below the limit the cap comes back up by what is under it.
 */
export class RssWatch {
  /** what the cache may hold now, by its accounting (≤ allowed) */
  cap: number;
  private baseline: number | null = null;
  /** the highest reading since the last one under the limit (the limit when under) */
  private high = 0;
  private lastRead = -Infinity;
  private lastGc = -Infinity;

  constructor(
    private readonly allowed: number,
    private readonly read: () => number | null = anonymousRss,
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.cap = allowed;
  }

  /** The limit on the process's anonymous memory (null until the first reading). */
  get limit(): number | null {
    return this.baseline === null ? null : this.baseline + this.allowed;
  }

  /**
   * Reads the process's memory (at most every INTERVAL_MS) and moves the cap. Under the limit, the
   * cache may add what is under to what it holds (`used`), up to the budget. Over it, the cap goes
   * down (from `used`) by what the process grew beyond the limit and beyond its highest reading since
   * it was last under: memory the allocators keep after wallets were dropped is reused by the next
   * ones, so a reading that stays over without growing drops nothing more (it would empty the cache
   * without lowering the memory). True when the cap went down (the caller drops wallets down to it).
   */
  check(used: number): boolean {
    const now = this.clock();
    if (now - this.lastRead < INTERVAL_MS) return false;
    this.lastRead = now;
    const rss = this.read();
    if (rss === null) return false;
    this.baseline ??= rss;
    const limit = this.baseline + this.allowed;
    if (rss <= limit) {
      this.cap = Math.min(this.allowed, used + (limit - rss));
      this.high = limit;
      return false;
    }
    const grown = rss - Math.max(limit, this.high);
    this.high = Math.max(this.high, rss);
    if (grown <= 0) return false;
    this.cap = Math.max(0, Math.min(this.cap, used) - grown);
    return true;
  }

  /**
   * Wallets were dropped down to the cap: a full collection (at most every GC_INTERVAL_MS) makes
   * their memory, and the requests' garbage, reusable at once and lets the allocators return whole
   * free pages.
   */
  dropped(): void {
    const now = this.clock();
    if (now - this.lastGc < GC_INTERVAL_MS) return;
    this.lastGc = now;
    this.collect();
  }

  /** The cache was emptied: the cap starts over (the baseline stays: the process is the same). */
  reset(): void {
    this.cap = this.allowed;
  }
}
