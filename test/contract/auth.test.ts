import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, TestWallet, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { DAY, expect401, MISSING_ID, raw, storeOne, type Reply } from "../helpers/contract";

/** Every authenticated /v1 route the spec lists or shows; the OpenAPI document must list each, and may add more. */
const KNOWN_ROUTES = [
  "GET /v1/free-tier/status",
  "GET /v1/stats",
  "GET /v1/namespaces",
  "GET /v1/export",
  "GET /v1/memories/core",
  "POST /v1/memories/core",
  "DELETE /v1/memories/core/{id}",
  "POST /v1/store",
  "POST /v1/store/batch",
  "GET /v1/memories",
  "DELETE /v1/memories",
  "PATCH /v1/memories/batch",
  "GET /v1/memories/{id}",
  "PATCH /v1/memories/{id}",
  "DELETE /v1/memories/{id}",
  "GET /v1/memories/{id}/history",
  "POST /v1/memories/{id}/relations",
  "GET /v1/memories/{id}/relations",
  "DELETE /v1/memories/{id}/relations/{relationId}",
  "POST /v1/recall",
  "POST /v1/search",
];

const seconds = (service: TestService) => Math.floor(service.now() / 1000);

describeEngines("auth", (engine) => {
  let service: TestService;
  let alice: Client;
  let aliceMemory: string;
  let routes: string[];

  beforeAll(async () => {
    service = await startService(engine);
    alice = new Client(service);
    aliceMemory = await storeOne(alice, { content: "Alice's team deploys the billing service from the release branch only." });
    const openapi = (await raw(service, "GET", "/swagger/json")).body as { paths: Record<string, Record<string, unknown>> };
    const discovered = Object.entries(openapi.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    routes = [...new Set([...KNOWN_ROUTES, ...discovered.filter((r) => r.split(" ")[1]!.startsWith("/v1/") && r !== "GET /v1/free-tier/info")])];
    expect(discovered).toEqual(expect.arrayContaining(KNOWN_ROUTES));
  });
  afterAll(() => service.stop());

  const withHeader = (value: string, path = "/v1/memories") => raw(service, "GET", path, undefined, { "x-wallet-auth": value });
  const listIds = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);

  test("a valid x-wallet-auth header is accepted and identifies the wallet", async () => {
    const res = await withHeader(await alice.wallet.header(seconds(service)));
    expect(res.status).toBe(200);
    expect(listIds(res)).toEqual([aliceMemory]);
    const status = await raw(service, "GET", "/v1/free-tier/status", undefined, { "x-wallet-auth": await alice.wallet.header(seconds(service)) });
    expect(status.status).toBe(200);
    expect(status.body.wallet.toLowerCase()).toBe(alice.wallet.address.toLowerCase());
  });

  test("a header signed 299 s ago is still accepted", async () => {
    const res = await withHeader(await alice.wallet.header(seconds(service) - 299));
    expect(res.status).toBe(200);
    expect(listIds(res)).toEqual([aliceMemory]);
  });

  test("a signature of another message is rejected with 401", async () => {
    const ts = seconds(service);
    const signedOtherPrefix = await alice.wallet.header(ts, "other-service");
    expect401(await withHeader(signedOtherPrefix));
    // signature of ts-1 presented with ts
    const [address, , signature] = (await alice.wallet.header(ts - 1)).split(":");
    expect401(await withHeader(`${address}:${ts}:${signature}`));
  });

  test("a signature presented for another address is rejected with 401", async () => {
    const mallory = new TestWallet();
    const ts = seconds(service);
    const [, , signature] = (await mallory.header(ts)).split(":");
    const res = await withHeader(`${alice.wallet.address}:${ts}:${signature}`);
    expect401(res);
  });

  test("malformed headers are rejected with 401 and a JSON error", async () => {
    const ts = seconds(service);
    const good = await alice.wallet.header(ts);
    const [address, , signature] = good.split(":");
    const malformed = [
      "garbage",
      `${address}:${ts}`,
      `${address}:${ts}:${signature}:extra`,
      `${address}:not-a-number:${signature}`,
      `${address}::${signature}`,
      `0x1234:${ts}:${signature}`,
      `${address}:${ts}:0xdeadbeef`,
      `${address}:${ts}:${signature!.slice(0, -2)}zz`,
    ];
    for (const value of malformed) expect401(await withHeader(value));
  });

  test("a timestamp 301 s old or 301 s in the future is rejected with 401", async () => {
    const now = service.now() / 1000;
    expect401(await withHeader(await alice.wallet.header(Math.floor(now) - 301)));
    expect401(await withHeader(await alice.wallet.header(Math.ceil(now) + 301)));
  });

  test("the address is case-insensitive: lower- and upper-case forms reach the same data", async () => {
    const ts = seconds(service);
    const [address, , signature] = (await alice.wallet.header(ts)).split(":");
    const lower = await withHeader(`${address!.toLowerCase()}:${ts}:${signature}`);
    const upper = await withHeader(`0x${address!.slice(2).toUpperCase()}:${ts}:${signature}`);
    expect(lower.status).toBe(200);
    expect(upper.status).toBe(200);
    expect(listIds(lower)).toEqual([aliceMemory]);
    expect(listIds(upper)).toEqual([aliceMemory]);
    // a memory stored through the lower-case form is seen through the checksummed form
    const stored = await raw(service, "POST", "/v1/store", { content: "Staging credentials live in the shared 1Password vault." }, { "x-wallet-auth": `${address!.toLowerCase()}:${ts}:${signature}` });
    expect(stored.status).toBe(201);
    const viaChecksum = await alice.get(`/v1/memories/${stored.body.id}`);
    expect(viaChecksum.status).toBe(200);
    expect(viaChecksum.body.content).toBe("Staging credentials live in the shared 1Password vault.");
    expect((await alice.del(`/v1/memories/${stored.body.id}`)).status).toBe(200);
  });

  async function session(wallet: TestWallet, ts = seconds(service), address = wallet.address): Promise<Reply> {
    const signature = await wallet.account.signMessage({ message: `service-auth:${ts}` });
    return raw(service, "POST", "/auth/session", { address, timestamp: ts, signature });
  }

  test("POST /auth/session returns a token, the wallet and an expiry 7 days ahead", async () => {
    const before = service.now();
    const res = await session(alice.wallet);
    expect(res.status).toBe(200);
    expect(typeof res.body.token).toBe("string");
    expect(res.body.token.split(".")).toHaveLength(3); // a JWT
    expect(res.body.wallet.toLowerCase()).toBe(alice.wallet.address.toLowerCase());
    const expires = Date.parse(res.body.expires_at);
    expect(new Date(expires).toISOString()).toBe(res.body.expires_at);
    expect(Math.abs(expires - (before + 7 * DAY))).toBeLessThan(5_000);
  });

  test("a Bearer session token works on /v1 endpoints and reaches the wallet's data", async () => {
    const { token } = (await session(alice.wallet)).body;
    const bearer = { authorization: `Bearer ${token}` };
    const list = await raw(service, "GET", "/v1/memories", undefined, bearer);
    expect(list.status).toBe(200);
    expect(listIds(list)).toEqual([aliceMemory]);
    const got = await raw(service, "GET", `/v1/memories/${aliceMemory}`, undefined, bearer);
    expect(got.status).toBe(200);
    expect(got.body.content).toBe("Alice's team deploys the billing service from the release branch only.");
    const stored = await raw(service, "POST", "/v1/store", { content: "The release branch is cut every second Thursday." }, bearer);
    expect(stored.status).toBe(201);
    const seenByHeader = await alice.get(`/v1/memories/${stored.body.id}`);
    expect(seenByHeader.status).toBe(200);
    const status = await raw(service, "GET", "/v1/free-tier/status", undefined, bearer);
    expect(status.status).toBe(200);
    expect(status.body.wallet.toLowerCase()).toBe(alice.wallet.address.toLowerCase());
    expect((await alice.del(`/v1/memories/${stored.body.id}`)).status).toBe(200);
  });

  test("a session made with the lower-case address reaches the same data", async () => {
    const { token } = (await session(alice.wallet, seconds(service), alice.wallet.address.toLowerCase())).body;
    const list = await raw(service, "GET", "/v1/memories", undefined, { authorization: `Bearer ${token}` });
    expect(list.status).toBe(200);
    expect(listIds(list)).toEqual([aliceMemory]);
  });

  test("a bad or tampered Bearer token is rejected with 401", async () => {
    const { token } = (await session(alice.wallet)).body as { token: string };
    const [header, payload, signature] = token.split(".");
    const flipped = signature!.startsWith("A") ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
    const forgedPayload = Buffer.from(JSON.stringify({ sub: new TestWallet().address.toLowerCase(), iss: "engram", exp: 9_999_999_999 })).toString("base64url");
    for (const bad of ["not-a-jwt", `${header}.${payload}.${flipped}`, `${header}.${forgedPayload}.${signature}`, `${header}.${payload}.`]) {
      expect401(await raw(service, "GET", "/v1/memories", undefined, { authorization: `Bearer ${bad}` }));
    }
  });

  test("/auth/session with a missing field answers 422", async () => {
    const ts = seconds(service);
    const signature = await alice.wallet.account.signMessage({ message: `service-auth:${ts}` });
    const full = { address: alice.wallet.address, timestamp: ts, signature };
    for (const field of ["address", "timestamp", "signature"] as const) {
      const { [field]: _, ...partial } = full;
      const res = await raw(service, "POST", "/auth/session", partial);
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain(field);
    }
    expect((await raw(service, "POST", "/auth/session", {})).status).toBe(422);
  });

  test("/auth/session with a bad signature or an expired/future timestamp answers 401", async () => {
    const ts = seconds(service);
    const other = new TestWallet();
    const otherSignature = await other.account.signMessage({ message: `service-auth:${ts}` });
    expect401(await raw(service, "POST", "/auth/session", { address: alice.wallet.address, timestamp: ts, signature: otherSignature }));
    const wrongMessage = await alice.wallet.account.signMessage({ message: `service-auth:${ts + 1}` });
    expect401(await raw(service, "POST", "/auth/session", { address: alice.wallet.address, timestamp: ts, signature: wrongMessage }));
    expect401(await raw(service, "POST", "/auth/session", { address: alice.wallet.address, timestamp: ts, signature: "0x1234" }));
    expect401(await session(alice.wallet, ts - 301));
    expect401(await session(alice.wallet, Math.ceil(service.now() / 1000) + 301));
  });

  test("every /v1 endpoint except GET /v1/free-tier/info answers 401 without credentials", async () => {
    expect(routes.length).toBeGreaterThanOrEqual(KNOWN_ROUTES.length);
    const failures: string[] = [];
    for (const route of routes) {
      const [method, template] = route.split(" ") as [string, string];
      const path = template.replace(/\{[^}]+\}/g, MISSING_ID);
      const body = method === "GET" ? undefined : {};
      for (const headers of [{}, { "x-wallet-auth": "garbage" }, { authorization: "Bearer nope" }] as Record<string, string>[]) {
        const res = await raw(service, method, path, body, headers);
        if (res.status !== 401 || res.body?.error?.code !== "AUTH_ERROR") failures.push(`${route} ${JSON.stringify(headers)} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
    const info = await raw(service, "GET", "/v1/free-tier/info");
    expect(info.status).toBe(200);
  });

  test("a session token expires after 7 days (401), and a fresh one works again", async () => {
    const { token } = (await session(alice.wallet)).body;
    const bearer = { authorization: `Bearer ${token}` };
    service.advance(7 * DAY - 60_000);
    expect((await raw(service, "GET", "/v1/memories", undefined, bearer)).status).toBe(200);
    service.advance(2 * 60_000);
    expect401(await raw(service, "GET", "/v1/memories", undefined, bearer));
    const fresh = (await session(alice.wallet)).body.token;
    const res = await raw(service, "GET", "/v1/memories", undefined, { authorization: `Bearer ${fresh}` });
    expect(res.status).toBe(200);
    expect(listIds(res)).toEqual([aliceMemory]);
  });
});
