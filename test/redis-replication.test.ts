import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, withSessionSecret } from "../src/config";
import { createApp } from "../src/http/app";
import { buildDeps } from "../src/http/deps";
import { newMemory } from "../src/domain/memory";
import { WriteNotReplicated } from "../src/domain/store-port";
import { Keys } from "../src/store/redis/keys";
import { RedisStore } from "../src/store/redis/redis-store";
import { connectRaw, dropPrefix, ENGINES } from "./helpers/engines";
import { embedder, MODEL_CACHE_DIR, TestWallet } from "./helpers/harness";

/**
 * REDIS_WAIT_REPLICAS: a write is answered only once that many replicas of the master that took it
 * have it; fewer within the timeout is a 503 `not_replicated` (the write stays on the master).
 * Needs REDIS_URL; with replicas (a cluster's masters have them) the passing case runs too.
 */
const REDIS_URL = process.env.REDIS_URL;
const REDIS_REACHABLE = ENGINES.some((engine) => engine.name === "redis");

/** Replicas connected to the master holding `key`. */
async function replicasOf(key: string): Promise<number> {
  const raw = await connectRaw(REDIS_URL!);
  try {
    const info = String(await raw.at(key).sendCommand(["INFO", "replication"]));
    return Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
  } finally {
    await raw.close();
  }
}

/** Whether the server has a replica (a cluster's masters do; a standalone test server usually has none). */
const REPLICATED = REDIS_REACHABLE && (await replicasOf("{probe}")) > 0;
if (REDIS_REACHABLE && !REPLICATED) console.log("[wait] the passing case is skipped: the server at REDIS_URL has no replica");

describe.skipIf(!REDIS_REACHABLE)("redis engine: REDIS_WAIT_REPLICAS", () => {
  const prefix = `engram-test:wait-${crypto.randomUUID().slice(0, 8)}:`;
  const keys = new Keys(prefix);
  const stores: RedisStore[] = [];
  let opened = 0;
  const dir = mkdtempSync(join(tmpdir(), "engram-wait-"));

  /** A store of its own (under the test's prefix), bound to `model`. */
  async function open(waitReplicas: number, model = { id: "wait-test", dimension: 4 }): Promise<RedisStore> {
    const store = await RedisStore.connect(REDIS_URL!, { keyPrefix: `${prefix}${++opened}:`, waitReplicas });
    stores.push(store);
    await store.bindEmbeddingModel(model);
    return store;
  }

  afterAll(async () => {
    for (const store of stores) await store.close();
    await dropPrefix(REDIS_URL!, prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  test("more replicas than the master has: the write is refused with WriteNotReplicated, and is on the master", async () => {
    const store = await open(16);
    const user = crypto.randomUUID();
    const m = newMemory({ user_id: user, content: "waits for replicas" }, new Date().toISOString());
    const wallet = keys.slot(user);
    const have = await replicasOf(wallet);
    const error = await store.insertMemories([{ memory: m, embedding: Float32Array.from([1, 0, 0, 0]), content_hash: m.id }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteNotReplicated);
    expect([(error as WriteNotReplicated).acknowledged, (error as WriteNotReplicated).required]).toEqual([have, 16]);
    expect((await store.getMemories(user, [m.id], Date.now())).map((x) => x.id)).toEqual([m.id]);
  });

  test("through HTTP: 503 not_replicated with the counts, and a message saying the write may exist", async () => {
    const emb = await embedder();
    const store = await open(16, { id: emb.modelId, dimension: emb.dimension });
    const config = await withSessionSecret(loadConfig({ DATA_DIR: dir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1" }), store);
    const app = createApp(buildDeps(config, store, emb));
    const wallet = new TestWallet();
    const res = await app.handle(
      new Request("http://engram.test/v1/store", {
        method: "POST",
        headers: { "content-type": "application/json", "x-wallet-auth": await wallet.header(Math.floor(Date.now() / 1000)) },
        body: JSON.stringify({ content: "an acknowledged write needs its replicas" }),
      }),
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "not_replicated", replicas_required: 16, replicas_acknowledged: expect.any(Number) } });
    expect(body.error.message).toContain("may exist");
  }, 30_000);

  test.skipIf(!REPLICATED)("one replica, which the master has: writes are answered once replicated", async () => {
    const store = await open(1);
    const user = crypto.randomUUID();
    expect(await replicasOf(keys.slot(user))).toBeGreaterThanOrEqual(1);
    const m = newMemory({ user_id: user, content: "replicated" }, new Date().toISOString());
    await store.insertMemories([{ memory: m, embedding: Float32Array.from([0, 1, 0, 0]), content_hash: m.id }]);
    await store.createRelation(user, { id: crypto.randomUUID(), source_id: m.id, target_id: m.id, relation_type: "related_to", metadata: {}, created_at: m.created_at });
    await store.softDelete(user, [m.id], Date.now());
    expect(await store.getMemories(user, [m.id], Date.now())).toEqual([]);
  });
});
