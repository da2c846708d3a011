import type { Config } from "../config";
import type { MemoryStore } from "./port";
import { SqliteStore } from "./sqlite/sqlite-store";

/** The configured engine. */
export async function openStore(config: Pick<Config, "STORE" | "DATA_DIR" | "REDIS_URL">): Promise<MemoryStore> {
  switch (config.STORE) {
    case "sqlite":
      return new SqliteStore(config.DATA_DIR);
    case "redis":
      throw new Error("STORE=redis is not available in this build yet; use STORE=sqlite");
  }
}
