import { describe } from "bun:test";
import type { MemoryStore } from "../../src/domain/store-port";
import { connectRedis } from "../../src/store/redis/client";
import type { RedisNodes } from "../../src/store/redis/nodes";
import { RedisStore } from "../../src/store/redis/redis-store";
import { sqliteEngine, type EngineCase } from "./harness";

/**
 * The engines the contract suite runs against: always sqlite; redis as well when REDIS_URL
 * points at a reachable server (or cluster) with the search and JSON modules. Otherwise one
 * visible line says why redis was left out.
 */

const PROBE_TIMEOUT_MS = 2000;

/** A connection for tests' raw commands: a server, or every master of a cluster; fails with the reason (unreachable, modules missing). */
export function connectRaw(url: string): Promise<RedisNodes> {
  return connectRedis(url, { firstConnectMs: PROBE_TIMEOUT_MS });
}

/** Removes everything a test store left under its prefix, on every master: keys and search indexes. */
export async function dropPrefix(url: string, keyPrefix: string): Promise<void> {
  const nodes = await connectRaw(url);
  try {
    for (const { commands } of await nodes.masters()) {
      const indexes = (await commands.sendCommand(["FT._LIST"])) as unknown;
      for (const name of Array.isArray(indexes) ? indexes : []) {
        if (typeof name === "string" && name.startsWith(keyPrefix)) await commands.sendCommand(["FT.DROPINDEX", name]);
      }
      let cursor = "0";
      do {
        const reply = (await commands.sendCommand(["SCAN", cursor, "MATCH", `${keyPrefix}*`, "COUNT", "500"])) as [string, string[]];
        cursor = reply[0];
        // one key per command: on a cluster a multi-key DEL must stay in one slot
        await Promise.all(reply[1].map((key) => commands.sendCommand(["UNLINK", key])));
      } while (cursor !== "0");
    }
  } finally {
    await nodes.close().catch(() => {});
  }
}

async function redisEngine(): Promise<EngineCase | string> {
  const url = process.env.REDIS_URL;
  if (!url) return "REDIS_URL not set";
  try {
    await (await connectRaw(url)).close();
  } catch (error) {
    return `${url} not usable: ${(error as Error).message}`;
  }
  // One prefix per store, so test files (and runs) never see each other's keys; the last handle
  // closed removes what they left.
  const openHandles = async (count: number): Promise<MemoryStore[]> => {
    const keyPrefix = `engram-test:${crypto.randomUUID().slice(0, 8)}:`;
    let open = count;
    const handles: MemoryStore[] = [];
    for (let i = 0; i < count; i++) {
      const store = await RedisStore.connect(url, { keyPrefix });
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        if (--open === 0) await dropPrefix(url, keyPrefix).catch(() => {});
      };
      handles.push(store);
    }
    return handles;
  };
  return {
    name: "redis",
    open: async () => (await openHandles(1))[0]!,
    openShared: async () => (await openHandles(2)) as [MemoryStore, MemoryStore],
  };
}

const flag = globalThis as { __engramRedisNotice?: boolean };

async function resolveEngines(): Promise<EngineCase[]> {
  const redis = await redisEngine();
  if (typeof redis !== "string") return [sqliteEngine, redis];
  if (!flag.__engramRedisNotice) {
    flag.__engramRedisNotice = true;
    console.log(`[contract] redis engine skipped: ${redis}`);
  }
  return [sqliteEngine];
}

export const ENGINES: EngineCase[] = await resolveEngines();

/** `describe(name [engine])` once per engine under test. */
export function describeEngines(name: string, fn: (engine: EngineCase) => void): void {
  for (const engine of ENGINES) describe(`${name} [${engine.name}]`, () => fn(engine));
}
