/**
 * Wallet → user ids remembered at most (~170 bytes each, outside the cache's byte budget): as many
 * as the verified credentials (AUTH_CACHE_ENTRIES), so a request whose credential is remembered
 * finds its user id too; a miss costs one lookup in the store.
 */
const WALLET_USERS_KEPT = 10_000;

/**
 * A wallet's user id never changes once the store has set it (every engine creates it once and
 * only reads it after), and every authenticated request asks for it: both engines remember it here
 * instead of asking their database on each request.
 */
export class WalletUsers {
  private readonly known = new Map<string, string>();

  async get(wallet: string, lookUp: (address: string) => string | Promise<string>): Promise<string> {
    const address = wallet.toLowerCase();
    const cached = this.known.get(address);
    if (cached) return cached;
    const userId = await lookUp(address);
    if (this.known.size >= WALLET_USERS_KEPT) this.known.clear();
    this.known.set(address, userId);
    return userId;
  }
}
