import { Elysia } from "elysia";
import type { AppDeps } from "./deps";
import type { FreeTierStatus } from "../billing/free-tier";
import { RateLimiter } from "./rate-limit";

/** What the auth plugin adds to a request's context. */
export type Caller = {
  wallet: string;
  userId: string;
  setHeader: (name: string, value: string) => void;
};

/** One limiter per app (deps), shared by every route group. */
const limiters = new WeakMap<AppDeps, RateLimiter>();

const FREE_TIER_HEADER = "x-free-tier-remaining";

/**
 * Resolves the calling wallet (before body validation, so a stranger gets 401, not 422) and its
 * user id, and reports the free calls left in `x-free-tier-remaining` on every authenticated answer.
 * With RATE_LIMIT_PER_MINUTE set, a wallet's requests past it answer 429 (see rate-limit.ts), and
 * every answer carries the wallet's `X-RateLimit-Limit`, `-Remaining` and `-Reset`.
 *
 * The free-tier count is asked for with the user id but awaited only before answering: a paid call
 * takes one (paywall.ts) and reports the count that leaves, so its work need not wait for a read it
 * does not use (on Redis a round trip less before a recall starts); any other answer, errors
 * included, reports the count read here.
 */
export const authPlugin = (deps: AppDeps) =>
  new Elysia()
    .derive({ as: "scoped" }, async ({ headers, set }): Promise<Caller & { freeTierRead: Promise<FreeTierStatus | null> }> => {
      const now = deps.clock();
      const wallet = await deps.authenticator.authenticate(headers, now);
      let limiter = limiters.get(deps);
      if (!limiter) limiters.set(deps, (limiter = new RateLimiter(deps.config.RATE_LIMIT_PER_MINUTE)));
      const rateLimit = limiter.take(wallet, now);
      // a failed read leaves the header out; the request's own work reports the store's failure
      const freeTierRead = deps.freeTier.status(wallet).catch(() => null);
      const userId = await deps.store.userIdForWallet(wallet);
      if (rateLimit) Object.assign(set.headers, rateLimit);
      return {
        wallet,
        userId,
        freeTierRead,
        setHeader: (name: string, value: string) => {
          set.headers[name] = value;
        },
      };
    })
    .onAfterHandle({ as: "scoped" }, (context) => reportFreeTier(context));

/**
 * Sets `x-free-tier-remaining` from the plugin's read unless the paywall has set it from the call it
 * took. Run after a handler, and by the app's error handler for errors (validation, refusals, failed
 * work): a context the plugin never reached (no wallet yet) has nothing to report.
 */
export async function reportFreeTier(context: { set: { headers: Record<string, unknown> } }): Promise<void> {
  const { headers } = context.set;
  const read = (context as { freeTierRead?: Promise<FreeTierStatus | null> }).freeTierRead;
  if (!read || headers[FREE_TIER_HEADER] !== undefined) return;
  const status = await read;
  if (status && headers[FREE_TIER_HEADER] === undefined) headers[FREE_TIER_HEADER] = String(status.free_tier_remaining);
}
