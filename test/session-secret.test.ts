import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEGACY_SECRET_FILE, loadConfig, withSessionSecret, type Config } from "../src/config";
import type { MemoryStore } from "../src/domain/store-port";
import { buildDeps } from "../src/http/deps";
import { createApp } from "../src/http/app";
import { describeEngines } from "./helpers/engines";
import { embedder, MODEL_CACHE_DIR, sendJson, TestWallet } from "./helpers/harness";

/**
 * Without JWT_SECRET the session key lives in the store (MemoryStore.sessionSecret), so every
 * process or replica on one store signs and accepts the same tokens with no configuration.
 * Checked per engine with two handles on one store, as two replicas have.
 */
describeEngines("session key kept in the store", (engine) => {
  let dataDir: string;
  let stores: [MemoryStore, MemoryStore];
  const settings = (env: Record<string, string> = {}) => loadConfig({ DATA_DIR: dataDir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1", ...env });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "engram-session-secret-"));
    stores = await engine.openShared(dataDir);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the first candidate stored is the key; later candidates get it, on either handle", async () => {
    const [a, b] = stores;
    const first = "a".repeat(64);
    expect(await a.sessionSecret(first)).toBe(first);
    expect(await a.sessionSecret("b".repeat(64))).toBe(first);
    expect(await b.sessionSecret("c".repeat(64))).toBe(first);
  });

  test("handles racing with different candidates all end with one of them", async () => {
    const [a, b] = await engine.openShared(mkdtempSync(join(tmpdir(), "engram-session-race-")));
    try {
      const candidates = Array.from({ length: 8 }, (_, i) => String(i).repeat(64));
      const got = await Promise.all(candidates.map((candidate, i) => (i % 2 ? b : a).sessionSecret(candidate)));
      expect(new Set(got).size).toBe(1);
      expect(candidates).toContain(got[0]!);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("two services on one store accept each other's session tokens; JWT_SECRET, when set, is used instead", async () => {
    const emb = await embedder();
    const listen = async (config: Config, store: MemoryStore) => {
      await store.bindEmbeddingModel({ id: emb.modelId, dimension: emb.dimension });
      const app = createApp(buildDeps(config, store, emb)).listen({ port: 0, hostname: "127.0.0.1" });
      return { url: `http://127.0.0.1:${app.server!.port}`, stop: () => app.stop() };
    };
    const [a, b] = stores;
    const one = await listen(await withSessionSecret(settings(), a), a);
    const two = await listen(await withSessionSecret(settings(), b), b);
    const own = await listen(await withSessionSecret(settings({ JWT_SECRET: "x".repeat(40) }), b), b);
    try {
      const wallet = new TestWallet();
      const ts = Math.floor(Date.now() / 1000);
      const signature = await wallet.account.signMessage({ message: `service-auth:${ts}` });
      const session = await sendJson(fetch, `${one.url}/auth/session`, "POST", { address: wallet.address, timestamp: ts, signature }, {});
      expect(session.status).toBe(200);
      const bearer = { authorization: `Bearer ${session.body.token}` };
      const stored = await sendJson(fetch, `${one.url}/v1/store`, "POST", { content: "Replicas share the session key through the store." }, bearer);
      expect(stored.status).toBe(201);
      const onTwo = await sendJson(fetch, `${two.url}/v1/memories/${stored.body.id}`, "GET", undefined, bearer);
      expect(onTwo.status).toBe(200);
      expect(onTwo.body.content).toBe("Replicas share the session key through the store.");
      expect((await sendJson(fetch, `${own.url}/v1/memories`, "GET", undefined, bearer)).status).toBe(401);
    } finally {
      await one.stop();
      await two.stop();
      await own.stop();
    }
  });
});

test("a store without a key adopts the one an earlier version generated into DATA_DIR/jwt-secret", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-session-legacy-"));
  try {
    const legacy = "f".repeat(64);
    writeFileSync(join(dataDir, LEGACY_SECRET_FILE), `${legacy}\n`);
    const kept: string[] = [];
    const store = { sessionSecret: async (candidate: string) => (kept.push(candidate), candidate) };
    const settings = loadConfig({ DATA_DIR: dataDir });
    expect(settings.JWT_SECRET).toBeUndefined();
    expect((await withSessionSecret(settings, store)).JWT_SECRET).toBe(legacy);
    rmSync(join(dataDir, LEGACY_SECRET_FILE));
    const fresh = (await withSessionSecret(settings, store)).JWT_SECRET;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(legacy);
    expect(kept).toEqual([legacy, fresh]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
