import { availableParallelism } from "node:os";
import type { Config } from "../config";
import type { MemoryStore } from "../domain/store-port";
import { SqliteStore } from "./sqlite/sqlite-store";
import { RedisStore } from "./redis/redis-store";

/** The configured engine. */
export async function openStore(config: Pick<Config, "STORE" | "DATA_DIR" | "REDIS_URL" | "REDIS_WAIT_REPLICAS" | "REDIS_COMMAND_TIMEOUT_MS" | "WORKERS" | "CACHE_MAX_MB">): Promise<MemoryStore> {
  switch (config.STORE) {
    case "sqlite": {
      const maxCachedBytes = config.CACHE_MAX_MB * 2 ** 20;
      // The scan thread (large wallets' vector searches) pays only with a core to spare: with as many
      // service processes as cores its hand-offs are overhead (100k memories, 2 cores, WORKERS=2:
      // 888–897 recalls/s with it, 966–999 without; docs/performance.md › Scan thread).
      const offloadMinRows = availableParallelism() > config.WORKERS ? undefined : Infinity;
      // the budget bounds the process's memory, not only the cache's accounting (rss-watch.ts)
      return new SqliteStore(config.DATA_DIR, { vectorIndex: { maxCachedBytes, offloadMinRows, boundRss: true } });
    }
    case "redis":
      return RedisStore.connect(config.REDIS_URL, { keyPrefix: "engram:", waitReplicas: config.REDIS_WAIT_REPLICAS, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  }
}
