import { afterAll, describe, expect, test } from "bun:test";
import { newMemory } from "../src/domain/memory";
import { Keys } from "../src/store/redis/keys";
import { KnnPolicy } from "../src/store/redis/knn-policy";
import { RedisStore } from "../src/store/redis/redis-store";
import { connectRaw, dropPrefix, ENGINES } from "./helpers/engines";

/**
 * The KNN policy's index size on a Redis Cluster, against the real coordinator: FT.INFO's num_docs
 * there counts every node's documents, replicas included, so the policy counts the index itself.
 * Needs REDIS_URL naming a cluster node; skipped on one server (the unit tests in
 * redis-query.test.ts cover the arithmetic).
 */
const REDIS_URL = process.env.REDIS_URL;
const REDIS_REACHABLE = ENGINES.some((engine) => engine.name === "redis");
const CLUSTER = REDIS_REACHABLE && (await (async () => {
  const raw = await connectRaw(REDIS_URL!);
  try {
    return raw.cluster;
  } finally {
    await raw.close();
  }
})());

describe.skipIf(!CLUSTER)("redis engine on a cluster: KNN policy estimates", () => {
  const prefix = `engram-test:knn-${crypto.randomUUID().slice(0, 8)}:`;
  const keys = new Keys(prefix);

  afterAll(async () => {
    await dropPrefix(REDIS_URL!, prefix);
  });

  test("a wallet holding 10 of 130 documents is a large share of a master's index: BATCHES", async () => {
    const store = await RedisStore.connect(REDIS_URL!, { keyPrefix: prefix });
    const raw = await connectRaw(REDIS_URL!);
    try {
      await store.bindEmbeddingModel({ id: "knn-policy-test", dimension: 4 });
      const main = crypto.randomUUID();
      const wallets: [string, number][] = [[main, 10], [crypto.randomUUID(), 40], [crypto.randomUUID(), 40], [crypto.randomUUID(), 40]];
      for (const [userId, count] of wallets) {
        await store.insertMemories(
          Array.from({ length: count }, (_, i) => {
            const memory = newMemory({ user_id: userId, content: `knn policy fact ${i}` }, new Date().toISOString());
            return { memory, embedding: Float32Array.from([1, i, 0.5, -1]), content_hash: memory.id };
          }),
        );
      }
      const at = raw.at(keys.slot(main));
      const info = (await at.sendCommand(["FT.INFO", keys.index])) as unknown[];
      const numDocs = Number(info[info.findIndex((f) => String(f) === "num_docs") + 1]);
      const masters = (await raw.masters()).length;
      // 10 / numDocs is what the policy read before: under 10% when replicas are counted
      console.log(`[knn] FT.INFO num_docs ${numDocs} for 130 documents on ${masters} masters`);
      expect(10 / (130 / masters)).toBeGreaterThanOrEqual(0.1); // the wallet is ≥ 10% of a master's mean

      const policy = new KnnPolicy(raw, keys);
      expect(policy.hint(main, {})).toBe(""); // nothing loaded yet: the engine's choice, never a wait
      const deadline = Date.now() + 5000;
      while (policy.hint(main, {}) === "" && Date.now() < deadline) await Bun.sleep(20);
      expect(policy.hint(main, {})).toBe(" HYBRID_POLICY BATCHES");
      expect(policy.hint(main, { tags: ["x"] })).toBe(""); // a selective filter keeps the engine's choice
    } finally {
      await store.close();
      await raw.close();
    }
  });
});
