import { SignJWT, jwtVerify } from "jose";

export const SESSION_TTL_SECONDS = 7 * 24 * 3600;
const ISSUER = "engram";

/** HS256 session tokens: `sub` is the lower-cased wallet address. */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(wallet: string, nowMs: number): Promise<{ token: string; expires_at: string }> {
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + SESSION_TTL_SECONDS;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(wallet)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token, expires_at: new Date(exp * 1000).toISOString() };
  }

  /** The wallet a valid token was issued to, or null for a bad, foreign or expired token. */
  async verify(token: string, nowMs: number): Promise<string | null> {
    return (await this.verifyWithExpiry(token, nowMs))?.wallet ?? null;
  }

  /** As verify, with the instant (epoch ms) from which the token is refused: the cache's bound. */
  async verifyWithExpiry(token: string, nowMs: number): Promise<{ wallet: string; expiresAtMs: number } | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        algorithms: ["HS256"],
        currentDate: new Date(nowMs),
        requiredClaims: ["exp"],
      });
      // jose refuses a token once floor(now / 1000) >= exp
      return typeof payload.sub === "string" && typeof payload.exp === "number" ? { wallet: payload.sub, expiresAtMs: payload.exp * 1000 } : null;
    } catch {
      return null;
    }
  }
}
