import { errorBody, ReplyError } from "./errors";

const WINDOW_MS = 60_000;

/** Where a wallet stands in its current window: MemoClaw's `X-RateLimit-*` headers. */
export type RateLimitHeaders = { "x-ratelimit-limit": string; "x-ratelimit-remaining": string; "x-ratelimit-reset": string };

/**
 * Requests per minute per wallet, in fixed one-minute windows, in this process's memory (each
 * server process counts its own). Over the limit: 429 RATE_LIMITED with `Retry-After` (seconds
 * until the window ends). A limit of 0 never refuses and reports nothing.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number) {}

  /**
   * Counts one request of `wallet` at `now` (ms) and answers the `X-RateLimit-*` headers (limit,
   * requests left in the window, the window's end in Unix seconds), or undefined when there is no
   * limit; throws 429 when the wallet is over the limit.
   */
  take(wallet: string, now: number): RateLimitHeaders | undefined {
    if (this.perMinute <= 0) return undefined;
    let window = this.windows.get(wallet);
    if (!window || now - window.start >= WINDOW_MS) {
      if (this.windows.size > 100_000) this.sweep(now);
      window = { start: now, count: 0 };
      this.windows.set(wallet, window);
    }
    const resetSeconds = Math.ceil((window.start + WINDOW_MS) / 1000);
    if (window.count >= this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      const message = `more than ${this.perMinute} requests in a minute from this wallet; retry in ${retryAfter} s`;
      // limit and reset_at: the detail names of MemoClaw's published error reference
      const details = { reason: "rate_limited", limit_per_minute: this.perMinute, retry_after_seconds: retryAfter, limit: this.perMinute, reset_at: new Date(resetSeconds * 1000).toISOString() };
      const headers = { "retry-after": String(retryAfter), ...this.headers(0, resetSeconds) };
      throw new ReplyError({ status: 429, body: errorBody(429, message, details), headers });
    }
    window.count++;
    return this.headers(this.perMinute - window.count, resetSeconds);
  }

  private headers(remaining: number, resetSeconds: number): RateLimitHeaders {
    return { "x-ratelimit-limit": String(this.perMinute), "x-ratelimit-remaining": String(remaining), "x-ratelimit-reset": String(resetSeconds) };
  }

  private sweep(now: number): void {
    for (const [wallet, window] of this.windows) if (now - window.start >= WINDOW_MS) this.windows.delete(wallet);
  }
}
