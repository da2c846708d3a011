import { describe, expect, test } from "bun:test";
import { Authenticator } from "../../src/auth/authenticate";
import { BoundedCache } from "../../src/auth/bounded-cache";
import { SessionTokens, SESSION_TTL_SECONDS } from "../../src/auth/session-token";
import { SIGNATURE_TOLERANCE_SECONDS } from "../../src/auth/wallet-signature";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/** A wallet signing `service-auth:{ts}` headers as a client does (the harness's, without the app). */
class TestWallet {
  readonly account = privateKeyToAccount(generatePrivateKey());
  get address(): string {
    return this.account.address;
  }
  async header(ts: number): Promise<string> {
    return `${this.address}:${ts}:${await this.account.signMessage({ message: `service-auth:${ts}` })}`;
  }
}

const tokens = new SessionTokens("x".repeat(40));
const T0 = 1_800_000_000; // unix seconds

async function rejects(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a rejection");
}

describe("BoundedCache", () => {
  test("drops the least recently used entry past its size, and expired entries on read", () => {
    const cache = new BoundedCache<number>(3);
    for (const [i, key] of ["a", "b", "c"].entries()) cache.set(key, i, 1000);
    expect(cache.get("a", 0)).toBe(0); // a is now the most recent
    cache.set("d", 3, 1000);
    expect(cache.size).toBe(3);
    expect(cache.get("b", 0)).toBeUndefined();
    expect([cache.get("a", 0), cache.get("c", 0), cache.get("d", 0)]).toEqual([0, 2, 3]);
    expect(cache.get("a", 999)).toBe(0);
    expect(cache.get("a", 1000)).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});

describe("Authenticator caches verified credentials", () => {
  test("a cached header is refused once its timestamp leaves the window", async () => {
    const wallet = new TestWallet();
    const auth = new Authenticator(tokens, "service-auth");
    const header = await wallet.header(T0);
    const at = (s: number) => (T0 + s) * 1000;
    expect(await auth.authenticate({ "x-wallet-auth": header }, at(0))).toBe(wallet.address.toLowerCase());
    expect(auth.cached.headers).toBe(1);
    expect(await auth.authenticate({ "x-wallet-auth": header }, at(SIGNATURE_TOLERANCE_SECONDS))).toBe(wallet.address.toLowerCase());
    expect(await rejects(auth.authenticate({ "x-wallet-auth": header }, at(SIGNATURE_TOLERANCE_SECONDS) + 1))).toContain("300 s away");
    // and stays refused (the entry is gone, a fresh check fails the same way)
    expect(await rejects(auth.authenticate({ "x-wallet-auth": header }, at(SIGNATURE_TOLERANCE_SECONDS + 60)))).toContain("300 s away");
  });

  test("a tampered header is refused even while the genuine one is cached", async () => {
    const wallet = new TestWallet();
    const other = new TestWallet();
    const auth = new Authenticator(tokens, "service-auth");
    const header = await wallet.header(T0);
    await auth.authenticate({ "x-wallet-auth": header }, T0 * 1000);
    const [address, ts, signature] = header.split(":") as [string, string, string];
    const flipped = signature.slice(0, 20) + (signature[20] === "a" ? "b" : "a") + signature.slice(21);
    for (const tampered of [
      `${other.address}:${ts}:${signature}`, // someone else's address with this signature
      `${address}:${Number(ts) + 1}:${signature}`, // another timestamp
      `${address}:${ts}:${flipped}`, // a changed signature
    ]) {
      expect(await rejects(auth.authenticate({ "x-wallet-auth": tampered }, T0 * 1000))).toMatch(/x-wallet-auth/);
    }
    expect(auth.cached.headers).toBe(1);
  });

  test("the header cache holds at most its size", async () => {
    const wallet = new TestWallet();
    const auth = new Authenticator(tokens, "service-auth", 4);
    for (let i = 0; i < 10; i++) await auth.authenticate({ "x-wallet-auth": await wallet.header(T0 + i) }, (T0 + 10) * 1000);
    expect(auth.cached.headers).toBe(4);
    // an evicted header is verified again, and still accepted
    expect(await auth.authenticate({ "x-wallet-auth": await wallet.header(T0) }, (T0 + 10) * 1000)).toBe(wallet.address.toLowerCase());
  });

  test("session tokens: cached until their expiry, bounded, tampered ones refused", async () => {
    const auth = new Authenticator(tokens, "service-auth", 3);
    const issuedAt = T0 * 1000;
    const { token } = await tokens.issue("0xabc", issuedAt);
    expect(await auth.authenticate({ authorization: `Bearer ${token}` }, issuedAt)).toBe("0xabc");
    const expiry = (T0 + SESSION_TTL_SECONDS) * 1000;
    expect(await auth.authenticate({ authorization: `Bearer ${token}` }, expiry - 1)).toBe("0xabc");
    expect(await rejects(auth.authenticate({ authorization: `Bearer ${token}` }, expiry))).toContain("expired");
    const fresh = (await tokens.issue("0xabc", issuedAt)).token;
    await auth.authenticate({ authorization: `Bearer ${fresh}` }, issuedAt);
    const tampered = fresh.slice(0, -3) + (fresh.endsWith("AAA") ? "BBB" : "AAA");
    expect(await rejects(auth.authenticate({ authorization: `Bearer ${tampered}` }, issuedAt))).toContain("invalid");
    const foreign = (await new SessionTokens("y".repeat(40)).issue("0xabc", issuedAt)).token;
    expect(await rejects(auth.authenticate({ authorization: `Bearer ${foreign}` }, issuedAt))).toContain("invalid");
    for (let i = 1; i <= 5; i++) await auth.authenticate({ authorization: `Bearer ${(await tokens.issue(`0x${i}`, issuedAt + i * 1000)).token}` }, issuedAt);
    expect(auth.cached.tokens).toBe(3);
  });
});
