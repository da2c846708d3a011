import { createClient } from "redis";

/**
 * RESP2: the module commands (FT.SEARCH, FT.AGGREGATE, FT.INFO) reply with flat arrays there,
 * which replies.ts parses; RESP3 (node-redis's default) reshapes them per server version.
 */
const newClient = (url: string) => createClient({ url, RESP: 2 });
export type RedisClient = ReturnType<typeof newClient>;

/** The module names MODULE LIST reports for RediSearch and RedisJSON (Redis Stack, Redis Enterprise, Redis 8). */
const SEARCH_NAMES = new Set(["search", "ft", "searchlight"]);
const JSON_NAMES = new Set(["rejson", "redisjson"]);

export async function connectClient(url: string): Promise<RedisClient> {
  const client = newClient(url);
  // node-redis reconnects by itself; without a listener an error event would crash the process.
  client.on("error", (error: Error) => console.error(`[redis] ${error.message}`));
  await client.connect();
  try {
    await requireModules(client);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/** Throws a message naming every missing module; the engine cannot run without both. */
export async function requireModules(client: RedisClient): Promise<void> {
  const loaded = await loadedModules(client);
  const missing: string[] = [];
  if (!loaded.some((name) => SEARCH_NAMES.has(name))) missing.push("search (RediSearch)");
  if (!loaded.some((name) => JSON_NAMES.has(name))) missing.push("ReJSON (RedisJSON)");
  if (missing.length > 0) {
    throw new Error(
      `STORE=redis needs the Redis modules ${missing.join(" and ")}, which the server does not load ` +
        `(it reports: ${loaded.join(", ") || "no modules"}). Use Redis Stack (redis/redis-stack-server) or Redis 8.`,
    );
  }
}

/** Lower-cased module names. Where MODULE LIST is not allowed (managed services, ACLs), probes a command of each module. */
async function loadedModules(client: RedisClient): Promise<string[]> {
  try {
    const reply = (await client.sendCommand(["MODULE", "LIST"])) as unknown[];
    return reply.flatMap((entry) => {
      const fields = entry as unknown[];
      const at = fields.findIndex((f) => String(f) === "name");
      return at >= 0 ? [String(fields[at + 1]).toLowerCase()] : [];
    });
  } catch {
    const found: string[] = [];
    if (await answers(client, ["FT._LIST"])) found.push("search");
    if (await answers(client, ["JSON.TYPE", `engram-probe:${crypto.randomUUID()}`])) found.push("rejson");
    return found;
  }
}

async function answers(client: RedisClient, command: string[]): Promise<boolean> {
  try {
    await client.sendCommand(command);
    return true;
  } catch {
    return false;
  }
}
