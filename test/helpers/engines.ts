import { describe } from "bun:test";
import { createClient } from "redis";
import type { MemoryStore } from "../../src/domain/store-port";
import { sqliteEngine, type EngineCase } from "./harness";

/**
 * The engines the contract suite runs against: always sqlite; redis as well when REDIS_URL
 * points at a reachable server with the search and JSON modules and the redis engine module
 * exists. Otherwise one visible line says why redis was left out.
 */

/** The agreed interface of src/store/redis/redis-store.ts. */
interface RedisStoreModule {
  RedisStore: { connect(url: string, opts: { keyPrefix: string }): Promise<MemoryStore> };
}

// A variable specifier: the module may not exist yet, and the type-check must not depend on it.
const REDIS_STORE_MODULE: string = "../../src/store/redis/redis-store";
const PROBE_TIMEOUT_MS = 2000;

/** The few raw commands the probe and the clean-up need. */
interface RedisClient {
  sendCommand(args: string[]): Promise<unknown>;
  quit(): Promise<unknown>;
}

async function connectProbe(url: string): Promise<RedisClient> {
  const client = createClient({ url, socket: { connectTimeout: PROBE_TIMEOUT_MS, reconnectStrategy: false } });
  client.on("error", () => {}); // reported through the failed command instead
  await client.connect();
  return client as unknown as RedisClient;
}

/** Fails with a readable reason unless the server answers the search and JSON commands. */
async function checkModules(client: RedisClient): Promise<void> {
  try {
    await client.sendCommand(["FT._LIST"]);
  } catch (error) {
    throw new Error(`search module missing (FT._LIST: ${(error as Error).message})`);
  }
  try {
    await client.sendCommand(["JSON.GET", `engram-test-probe:${crypto.randomUUID()}`]);
  } catch (error) {
    throw new Error(`JSON module missing (JSON.GET: ${(error as Error).message})`);
  }
}

/** Removes everything a test store left under its prefix: keys and search indexes. */
export async function dropPrefix(url: string, keyPrefix: string): Promise<void> {
  const client = await connectProbe(url);
  try {
    const indexes = (await client.sendCommand(["FT._LIST"])) as unknown;
    for (const name of Array.isArray(indexes) ? indexes : []) {
      if (typeof name === "string" && name.startsWith(keyPrefix)) await client.sendCommand(["FT.DROPINDEX", name]);
    }
    let cursor = "0";
    do {
      const reply = (await client.sendCommand(["SCAN", cursor, "MATCH", `${keyPrefix}*`, "COUNT", "500"])) as [string, string[]];
      cursor = reply[0];
      if (reply[1].length > 0) await client.sendCommand(["DEL", ...reply[1]]);
    } while (cursor !== "0");
  } finally {
    await client.quit().catch(() => {});
  }
}

async function redisEngine(): Promise<EngineCase | string> {
  const url = process.env.REDIS_URL;
  if (!url) return "REDIS_URL not set";
  let mod: RedisStoreModule;
  try {
    mod = (await import(REDIS_STORE_MODULE)) as RedisStoreModule;
    if (typeof mod.RedisStore?.connect !== "function") return "src/store/redis/redis-store has no RedisStore.connect";
  } catch (error) {
    return `cannot import src/store/redis/redis-store (${(error as Error).message.split("\n")[0]})`;
  }
  try {
    const probe = await connectProbe(url);
    try {
      await checkModules(probe);
    } finally {
      await probe.quit().catch(() => {});
    }
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
      const store = await mod.RedisStore.connect(url, { keyPrefix });
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
