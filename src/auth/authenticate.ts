import { DomainError } from "../domain/errors";
import type { SessionTokens } from "./session-token";
import { parseWalletHeader, verifyWalletSignature } from "./wallet-signature";

const unauthorized = (message: string) => new DomainError(401, "unauthorized", message);

/**
 * The wallet behind a request: `x-wallet-auth` (a fresh signature) or `Authorization: Bearer`
 * (a session token). Throws 401 with the reason when neither proves a wallet.
 */
export async function authenticate(
  headers: Record<string, string | undefined>,
  deps: { tokens: SessionTokens; prefix: string; now: number },
): Promise<string> {
  const header = headers["x-wallet-auth"];
  if (header) {
    const parsed = parseWalletHeader(header);
    if (!parsed) throw unauthorized("x-wallet-auth must be {address}:{unix_timestamp}:{signature}");
    const check = await verifyWalletSignature(parsed, deps.prefix, deps.now);
    if (!check.ok) throw unauthorized(`x-wallet-auth: ${check.reason}`);
    return check.wallet;
  }
  const bearer = headers["authorization"]?.match(/^Bearer\s+(.+)$/i)?.[1];
  if (bearer) {
    const wallet = await deps.tokens.verify(bearer, deps.now);
    if (!wallet) throw unauthorized("session token is invalid or expired");
    return wallet;
  }
  throw unauthorized(`authentication required: send x-wallet-auth or Authorization: Bearer <token> (see GET /v1/free-tier/info)`);
}
