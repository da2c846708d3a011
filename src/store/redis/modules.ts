import { log } from "../../log";
import type { Commands } from "./nodes";

/** The module names MODULE LIST reports for RediSearch and RedisJSON (Redis Stack, Redis Enterprise, Redis 8), for the version check. */
const SEARCH_NAMES = new Set(["search", "ft", "searchlight"]);
const JSON_NAMES = new Set(["rejson", "redisjson"]);

/**
 * Oldest module versions with everything the engine uses: RediSearch 2.10 (SCORER BM25STD,
 * HYBRID_POLICY, DIALECT 2 JSON RETURN; ships with Redis Stack 7.4 and Redis 8) and
 * RedisJSON 2.4 (JSON.MGET, NUMINCRBY, legacy paths in scripts).
 */
const MIN_SEARCH = 21000;
const MIN_JSON = 20400;
/** How long start-up waits for a server that answers LOADING (reading its AOF/RDB) before giving up. */
export const LOADING_MAX_MS = 10 * 60_000;
/** The same waiting message is logged at most this often. */
const LOG_EVERY_MS = 10_000;

export interface LoadingWait {
  loadingMaxMs?: number;
  pollMs?: number;
}

/**
 * Throws a message naming every missing capability or too old module; the engine cannot run
 * without both. Capability is probed with the commands themselves (FT._LIST, JSON.TYPE), not
 * read from module names: Redis 8 builds the query engine and JSON in, a Redis 8 built or
 * configured without them answers "unknown command", and MODULE LIST may be denied (managed
 * services, ACLs). MODULE LIST, when allowed, only adds the version check. Waits first while
 * the server is still loading its dataset (it answers LOADING to everything meanwhile).
 * `node` names the server in messages (a cluster checks every master).
 */
export async function requireModules(client: Commands, opts: LoadingWait & { node?: string } = {}): Promise<void> {
  await untilLoaded(client, opts);
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
      `STORE=redis cannot use ${opts.node ? `the server at ${opts.node}` : "this server"}: ${problems.join("; ")} (MODULE LIST: ${reported}). ` +
        "Use Redis 8 (the official image has the query engine and JSON built in; a Redis 8 built from source needs them " +
        "built and loaded, e.g. with redis-full.conf) or Redis Stack 7.4.",
    );
  }
}

/** 21032 → "2.10.32" */
const versionText = (v: number) => `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`;

export const isLoading = (error: unknown) => error instanceof Error && error.message.startsWith("LOADING");

/** Returns once the server answers PING (not LOADING); other errors are left to the probes. */
export async function untilLoaded(client: Commands, { loadingMaxMs = LOADING_MAX_MS, pollMs = 500 }: LoadingWait = {}): Promise<void> {
  const started = Date.now();
  let logged = 0;
  for (;;) {
    try {
      await client.sendCommand(["PING"]);
      return;
    } catch (error) {
      if (!isLoading(error)) return;
      if (Date.now() - started > loadingMaxMs) throw new Error(`Redis is still loading its dataset after ${Math.round(loadingMaxMs / 1000)} s`);
      if (Date.now() - logged > LOG_EVERY_MS) {
        logged = Date.now();
        log.warn("[redis] the server is loading its dataset; waiting");
      }
      await Bun.sleep(pollMs);
    }
  }
}

/** Lower-cased module names and versions from MODULE LIST; none where it is not allowed. */
async function listedModules(client: Commands): Promise<{ name: string; version: number }[]> {
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

/**
 * null when the command answers, else the error's message. A cluster node redirects a key it does
 * not hold (MOVED/ASK) only after it found the command, so a redirect is an answer too.
 */
async function probe(client: Commands, command: string[]): Promise<string | null> {
  try {
    await client.sendCommand(command);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return /^(MOVED|ASK) /.test(message) ? null : message;
  }
}
