import { createClient, createCluster, type RedisClientOptions } from "redis";
import { redisErrors } from "../../metrics/registry";
import { log } from "../../log";
import type { Cluster } from "./cluster";
import { ClusterNodes } from "./cluster";
import { isLoading, LOADING_MAX_MS, requireModules } from "./modules";
import type { Commands, RedisNodes } from "./nodes";
import { COMMAND_TIMEOUT_MS } from "./round-trips";
import { StandaloneNodes } from "./standalone";
import { closedByServer, refusalReason, withReason } from "./refusal";
import { defineTracingHasSubscribers } from "./tracing-channels";

defineTracingHasSubscribers();

/**
 * RESP2: the module commands (FT.SEARCH, FT.AGGREGATE, FT.INFO) reply with flat arrays there,
 * which replies.ts parses; RESP3 (node-redis's default) reshapes them per server version.
 */
const newClient = (url: string, reconnectStrategy: Reconnect) =>
  createClient({ url, RESP: 2, socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy }, disableOfflineQueue: OFFLINE_QUEUE_OFF });
export type RedisClient = ReturnType<typeof newClient>;
type Reconnect = (retries: number, cause: Error) => number | Error;

/** How long start-up waits for a reachable server before giving up with a clear error. */
const FIRST_CONNECT_MS = 30_000;
/** How long one connection attempt (TCP, TLS) may take before it is retried. */
const CONNECT_TIMEOUT_MS = 5000;
/**
 * A command sent while its connection is down fails at once (ClientOfflineError: a 503) instead of
 * waiting in node-redis' queue: the request is answered at once, and a write it was told failed
 * cannot run later, once the connection is back, after the client has retried it.
 */
const OFFLINE_QUEUE_OFF = true;
/** The same connection error is logged at most this often while reconnecting. */
const LOG_EVERY_MS = 10_000;

/**
 * REDIS_URL's seed nodes: one `redis://` (or `rediss://`) URL, or several separated by commas, the
 * seed nodes of a cluster (any reachable one is enough; credentials and TLS come from the first).
 */
export function seedUrls(url: string): string[] {
  return url
    .split(",")
    .map((seed) => seed.trim())
    .filter((seed) => seed.length > 0);
}

/** The URL (or URLs) without its password, for messages. */
export function redactUrl(url: string): string {
  return seedUrls(url).map(redactOne).join(",");
}

function redactOne(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable REDIS_URL)";
  }
}

export interface ConnectOptions {
  /** How long to keep trying to reach a first server (default 30 s). */
  firstConnectMs?: number;
  /**
   * How long a command may wait for its reply before its request fails as StoreUnavailable
   * (REDIS_COMMAND_TIMEOUT_MS, default 2 s; a WAIT gets its own timeout on top).
   */
  commandTimeoutMs?: number;
}

/**
 * Connects to a standalone server or to a cluster, waits while it is loading its dataset, and checks
 * the search and JSON capabilities on every master. One URL that names a cluster node is enough to
 * find the cluster (`INFO cluster`); several URLs are always seeds of one cluster. Once connected,
 * node-redis reconnects on its own for as long as it takes, with capped exponential backoff; commands
 * issued meanwhile fail at once (OFFLINE_QUEUE_OFF), and those sent get a reply within
 * `commandTimeoutMs` or fail (round-trips.ts): either way a 503 for the request.
 */
export async function connectRedis(url: string, opts: ConnectOptions = {}): Promise<RedisNodes> {
  const seeds = seedUrls(url);
  if (seeds.length === 0) throw new Error("REDIS_URL names no server");
  if (seeds.length === 1) {
    const standalone = await connectStandalone(seeds[0]!, opts);
    if (standalone) return standalone;
  }
  return connectCluster(seeds, opts);
}

