import { DomainError } from "../domain/errors";
import type { SessionTokens } from "./session-token";
import { parseWalletHeader, SIGNATURE_TOLERANCE_SECONDS, verifyWalletSignature } from "./wallet-signature";
import { BoundedCache } from "./bounded-cache";

const unauthorized = (message: string) => new DomainError(401, "unauthorized", message);

/** Verified credentials kept per process (each entry is one header or token string). */
export const AUTH_CACHE_ENTRIES = 10_000;

/**
 * The wallet behind a request: `x-wallet-auth` (a fresh signature) or `Authorization: Bearer`
 * (a session token). Throws 401 with the reason when neither proves a wallet.
 *
 * Recovering an EIP-191 signer costs ~0.6 ms of the only JavaScript thread, and clients reuse one
 * signed header for many requests (the spec accepts a replay inside the 5-minute window). So each
 * distinct header is verified once and remembered, bounded, only while its timestamp is inside
 * the window: the answer for a cached header is exactly what verifying it again would give. A
 * tampered header is a different string, hence a miss and a full check. Session tokens likewise
 * until their `exp`. Failures are not cached (each costs a full check, as before).
 */
export class Authenticator {
  private readonly headers: BoundedCache<string>;
  private readonly tokens: BoundedCache<string>;

  constructor(
    private readonly sessionTokens: SessionTokens,
    private readonly prefix: string,
    maxEntries = AUTH_CACHE_ENTRIES,
  ) {
    this.headers = new BoundedCache(maxEntries);
    this.tokens = new BoundedCache(maxEntries);
  }

  /** Entries held, for tests and diagnostics. */
  get cached(): { headers: number; tokens: number } {
    return { headers: this.headers.size, tokens: this.tokens.size };
  }

  async authenticate(headers: Record<string, string | undefined>, now: number): Promise<string> {
    const header = headers["x-wallet-auth"];
    if (header) {
      const hit = this.headers.get(header, now);
      if (hit) return hit;
      const parsed = parseWalletHeader(header);
      if (!parsed) throw unauthorized("x-wallet-auth must be {address}:{unix_timestamp}:{signature}");
      const check = await verifyWalletSignature(parsed, this.prefix, now);
      if (!check.ok) throw unauthorized(`x-wallet-auth: ${check.reason}`);
      // valid while |now - ts| ≤ tolerance, i.e. until (ts + tolerance) s, inclusive
      this.headers.set(header, check.wallet, (parsed.timestamp + SIGNATURE_TOLERANCE_SECONDS) * 1000 + 1);
      return check.wallet;
    }
    const bearer = headers["authorization"]?.match(/^Bearer\s+(.+)$/i)?.[1];
    if (bearer) {
      const hit = this.tokens.get(bearer, now);
      if (hit) return hit;
      const verified = await this.sessionTokens.verifyWithExpiry(bearer, now);
      if (!verified) throw unauthorized("session token is invalid or expired");
      this.tokens.set(bearer, verified.wallet, verified.expiresAtMs);
      return verified.wallet;
    }
    throw unauthorized(`authentication required: send x-wallet-auth or Authorization: Bearer <token> (see GET /v1/free-tier/info)`);
  }
}

/** One-off authentication without a cache (same answers as Authenticator). */
export async function authenticate(
  headers: Record<string, string | undefined>,
  deps: { tokens: SessionTokens; prefix: string; now: number },
): Promise<string> {
  return new Authenticator(deps.tokens, deps.prefix, 1).authenticate(headers, deps.now);
}
