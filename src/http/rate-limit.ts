import { errorBody, ReplyError } from "./errors";

const WINDOW_MS = 60_000;

/**
 * Requests per minute per wallet, in fixed one-minute windows, in this process's memory (each
 * server process counts its own). Over the limit: 429 RATE_LIMITED with `Retry-After` (seconds
 * until the window ends). A limit of 0 never refuses.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /** Counts one request of `wallet` at `now` (ms); throws 429 when it is over the limit. */
  take(wallet: string, now: number): void {
    if (this.perMinute <= 0) return;
    let window = this.windows.get(wallet);
    if (!window || now - window.start >= WINDOW_MS) {
      if (this.windows.size > 100_000) this.sweep(now);
      window = { start: now, count: 0 };
      this.windows.set(wallet, window);
    }
    if (window.count >= this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      const message = `more than ${this.perMinute} requests in a minute from this wallet; retry in ${retryAfter} s`;
      const details = { reason: "rate_limited", limit_per_minute: this.perMinute, retry_after_seconds: retryAfter };
      throw new ReplyError({ status: 429, body: errorBody(429, message, details), headers: { "retry-after": String(retryAfter) } });
    }
    window.count++;
  }

  private sweep(now: number): void {
    for (const [wallet, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(wallet);
  }
}
