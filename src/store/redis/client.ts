import { createClient } from "redis";

/**
 * RESP2: the module commands (FT.SEARCH, FT.AGGREGATE, FT.INFO) reply with flat arrays there,
 * which replies.ts parses; RESP3 (node-redis's default) reshapes them per server version.
 */
const newClient = (url: string, reconnectStrategy: (retries: number, cause: Error) => number | Error) =>
  createClient({ url, RESP: 2, socket: { connectTimeout: 5000, reconnectStrategy } });
export type RedisClient = ReturnType<typeof newClient>;

/** How long start-up waits for a reachable server before giving up with a clear error. */
const FIRST_CONNECT_MS = 30_000;
/** The same connection error is logged at most this often while reconnecting. */
const LOG_EVERY_MS = 10_000;

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable REDIS_URL)";
  }
}

/** The module names MODULE LIST reports for RediSearch and RedisJSON (Redis Stack, Redis Enterprise, Redis 8). */
const SEARCH_NAMES = new Set(["search", "ft", "searchlight"]);
const JSON_NAMES = new Set(["rejson", "redisjson"]);

/**
 * Connects (retrying for up to 30 s at start-up, then failing with the reason), then checks the
 * modules. Once connected, node-redis reconnects on its own for as long as it takes, with
 * capped exponential backoff; commands issued meanwhile wait in its queue.
 */
export async function connectClient(url: string): Promise<RedisClient> {
  const started = Date.now();
  let connected = false;
  const client = newClient(url, (retries, cause) => {
    if (!connected && Date.now() - started > FIRST_CONNECT_MS) {
      return new Error(`cannot reach Redis at ${redactUrl(url)} after ${FIRST_CONNECT_MS / 1000} s: ${cause.message}`);
    }
    return Math.min(50 * 2 ** retries, 2000) + Math.floor(Math.random() * 100);
  });
  // Without an error listener an error event would crash the process; repeats are throttled.
  let last = { message: "", at: 0 };
  client.on("error", (error: Error) => {
    const now = Date.now();
    if (error.message === last.message && now - last.at < LOG_EVERY_MS) return;
    last = { message: error.message, at: now };
    console.error(`[redis] ${error.message}`);
  });
  client.on("ready", () => {
    connected = true;
  });
  await client.connect();
  try {
    await requireModules(client);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/**
 * Oldest module versions with everything the engine uses: RediSearch 2.10 (SCORER BM25STD,
 * HYBRID_POLICY, DIALECT 2 JSON RETURN; ships with Redis Stack 7.4 and Redis 8) and
 * RedisJSON 2.4 (JSON.MGET, NUMINCRBY, legacy paths in scripts).
 */
const MIN_SEARCH = 21000;
const MIN_JSON = 20400;

interface LoadedModule {
  name: string;
  /** null when only a probe showed the module is there */
  version: number | null;
}

/** Throws a message naming every missing or too old module; the engine cannot run without both. */
export async function requireModules(client: RedisClient): Promise<void> {
  const loaded = await loadedModules(client);
  const search = loaded.find((m) => SEARCH_NAMES.has(m.name));
  const json = loaded.find((m) => JSON_NAMES.has(m.name));
  const problems: string[] = [];
  if (!search) problems.push("the search module (RediSearch) is not loaded");
  else if (search.version !== null && search.version < MIN_SEARCH) problems.push(`RediSearch ${versionText(search.version)} is older than ${versionText(MIN_SEARCH)}`);
  if (!json) problems.push("the ReJSON module (RedisJSON) is not loaded");
  else if (json.version !== null && json.version < MIN_JSON) problems.push(`RedisJSON ${versionText(json.version)} is older than ${versionText(MIN_JSON)}`);
  if (problems.length > 0) {
    const reported = loaded.map((m) => (m.version === null ? m.name : `${m.name} ${versionText(m.version)}`)).join(", ") || "no modules";
    throw new Error(
      `STORE=redis cannot use this server: ${problems.join("; ")} (it reports: ${reported}). ` +
        "Use Redis Stack 7.4 or later (redis/redis-stack-server) or Redis 8.",
    );
  }
}

/** 21032 → "2.10.32" */
const versionText = (v: number) => `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`;

/** Lower-cased module names. Where MODULE LIST is not allowed (managed services, ACLs), probes a command of each module. */
async function loadedModules(client: RedisClient): Promise<LoadedModule[]> {
  try {
    const reply = (await client.sendCommand(["MODULE", "LIST"])) as unknown[];
    return reply.flatMap((entry) => {
      const fields = (entry as unknown[]).map(String);
      const name = fields[fields.indexOf("name") + 1];
      const version = Number(fields[fields.indexOf("ver") + 1]);
      return fields.includes("name") && name ? [{ name: name.toLowerCase(), version: Number.isFinite(version) ? version : null }] : [];
    });
  } catch {
    const found: LoadedModule[] = [];
    if (await answers(client, ["FT._LIST"])) found.push({ name: "search", version: null });
    if (await answers(client, ["JSON.TYPE", `engram-probe:${crypto.randomUUID()}`])) found.push({ name: "rejson", version: null });
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