/** The server at `url`, checked; null when it is a cluster node (the caller then connects to its cluster). */
async function connectStandalone(url: string, opts: ConnectOptions): Promise<RedisNodes | null> {
  const client = await connectClient(url, opts);
  try {
    if (await clusterEnabled(client)) {
      await client.close();
      return null;
    }
    await requireModules(client as unknown as Commands);
    return new StandaloneNodes(client, hostPort(url), opts.commandTimeoutMs ?? COMMAND_TIMEOUT_MS, errorLogger());
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}

/** A standalone connection (retrying for up to 30 s at start-up, then failing with the reason); no capability check. */
export async function connectClient(url: string, opts: ConnectOptions = {}): Promise<RedisClient> {
  const started = Date.now();
  const limit = opts.firstConnectMs ?? FIRST_CONNECT_MS;
  let connected = false;
  /** What the server said when it last closed the connection on us (refusal.ts), asked as that is logged. */
  let refusal: string | undefined;
  const client = newClient(url, (retries, cause) => {
    if (!connected && Date.now() - started > limit) {
      return new Error(`cannot reach Redis at ${redactUrl(url)} after ${limit / 1000} s: ${withReason(cause.message, closedByServer(cause) ? refusal : undefined)}`);
    }
    return backoff(retries);
  });
  client.on("error", errorLogger(async (error) => (refusal = closedByServer(error) ? await refusalReason(url) : undefined)));
  client.on("ready", () => {
    connected = true;
  });
  await client.connect();
  return client;
}

/** Capped exponential backoff with jitter, in ms. */
const backoff = (retries: number, cap = 2000) => Math.min(50 * 2 ** retries, cap) + Math.floor(Math.random() * 100);

/**
 * While a cluster node is unreachable, how often node-redis asks the cluster for its slots again
 * (and so how often it retries the node): a failover is seen within about this long after the
 * replica's promotion. node-redis' default, 5 s after the first reconnection attempt with
 * reconnection attempts up to 2 s apart, learnt of a promotion 5 s after it (scripts/bench/failover.ts:
 * promoted 7.0 s after the kill, first write served 12.0 s after it); the refresh is one CLUSTER
 * SLOTS to a live node.
 */
const TOPOLOGY_REFRESH_MS = 500;

/**
 * Without an error listener an error event would crash the process; repeats are throttled. `explain`,
 * when given, is asked for what the server said (at most as often as an error is logged).
 */
function errorLogger(explain?: (error: Error) => Promise<string | undefined>): (error: Error) => void {
  let last = { message: "", at: 0 };
  return (error: Error) => {
    redisErrors.inc({ kind: "connection" });
    const now = Date.now();
    if (error.message === last.message && now - last.at < LOG_EVERY_MS) return;
    last = { message: error.message, at: now };
    if (!explain) return log.error(`[redis] ${error.message}`);
    void explain(error).then((reason) => log.error(`[redis] ${withReason(error.message, reason)}`));
  };
}

/** Whether the server is a cluster node (`cluster_enabled:1`); INFO answers while the server is loading. */
async function clusterEnabled(client: RedisClient): Promise<boolean> {
  const info = String(await client.sendCommand(["INFO", "cluster"]));
  return /^cluster_enabled:1\s*$/m.test(info);
}

const hostPort = (url: string) => {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || "6379"}`;
};

/**
 * A cluster through node-redis' cluster client (MOVED/ASK, failover and resharding are followed by
 * it: cluster.ts). Discovery is retried while no seed answers (for `firstConnectMs`) or a seed is
 * loading its dataset (up to 10 minutes); then every master is checked.
 */
async function connectCluster(seeds: string[], opts: ConnectOptions): Promise<RedisNodes> {
  const first = new URL(seeds[0]!);
  const timeoutMs = opts.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
  const defaults: Partial<RedisClientOptions> = {
    username: first.username ? decodeURIComponent(first.username) : undefined,
    password: first.password ? decodeURIComponent(first.password) : undefined,
    disableOfflineQueue: OFFLINE_QUEUE_OFF,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => backoff(retries, TOPOLOGY_REFRESH_MS),
      ...(first.protocol === "rediss:" ? { tls: true } : {}),
    } as RedisClientOptions["socket"],
  };
  const cluster = createCluster({
    rootNodes: seeds.map((url) => ({ url })),
    defaults,
    RESP: 2,
    topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
  }) as unknown as Cluster;
  const logError = errorLogger();
  cluster.on("error", logError);
  cluster.on("node-error", logError);
  await discover(cluster, seeds, opts.firstConnectMs ?? FIRST_CONNECT_MS);
  try {
    const nodes = new ClusterNodes(cluster, timeoutMs, logError);
    for (const master of await nodes.masters()) await requireModules(master.commands, { node: master.name });
    return nodes;
  } catch (error) {
    await cluster.close().catch(() => {});
    throw error;
  }
}

async function discover(cluster: Cluster, seeds: string[], firstConnectMs: number): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      await cluster.connect();
      return;
    } catch (error) {
      const waited = Date.now() - started;
      const limit = isLoading(error) ? LOADING_MAX_MS : firstConnectMs;
      if (waited > limit) {
        const reason = (await Promise.all(seeds.map((seed) => refusalReason(seed)))).find(Boolean);
        throw new Error(`cannot reach the Redis cluster at ${redactUrl(seeds.join(","))} after ${Math.round(waited / 1000)} s: ${withReason((error as Error).message, reason)}`);
      }
      await Bun.sleep(backoff(attempt));
    }
  }
}
