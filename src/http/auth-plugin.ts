import { Elysia } from "elysia";
import type { AppDeps } from "./deps";

/**
 * Resolves the calling wallet (before body validation, so a stranger gets 401, not 422) and its
 * user id, and reports the free calls left in `x-free-tier-remaining` on every authenticated answer.
 */
export const authPlugin = (deps: AppDeps) =>
  new Elysia().derive({ as: "scoped" }, async ({ headers, set }) => {
    const wallet = await deps.authenticator.authenticate(headers, deps.clock());
    const [userId, status] = await Promise.all([deps.store.userIdForWallet(wallet), deps.freeTier.status(wallet)]);
    set.headers["x-free-tier-remaining"] = String(status.free_tier_remaining);
    return {
      wallet,
      userId,
      setHeader: (name: string, value: string) => {
        set.headers[name] = value;
      },
    };
  });
