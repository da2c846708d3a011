import type { Config } from "../config";
import type { MemoryStore } from "../domain/store-port";
import { SqliteStore } from "./sqlite/sqlite-store";
import { RedisStore } from "./redis/redis-store";

/** The configured engine. */
export async function openStore(config: Pick<Config, "STORE" | "DATA_DIR" | "REDIS_URL">): Promise<MemoryStore> {
  switch (config.STORE) {
    case "sqlite":
      return new SqliteStore(config.DATA_DIR);
    case "redis":
      return RedisStore.connect(config.REDIS_URL, { keyPrefix: "engram:" });
  }
}
