/**
 * Master failover on Redis Cluster under write load, through the HTTP API as a user runs engram.
 *
 *   source the Redis build's paths (REDIS_SERVER, SEARCH_MODULE, JSON_MODULE; REDIS_CLI optional), then
 *   bun scripts/bench/failover.ts [--modes 0,1] [--clients 8] [--wallets 6] [--before-ms 5000]
 *                                 [--restart-ms 10000] [--after-ms 30000] [--cluster-port 7201]
 *                                 [--cluster-dir DIR] [--use-cluster] [--keep-logs DIR]
 *
 * For each REDIS_WAIT_REPLICAS value in --modes (0 = unset): a fresh 3-master, 3-replica cluster
 * (scripts/redis-cluster.sh, 6 ports from --cluster-port, in a new folder under --cluster-dir; with
 * --use-cluster the cluster already running from --cluster-dir/--cluster-port is used and left
 * running), engram started as a user starts it (`bun scripts/start.ts`, STORE=redis, REDIS_URL = the
 * first node, a free port on 127.0.0.1), --wallets wallets with session tokens (at least one on
 * every master), --clients concurrent clients each sending `POST /v1/store` of unique content, round
 * robin over the wallets. After --before-ms the master holding the first wallet's slot (the target)
 * is killed with SIGKILL (its PID from the cluster folder); the load goes on. --restart-ms after the
 * kill the killed node is started again (it rejoins as a replica of the promoted one;
 * `--restart-ms=-1` leaves it down); the load stops --after-ms after the kill. Then, with the cluster settled,
 * every acknowledged write (201 with its id) is looked for in its wallet's export, and any missing
 * one with `GET /v1/memories/:id`.
 *
 * Prints progress to stderr, then markdown tables on stdout: per mode the acknowledged and lost
 * writes, when the cluster flagged the master failed and promoted its replica (a surviving master's
 * CLUSTER NODES, polled every 100 ms), the time from the kill (and from the restart) to the target
 * wallet's first successful write sent after it, the failures by status and `details.reason`, any
 * other 5xx or non-JSON error; and what engram logged as the cause of each 503 (the Redis client's
 * error, first words). --keep-logs copies engram's log (JSON lines) and the nodes' logs of each
 * mode into DIR. Exits 1 if a 5xx other than 503 or a non-JSON error was seen, or an acknowledged
 * write was lost with REDIS_WAIT_REPLICAS ≥ 1.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import calculateSlot from "cluster-key-slot";
import { Keys } from "../../src/store/redis/keys.ts";
import { sessionFor } from "../durability-child.ts";
import { printTable, sentence } from "./bench-util.ts";

const ROOT = resolve(import.meta.dir, "../..");
const { values: args } = parseArgs({
  options: {
    modes: { type: "string", default: "0,1" },
    clients: { type: "string", default: "8" },
    wallets: { type: "string", default: "6" },
    "before-ms": { type: "string", default: "5000" },
    "restart-ms": { type: "string", default: "10000" },
    "after-ms": { type: "string", default: "30000" },
    "cluster-port": { type: "string", default: "7201" },
    "cluster-dir": { type: "string", default: tmpdir() },
    "use-cluster": { type: "boolean", default: false },
    "keep-logs": { type: "string" },
  },
});
const MODES = args.modes.split(",").map(Number);
const CLIENTS = Number(args.clients);
const WALLETS = Number(args.wallets);
const BEFORE_MS = Number(args["before-ms"]);
const RESTART_MS = Number(args["restart-ms"]);
const AFTER_MS = Number(args["after-ms"]);
const CLUSTER_PORT = Number(args["cluster-port"]);
if (args["use-cluster"] && !process.argv.includes("--cluster-dir")) throw new Error("--use-cluster needs --cluster-dir: the folder scripts/redis-cluster.sh started the cluster in (its PID files)");
const REQUEST_TIMEOUT_MS = 60_000;
const KEYS = new Keys("engram:"); // the prefix engram runs with

const REDIS_SERVER = process.env.REDIS_SERVER;
if (!REDIS_SERVER) throw new Error("set REDIS_SERVER (and SEARCH_MODULE, JSON_MODULE) to the Redis build scripts/redis-cluster.sh starts");
const REDIS_CLI = process.env.REDIS_CLI ?? join(dirname(REDIS_SERVER), "redis-cli");
const progress = (message: string) => console.error(`[failover] ${message}`);

// ── the cluster ─────────────────────────────────────────────────────────────────────────────────

interface ClusterNode {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  masterId: string;
  slots: [number, number][];
}

function cli(port: number, ...command: string[]): string {
  const run = Bun.spawnSync([REDIS_CLI, "-h", "127.0.0.1", "-p", String(port), "-c", ...command]);
  return run.stdout.toString().trim();
}

async function cliAsync(port: number, ...command: string[]): Promise<string> {
  const run = Bun.spawn([REDIS_CLI, "-h", "127.0.0.1", "-p", String(port), ...command], { stdout: "pipe", stderr: "ignore" });
  return (await new Response(run.stdout).text()).trim();
}

/**
 * From the kill on, asks a surviving master every 100 ms how it sees the killed one: when it is
 * flagged `fail` (FAIL: the cluster agreed it is down) and when another node serves its slot.
 */
