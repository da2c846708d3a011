import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { loadConfig, withSessionSecret } from "../src/config";
import type { MemoryStore } from "../src/domain/store-port";
import { buildDeps } from "../src/http/deps";
import { createApp } from "../src/http/app";
import { ReplayGuard } from "../src/billing/replay-guard";
import { describeEngines } from "./helpers/engines";
import { TestFacilitator } from "./helpers/facilitator";
import { Client, embedder, MODEL_CACHE_DIR, TestWallet } from "./helpers/harness";

/**
 * The x402 replay guard keeps its claims in the store (MemoryStore.claimPaymentNonce), so the
 * processes on one SQLite file (WORKERS) and the replicas on one Redis all refuse a replayed
 * payment before the facilitator is asked. Checked per engine with two handles on one store, as
 * two processes or replicas have (Redis only when REDIS_URL is set, as the other Redis tests).
 */
describeEngines("payment nonces claimed in the store", (engine) => {
  let dataDir: string;
  let stores: [MemoryStore, MemoryStore];
  const hex = (bytes: number) => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex")}`;
  const newKey = () => ReplayGuard.key({ network: "eip155:8453", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payer: hex(20), nonce: hex(32) });
  const inTenMinutes = () => Date.now() / 1000 + 600;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "engram-replay-guard-"));
    stores = await engine.openShared(dataDir);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("a key claimed through one handle is refused through the other, until it is released", async () => {
    const [one, two] = stores.map((store) => new ReplayGuard(store)) as [ReplayGuard, ReplayGuard];
    const parts = { network: "eip155:8453", asset: "0xAbC0000000000000000000000000000000000001", payer: hex(20), nonce: hex(32) };
    const key = ReplayGuard.key(parts);
    expect(await one.reserve(key, inTenMinutes())).toBe(true);
    expect(await two.reserve(key, inTenMinutes())).toBe(false);
    expect(await one.reserve(key, inTenMinutes())).toBe(false);
    // the key does not depend on the case a client wrote the addresses in
    expect(await two.reserve(ReplayGuard.key({ ...parts, asset: parts.asset.toUpperCase(), payer: parts.payer.toUpperCase() }), inTenMinutes())).toBe(false);
    expect(await two.reserve(newKey(), inTenMinutes())).toBe(true); // another authorization is not affected
    await two.release(key);
    expect(await one.reserve(key, inTenMinutes())).toBe(true);
  });

  test("a claim lapses once its authorization can no longer settle (validBefore plus the grace)", async () => {
    const graceMs = 300;
    const [one, two] = stores.map((store) => new ReplayGuard(store, Date.now, graceMs)) as [ReplayGuard, ReplayGuard];
    const key = newKey();
    const expired = Date.now() / 1000 - 60; // already past validBefore: held for the grace only
    expect(await one.reserve(key, expired)).toBe(true);
    expect(await two.reserve(key, expired)).toBe(false);
    await Bun.sleep(graceMs + 200);
    expect(await two.reserve(key, expired)).toBe(true);
  });

  test("concurrent claims of one key through both handles: exactly one wins", async () => {
    const guards = stores.map((store) => new ReplayGuard(store));
    const key = newKey();
    const won = await Promise.all(Array.from({ length: 16 }, (_, i) => guards[i % 2]!.reserve(key, inTenMinutes())));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  test("two services on one store: a payment replayed to either of them never reaches the facilitator", async () => {
    const facilitator = await TestFacilitator.start();
    const emb = await embedder();
    const env = {
      DATA_DIR: dataDir,
      MODEL_CACHE_DIR,
      PORT: "0",
      HOST: "127.0.0.1",
      FREE_TIER_CALLS: "0",
      PAYMENTS: "on",
      X402_NETWORK: "base-sepolia",
      X402_PAY_TO: "0x2222222222222222222222222222222222222222",
      X402_FACILITATOR_URL: facilitator.url,
    };
    const listen = async (store: MemoryStore) => {
      await store.bindEmbeddingModel({ id: emb.modelId, dimension: emb.dimension });
      const app = createApp(buildDeps(await withSessionSecret(loadConfig(env), store), store, emb)).listen({ port: 0, hostname: "127.0.0.1" });
      return { url: `http://127.0.0.1:${app.server!.port}`, now: Date.now, stop: () => app.stop() };
    };
    const services = [await listen(stores[0]), await listen(stores[1])];
    try {
      const wallet = new TestWallet();
      const [one, two] = services.map((service) => new Client(service, wallet)) as [Client, Client];
      const namespace = `replay-${crypto.randomUUID().slice(0, 8)}`;
      const unpaid = await one.post("/v1/store", { content: "asks for the requirements", namespace });
      expect(unpaid.status).toBe(402);
      const payer = new x402Client();
      registerExactEvmScheme(payer, { signer: wallet.account });
      const payment = { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await payer.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!))) };

      const verifiedBefore = facilitator.calls.verify;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? two : one).request("POST", "/v1/store", { content: `racer ${i} ${crypto.randomUUID()}`, namespace }, payment)),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 402, 402, 402, 402, 402, 402, 402]);
      expect(answers.filter((a) => a.status === 402).map((a) => a.body.error)).toEqual(Array(7).fill("nonce_already_used"));
      expect(facilitator.calls.verify - verifiedBefore).toBe(1);
      expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
      // later, sequentially, on the other service than the one that served it: still refused, still not verified
      const served = answers.findIndex((a) => a.status === 201);
      const replay = await (served % 2 ? one : two).request("POST", "/v1/store", { content: "one more replay", namespace }, payment);
      expect([replay.status, replay.body.error]).toEqual([402, "nonce_already_used"]);
      expect(facilitator.calls.verify - verifiedBefore).toBe(1);
      expect((await one.get(`/v1/memories?namespace=${namespace}`)).body.total).toBe(1);
    } finally {
      for (const service of services) await service.stop();
      await facilitator.stop();
    }
  });
});
