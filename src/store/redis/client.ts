import { createClient } from "redis";
import { redisErrors, redisRoundTrips } from "../../metrics/registry";
import { log } from "../../log";

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

/** The module names MODULE LIST reports for RediSearch and RedisJSON (Redis Stack, Redis Enterprise, Redis 8), for the version check. */
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
    redisErrors.inc({ kind: "connection" });
    const now = Date.now();
    if (error.message === last.message && now - last.at < LOG_EVERY_MS) return;
    last = { message: error.message, at: now };
    log.error(`[redis] ${error.message}`);
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
  return countedClient(client);
}

/** Counts a round trip of `kind`, and its failure. */
function roundTrip<T>(kind: "command" | "pipeline" | "transaction", reply: Promise<T>): Promise<T> {
  redisRoundTrips.inc({ kind });
  return reply.catch((error: unknown) => {
    redisErrors.inc({ kind: "command" });
    throw error;
  });
}

/**
 * The client with every round trip counted for the metrics: a command (sendCommand, which every
 * call of the engine goes through), a pipeline (execAsPipeline) or a transaction (exec) is one.
 */
export function countedClient(client: RedisClient): RedisClient {
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "sendCommand") return (...args: unknown[]) => roundTrip("command", value.apply(target, args));
      if (property === "multi") return (...args: unknown[]) => countedMulti(value.apply(target, args));
      return value.bind(target);
    },
  });
}

/** A MULTI builder whose exec and execAsPipeline are counted; chained calls keep answering the counted builder. */
function countedMulti<M extends object>(multi: M): M {
  const proxy: M = new Proxy(multi, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "exec") return (...args: unknown[]) => roundTrip("transaction", value.apply(target, args));
      if (property === "execAsPipeline") return (...args: unknown[]) => roundTrip("pipeline", value.apply(target, args));
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result === target ? proxy : result;
      };
    },
  });
  return proxy;
}

/**
 * Oldest module versions with everything the engine uses: RediSearch 2.10 (SCORER BM25STD,
 * HYBRID_POLICY, DIALECT 2 JSON RETURN; ships with Redis Stack 7.4 and Redis 8) and
 * RedisJSON 2.4 (JSON.MGET, NUMINCRBY, legacy paths in scripts).
 */
const MIN_SEARCH = 21000;
const MIN_JSON = 20400;
/** How long start-up waits for a server that answers LOADING (reading its AOF/RDB) before giving up. */
const LOADING_MAX_MS = 10 * 60_000;

/**
 * Throws a message naming every missing capability or too old module; the engine cannot run
 * without both. Capability is probed with the commands themselves (FT._LIST, JSON.TYPE), not
 * read from module names: Redis 8 builds the query engine and JSON in, a Redis 8 built or
 * configured without them answers "unknown command", and MODULE LIST may be denied (managed
 * services, ACLs). MODULE LIST, when allowed, only adds the version check. Waits first while
 * the server is still loading its dataset (it answers LOADING to everything meanwhile).
 */
export async function requireModules(client: RedisClient, opts: { loadingMaxMs?: number; pollMs?: number } = {}): Promise<void> {
  await untilLoaded(client, opts.loadingMaxMs ?? LOADING_MAX_MS, opts.pollMs ?? 500);
  const search = await probe(client, ["FT._LIST"]);
  const json = await probe(client, ["JSON.TYPE", `engram-probe:${crypto.randomUUID()}`]);
  const loaded = await listedModules(client);
  const searchModule = loaded.find((m) => SEARCH_NAMES.has(m.name));
  const jsonModule = loaded.find((m) => JSON_NAMES.has(m.name));
  const problems: string[] = [];
  if (search !== null) problems.push(`no query engine (RediSearch): FT._LIST answered "${search}"`);
  else if (searchModule && searchModule.version < MIN_SEARCH) problems.push(`RediSearch ${versionText(searchModule.version)} is older than ${versionText(MIN_SEARCH)}`);
  if (json !== null) problems.push(`no JSON (RedisJSON): JSON.TYPE answered "${json}"`);
  else if (jsonModule && jsonModule.version < MIN_JSON) problems.push(`RedisJSON ${versionText(jsonModule.version)} is older than ${versionText(MIN_JSON)}`);
  if (problems.length > 0) {
    const reported = loaded.map((m) => `${m.name} ${versionText(m.version)}`).join(", ") || "no modules (or MODULE LIST not allowed)";
    throw new Error(
      `STORE=redis cannot use this server: ${problems.join("; ")} (MODULE LIST: ${reported}). ` +
        "Use Redis 8 (the official image has the query engine and JSON built in; a Redis 8 built from source needs them " +
        "built and loaded, e.g. with redis-full.conf) or Redis Stack 7.4.",
    );
  }
}

/** 21032 → "2.10.32" */
const versionText = (v: number) => `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`;

const isLoading = (error: unknown) => error instanceof Error && error.message.startsWith("LOADING");

/** Returns once the server answers PING (not LOADING); other errors are left to the probes. */
async function untilLoaded(client: RedisClient, maxMs: number, pollMs: number): Promise<void> {
  const started = Date.now();
  let logged = 0;
  for (;;) {
    try {
      await client.sendCommand(["PING"]);
      return;
    } catch (error) {
      if (!isLoading(error)) return;
      if (Date.now() - started > maxMs) throw new Error(`Redis is still loading its dataset after ${Math.round(maxMs / 1000)} s`);
      if (Date.now() - logged > LOG_EVERY_MS) {
        logged = Date.now();
        log.warn("[redis] the server is loading its dataset; waiting");
      }
      await Bun.sleep(pollMs);
    }
  }
}

/** Lower-cased module names and versions from MODULE LIST; none where it is not allowed. */
async function listedModules(client: RedisClient): Promise<{ name: string; version: number }[]> {
  try {
    const reply = (await client.sendCommand(["MODULE", "LIST"])) as unknown[];
    return reply.flatMap((entry) => {
      const fields = (entry as unknown[]).map(String);
      const name = fields[fields.indexOf("name") + 1];
      const version = Number(fields[fields.indexOf("ver") + 1]);
      return fields.includes("name") && name && Number.isFinite(version) ? [{ name: name.toLowerCase(), version }] : [];
    });
  } catch {
    return [];
  }
}

/** null when the command answers, else the error's message. */
async function probe(client: RedisClient, command: string[]): Promise<string | null> {
  try {
    await client.sendCommand(command);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