function watchFailover(victim: number, slot: number, from: number, done: () => boolean) {
  const seen: { failedAt?: number; promotedAt?: number } = {};
  const observer = clusterNodes().find((n) => n.master && n.port !== victim)!.port;
  const watching = (async () => {
    while (!done() && seen.promotedAt === undefined) {
      const nodes = parseNodes(await cliAsync(observer, "CLUSTER", "NODES"));
      const now = performance.now();
      if (nodes.some((n) => n.port === victim && n.failed)) seen.failedAt ??= now - from;
      if (nodes.some((n) => n.port !== victim && n.master && !n.failed && holds(n, slot))) seen.promotedAt ??= now - from;
      await Bun.sleep(100);
    }
  })();
  return { seen, watching };
}

function clusterScript(dir: string, action: "start" | "stop"): void {
  const run = Bun.spawnSync(["bash", join(ROOT, "scripts/redis-cluster.sh"), action], {
    env: { ...process.env, CLUSTER_DIR: dir, CLUSTER_PORT: String(CLUSTER_PORT), REDIS_CLI },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (run.exitCode !== 0) throw new Error(`redis-cluster.sh ${action} failed: ${run.stderr.toString()}${run.stdout.toString()}`);
}

const ports = () => Array.from({ length: 6 }, (_, i) => CLUSTER_PORT + i);

/** CLUSTER NODES as seen by the first node that answers. */
function clusterNodes(): ClusterNode[] {
  for (const port of ports()) {
    const text = cli(port, "CLUSTER", "NODES");
    if (text.includes("master")) return parseNodes(text);
  }
  throw new Error(`no node of the cluster on ports ${CLUSTER_PORT}-${CLUSTER_PORT + 5} answers CLUSTER NODES`);
}

function parseNodes(text: string): ClusterNode[] {
  return text.split("\n").map((line) => {
    const [id, addr, flags, masterId, , , , , ...slots] = line.split(" ");
    const flagList = (flags ?? "").split(",");
    return {
      id: id!,
      port: Number(/:(\d+)@/.exec(addr ?? "")?.[1]),
      master: flagList.includes("master"),
      failed: flagList.includes("fail") || flagList.includes("noaddr"),
      masterId: masterId!,
      slots: slots.filter((s) => /^\d/.test(s)).map((s) => s.split("-").map(Number) as [number, number]).map(([lo, hi]) => [lo!, hi ?? lo!]),
    };
  });
}

const holds = (node: ClusterNode, slot: number) => node.slots.some(([lo, hi]) => slot >= lo && slot <= hi);

function masterOfSlot(nodes: ClusterNode[], slot: number): ClusterNode {
  const master = nodes.find((n) => n.master && !n.failed && holds(n, slot));
  if (!master) throw new Error(`no live master holds slot ${slot}`);
  return master;
}

const clusterOk = () => ports().every((port) => !cli(port, "PING").includes("PONG") || cli(port, "CLUSTER", "INFO").includes("cluster_state:ok"));

async function until(what: string, probe: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await Bun.sleep(250);
  }
}

// ── engram ──────────────────────────────────────────────────────────────────────────────────────

function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

async function startEngram(dataDir: string, waitReplicas: number, logFile: string) {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    STORE: "redis",
    REDIS_URL: `redis://127.0.0.1:${CLUSTER_PORT}`,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    FREE_TIER_CALLS: "100000000",
    LOG_FORMAT: "json",
  };
  if (waitReplicas > 0) env.REDIS_WAIT_REPLICAS = String(waitReplicas);
  else delete env.REDIS_WAIT_REPLICAS;
  const child = Bun.spawn(["bun", "scripts/start.ts"], { cwd: ROOT, env, stdout: "ignore", stderr: Bun.file(logFile) });
  const started = Date.now();
  for (;;) {
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) break;
    if (child.exitCode !== null) throw new Error(`engram exited with ${child.exitCode} before it was healthy; see ${logFile}`);
    if (Date.now() - started > 120_000) throw new Error(`engram did not become healthy in 120 s; see ${logFile}`);
    await Bun.sleep(50);
  }
  return { url, stop: async () => (child.kill("SIGTERM"), await child.exited) };
}

