/**
 * A bench's service as agents meet it, in the bench's process: the HTTP app on a loopback port over
 * a temporary store of its own (the embedded engine, or Redis at REDIS_URL under a fresh key prefix),
 * free calls without end, and a clock the bench sets (stored memories take its time, so a data set's
 * own dates apply). With `recordAccess: false`, recalls count no access: each question sees the
 * store as written.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import type { MemoryStore } from "../../src/domain/store-port.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";

export const MODEL_CACHE_DIR = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));

export interface ClockedServiceOptions {
  engine: string;
  /** names the temporary folder and the Redis key prefix */
  label: string;
  recordAccess?: boolean;
  /** the clock's first value (epoch ms) */
  start?: number;
}

export async function startClockedService(embedder: Embedder, { engine, label, recordAccess = true, start = 0 }: ClockedServiceOptions) {
  const dataDir = mkdtempSync(join(tmpdir(), `engram-${label}-`));
  const store = await openBenchEngine(engine, dataDir, label);
  const config = await withSessionSecret(
    loadConfig({ DATA_DIR: dataDir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1", FREE_TIER_CALLS: "100000000", LOG_LEVEL: "warn" }),
    store,
  );
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const served: MemoryStore = recordAccess ? store : new Proxy(store, { get: (s, p) => (p === "recordAccess" ? async () => {} : Reflect.get(s, p, s)) });
  let clock = start;
  const app = createApp(buildDeps(config, served, embedder, () => clock)).listen({ port: 0, hostname: "127.0.0.1" });
  return {
    url: `http://127.0.0.1:${app.server!.port}`,
    store,
    embedder,
    setClock: (ms: number) => void (clock = ms),
    now: () => clock,
    async stop() {
      await app.stop();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type ClockedService = Awaited<ReturnType<typeof startClockedService>>;

/** `sqlite` in `dir`, or `redis` at REDIS_URL under a key prefix of its own. */
export async function openBenchEngine(engine: string, dir: string, label: string): Promise<MemoryStore> {
  if (engine === "sqlite") return new SqliteStore(dir);
  if (engine !== "redis") throw new Error("--engine must be sqlite or redis");
  if (!process.env.REDIS_URL) throw new Error("--engine redis: set REDIS_URL to a Redis Stack / Redis 8 server");
  const { RedisStore } = await import("../../src/store/redis/redis-store.ts");
  return RedisStore.connect(process.env.REDIS_URL, { keyPrefix: `engram-${label}-${crypto.randomUUID()}:` });
}
