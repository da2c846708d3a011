import { Elysia } from "elysia";
import type { AppDeps } from "./deps";
import { RateLimiter } from "./rate-limit";

/** What the auth plugin adds to a request's context. */
export type Caller = {
  wallet: string;
  userId: string;
  setHeader: (name: string, value: string) => void;
};

/** One limiter per app (deps), shared by every route group. */
const limiters = new WeakMap<AppDeps, RateLimiter>();

/**
 * Resolves the calling wallet (before body validation, so a stranger gets 401, not 422) and its
 * user id, and reports the free calls left in `x-free-tier-remaining` on every authenticated answer.
 * With RATE_LIMIT_PER_MINUTE set, a wallet's requests past it answer 429 (see rate-limit.ts), and
 * every answer carries the wallet's `X-RateLimit-Limit`, `-Remaining` and `-Reset`.
 */
export const authPlugin = (deps: AppDeps) =>
  new Elysia().derive({ as: "scoped" }, async ({ headers, set }): Promise<Caller> => {
    const now = deps.clock();
    const wallet = await deps.authenticator.authenticate(headers, now);
    let limiter = limiters.get(deps);
    if (!limiter) limiters.set(deps, (limiter = new RateLimiter(deps.config.RATE_LIMIT_PER_MINUTE)));
    const rateLimit = limiter.take(wallet, now);
    const [userId, status] = await Promise.all([deps.store.userIdForWallet(wallet), deps.freeTier.status(wallet)]);
    set.headers["x-free-tier-remaining"] = String(status.free_tier_remaining);
    if (rateLimit) Object.assign(set.headers, rateLimit);
    return {
      wallet,
      userId,
      setHeader: (name: string, value: string) => {
        set.headers[name] = value;
      },
    };
  });