// ── the load ────────────────────────────────────────────────────────────────────────────────────

interface Wallet {
  address: string;
  /** the slot of the wallet's own keys */
  slot: number;
  headers: Record<string, string>;
  /** the master holding the wallet's own slot, and the one holding its wallet record */
  port: number;
  recordPort: number;
}

interface Outcome {
  wallet: number;
  sent: number;
  done: number;
  status: number; // 0: no HTTP answer (connection error or timeout)
  reason: string; // details.reason, error.code, or the fetch error
  id?: string;
  json: boolean;
}

async function store(url: string, wallet: Wallet, w: number, n: number): Promise<Outcome> {
  const sent = performance.now();
  const content = `${sentence(n)} [failover ${crypto.randomUUID()}]`;
  try {
    const res = await fetch(`${url}/v1/store`, {
      method: "POST",
      headers: wallet.headers,
      body: JSON.stringify({ content, namespace: "failover" }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let body: { id?: string; error?: { code?: string; details?: { reason?: string } } } | undefined;
    try {
      body = JSON.parse(text);
    } catch {}
    const reason = body?.error?.details?.reason ?? body?.error?.code ?? (res.ok ? "" : "(no JSON error)");
    return { wallet: w, sent, done: performance.now(), status: res.status, reason, id: res.status === 201 ? body?.id : undefined, json: body !== undefined };
  } catch (error) {
    return { wallet: w, sent, done: performance.now(), status: 0, reason: (error as Error).name, json: false };
  }
}

/** Wallets until every master holds at least one wallet's slot and there are at least `count`. */
async function makeWallets(url: string, count: number): Promise<Wallet[]> {
  const wallets: Wallet[] = [];
  const masters = new Set(clusterNodes().filter((n) => n.master).map((n) => n.port));
  const covered = () => new Set(wallets.map((w) => w.port));
  while (wallets.length < count || (covered().size < masters.size && wallets.length < 60)) {
    const { wallet: address, headers } = await sessionFor(url);
    const res = await fetch(`${url}/v1/stats`, { headers }); // creates the wallet record (its user id)
    if (!res.ok) throw new Error(`GET /v1/stats → ${res.status} ${await res.text()}`);
    const recordKey = KEYS.wallet(address);
    const userId = cli(CLUSTER_PORT, "HGET", recordKey, "user_id");
    const nodes = clusterNodes();
    const slot = calculateSlot(KEYS.slot(userId));
    wallets.push({ address, headers, slot, port: masterOfSlot(nodes, calculateSlot(KEYS.slot(userId))).port, recordPort: masterOfSlot(nodes, calculateSlot(recordKey)).port });
  }
  return wallets;
}

// ── one mode ────────────────────────────────────────────────────────────────────────────────────

interface ModeResult {
  mode: number;
  outcomes: Outcome[];
  wallets: Wallet[];
  target: number;
  killAt: number;
  restartAt?: number;
  lost: number;
  lostIds: string[];
  causes: Map<string, number>;
  /** ms after the kill */
  failedAt?: number;
  promotedAt?: number;
}

async function runMode(waitReplicas: number): Promise<ModeResult> {
  const clusterDir = args["use-cluster"] ? args["cluster-dir"] : mkdtempSync(join(args["cluster-dir"], "engram-failover-cluster-"));
  const dataDir = mkdtempSync(join(tmpdir(), "engram-failover-data-"));
  const logFile = join(dataDir, "engram.log");
  let engram: Awaited<ReturnType<typeof startEngram>> | undefined;
  try {
    if (!args["use-cluster"]) {
      const taken = ports().filter((port) => cli(port, "PING").includes("PONG"));
      if (taken.length) throw new Error(`ports ${taken.join(", ")} already answer: choose free ones with --cluster-port, or --use-cluster for a cluster of yours`);
      progress(`REDIS_WAIT_REPLICAS=${waitReplicas}: starting a fresh cluster on ports ${CLUSTER_PORT}-${CLUSTER_PORT + 5} in ${clusterDir}`);
      clusterScript(clusterDir, "start");
    }
    await until("cluster_state:ok", clusterOk);
    engram = await startEngram(dataDir, waitReplicas, logFile);
    progress(`engram at ${engram.url}; making ${WALLETS}+ wallets`);
    const wallets = await makeWallets(engram.url, WALLETS);
    const nodes = clusterNodes();
    // the target: a wallet whose master has a live replica to promote
    const target = wallets.findIndex((w) => nodes.some((n) => !n.master && !n.failed && n.masterId === nodes.find((m) => m.port === w.port)?.id));
    if (target < 0) throw new Error("no wallet's master has a live replica: start a fresh cluster (drop --use-cluster)");
    const victim = wallets[target]!.port;
    const pid = Number(readFileSync(join(clusterDir, String(victim), "redis.pid"), "utf8"));
    progress(`wallets by master: ${wallets.map((w) => `${w.port}(record ${w.recordPort})`).join(" ")}; target wallet ${target} on ${victim} (PID ${pid})`);

    const outcomes: Outcome[] = [];
    let stop = false;
    let n = 0;
    const client = async (c: number) => {
      for (let i = c; !stop; i += CLIENTS) {
        const w = i % wallets.length;
        outcomes.push(await store(engram!.url, wallets[w]!, w, n++));
      }
    };
    const t0 = performance.now();
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    const ticker = setInterval(() => {
      const recent = outcomes.filter((o) => o.done > performance.now() - 1000);
      const failed = recent.filter((o) => o.status !== 201);
      progress(`t=${((performance.now() - t0) / 1000).toFixed(0)} s: ${recent.length - failed.length} acked, ${failed.length} failed in the last second ${failed.length ? `(${tally(failed.map(label))})` : ""}`);
    }, 1000);

    await Bun.sleep(BEFORE_MS);
    process.kill(pid, "SIGKILL");
    const killAt = performance.now();
    const failover = watchFailover(victim, wallets[target]!.slot, killAt, () => stop);
    progress(`killed master ${victim} (PID ${pid}) with SIGKILL at ${new Date().toISOString()}`);
    let restartAt: number | undefined;
    if (RESTART_MS >= 0) {
      await Bun.sleep(RESTART_MS);
      const run = Bun.spawnSync([REDIS_SERVER!, join(clusterDir, String(victim), "redis.conf")]);
      if (run.exitCode !== 0) throw new Error(`restarting node ${victim} failed: ${run.stderr.toString()}`);
      restartAt = performance.now();
      progress(`restarted node ${victim}: it rejoins as a replica`);
    }
    await Bun.sleep(Math.max(0, killAt + AFTER_MS - performance.now()));
    stop = true;
    await Promise.all([...clients, failover.watching]);
    clearInterval(ticker);
    progress(`the cluster flagged ${victim} failed ${seconds(failover.seen.failedAt)} s and promoted its replica ${seconds(failover.seen.promotedAt)} s after the kill`);

    progress("load stopped; waiting for cluster_state:ok, then reading every acknowledged write back");
    await until("cluster_state:ok", clusterOk);
    const { lost, lostIds } = await verify(engram.url, wallets, outcomes);
    return { mode: waitReplicas, outcomes, wallets, target, killAt, restartAt, lost, lostIds, causes: causesIn(logFile), ...failover.seen };
  } finally {
    await engram?.stop();
    if (args["keep-logs"]) {
      Bun.spawnSync(["cp", logFile, join(args["keep-logs"], `engram-wait-${waitReplicas}.log`)]);
      for (const port of ports()) Bun.spawnSync(["cp", join(clusterDir, String(port), "redis.log"), join(args["keep-logs"], `redis-${port}-wait-${waitReplicas}.log`)]);
    }
    if (!args["use-cluster"]) {
      clusterScript(clusterDir, "stop");
      rmSync(clusterDir, { recursive: true, force: true });
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Acknowledged ids absent from their wallet's export and not found by `GET /v1/memories/:id` either. */
async function verify(url: string, wallets: Wallet[], outcomes: Outcome[]): Promise<{ lost: number; lostIds: string[] }> {
  const lostIds: string[] = [];
  for (const [w, wallet] of wallets.entries()) {
    const res = await fetch(`${url}/v1/export`, { headers: wallet.headers });
    if (!res.ok) throw new Error(`GET /v1/export → ${res.status} ${await res.text()}: the cluster is not serving yet; run again`);
    const stored = new Set(((await res.json()) as { memories: { id: string }[] }).memories.map((m) => m.id));
    for (const o of outcomes) {
      if (o.wallet !== w || !o.id || stored.has(o.id)) continue;
      const one = await fetch(`${url}/v1/memories/${o.id}`, { headers: wallet.headers });
      if (one.status !== 200) lostIds.push(o.id);
    }
  }
  return { lost: lostIds.length, lostIds };
}

/** The first words of each logged request failure's error (the Redis client's message), counted. */
function causesIn(logFile: string): Map<string, number> {
  const causes = new Map<string, number>();
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; error?: string };
    if (entry.msg !== "request failed" || !entry.error) continue;
    const cause = entry.error.replace(/\d+(\.\d+)*(:\d+)?/g, "N").split(/\s+/).slice(0, 8).join(" ");
    causes.set(cause, (causes.get(cause) ?? 0) + 1);
  }
  return causes;
}

// ── the report ──────────────────────────────────────────────────────────────────────────────────

const label = (o: Outcome) => (o.status === 0 ? `no answer: ${o.reason}` : `${o.status} ${o.reason}`);

function tally(labels: string[]): string {
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].map(([l, c]) => `${c}× ${l}`).join(", ");
}

const seconds = (ms: number | undefined) => (ms === undefined ? "–" : (ms / 1000).toFixed(1));

/** The first successful write of `wallets` sent after `from`, in ms after it. */
function firstSuccess(r: ModeResult, from: number | undefined, wallets: (w: number) => boolean): number | undefined {
  if (from === undefined) return undefined;
  const ok = r.outcomes.filter((o) => wallets(o.wallet) && o.sent >= from && o.status === 201);
  return ok.length ? Math.min(...ok.map((o) => o.done)) - from : undefined;
}

function summarize(r: ModeResult): string[] {
  const onVictim = (w: number) => r.wallets[w]!.port === r.wallets[r.target]!.port;
  const elsewhere = (w: number) => !onVictim(w) && r.wallets[w]!.recordPort !== r.wallets[r.target]!.port;
  const failures = r.outcomes.filter((o) => o.status !== 201);
  const byReason = (status: number, reason: string) => failures.filter((o) => o.status === status && o.reason === reason).length;
  const other5xx = failures.filter((o) => o.status >= 500 && o.status !== 503).length;
  const other = failures.filter((o) => o.status !== 503 || !["store_unavailable", "not_replicated"].includes(o.reason));
  const lastFailure = failures.length ? Math.max(...failures.map((o) => o.done)) - r.killAt : undefined;
  const longest = Math.max(...r.outcomes.map((o) => o.done - o.sent));
  return [
    r.mode === 0 ? "unset" : String(r.mode),
    String(r.outcomes.filter((o) => o.status === 201).length),
    String(r.lost),
    seconds(r.failedAt),
    seconds(r.promotedAt),
    seconds(firstSuccess(r, r.killAt, (w) => w === r.target)),
    seconds(firstSuccess(r, r.killAt, onVictim)),
    seconds(firstSuccess(r, r.restartAt, (w) => w === r.target)),
    seconds(lastFailure),
    String(byReason(503, "store_unavailable")),
    String(byReason(503, "not_replicated")),
    String(other5xx),
    String(failures.filter((o) => o.status !== 0 && !o.json).length),
    other.length ? tally(other.map(label)) : "0",
    String(failures.filter((o) => elsewhere(o.wallet)).length),
    seconds(longest),
  ];
}

const results: ModeResult[] = [];
for (const mode of MODES) results.push(await runMode(mode));

console.log(
  `\nMaster failover under write load: ${CLIENTS} clients, POST /v1/store, ${results[0]?.wallets.length} wallets; ` +
    `SIGKILL of the target wallet's master ${BEFORE_MS / 1000} s in, restarted ${RESTART_MS < 0 ? "never" : `${RESTART_MS / 1000} s after the kill`}, ` +
    `load until ${AFTER_MS / 1000} s after the kill. Times in seconds from the kill (or the restart).\n`,
);
printTable(
  [
    "REDIS_WAIT_REPLICAS", "writes acked", "acked writes lost", "master flagged failed", "replica promoted", "target wallet: first write after kill", "any wallet on that master",
    "target: first write after restart", "last failure", "503 store_unavailable", "503 not_replicated", "other 5xx", "non-JSON errors",
    "other failures", "failures of wallets on other masters", "longest request",
  ],
  results.map(summarize),
);
console.log("\nWhat engram logged as the cause of each 503 (the Redis client's error, numbers as N):\n");
printTable(["REDIS_WAIT_REPLICAS", "cause", "count"], results.flatMap((r) => [...r.causes].sort((a, b) => b[1] - a[1]).map(([cause, count]) => [r.mode === 0 ? "unset" : String(r.mode), `\`${cause}\``, String(count)])));
for (const r of results) if (r.lostIds.length) console.log(`\nREDIS_WAIT_REPLICAS=${r.mode}: lost ${r.lostIds.slice(0, 10).join(", ")}${r.lostIds.length > 10 ? " …" : ""}`);

const bad = results.some((r) => r.outcomes.some((o) => (o.status >= 500 && o.status !== 503) || (o.status !== 0 && o.status !== 201 && !o.json)) || (r.mode >= 1 && r.lost > 0));
process.exit(bad ? 1 : 0);
