/**
 * Recall benchmark: fills one wallet with synthetic memories (then other wallets up to a total) and
 * measures recall and keyword search server-side and end-to-end over HTTP.
 *
 *   bun scripts/bench/recall.ts [--sizes 10000,100000] [--total 200000] [--other-size 20000]
 *                               [--engine sqlite|redis] [--queries 2000] [--seconds 10]
 *                               [--connections 1,64] [--no-http] [--check] [--analyze] [--seed 1] [--data-dir DIR]
 *                               [--search-all] [--no-measure]
 *
 * Phases: the main wallet is filled to each size in turn and measured; when --total exceeds the
 * last size, other wallets of --other-size memories are added until the store holds --total, and
 * the main wallet is measured again. Memories are generated from templates × vocabulary with a
 * seeded PRNG (scripts/bench/synthetic.ts), embedded with the real embedder in batches of 64 and
 * written with `store.insertMemories` (no dedup; a separate line times the real `storeMany` path).
 *
 * Server-side: `Recall.run` (embed + candidates + scoring + access bump, limit 5, no filter) and
 * `keywordSearch` (limit 10) called in-process, one at a time; the store and embedder are wrapped to
 * time each engine call inside recall. End-to-end: the real app (createApp + buildDeps) on a loopback
 * port, FREE_TIER_CALLS very high, a session token as `Authorization: Bearer`, driven by `wrk`
 * (apt-get install -y wrk) with a Lua script cycling through the queries, or else by a Bun loader
 * process with N concurrent fetch loops. Everything is bounded by --seconds and stays on 127.0.0.1.
 * A last run of GET /v1/free-tier/status (authentication and wallet lookup, no retrieval) shows the
 * HTTP floor. A saturated server can finish almost nothing inside a short run at 64 connections:
 * every request is interleaved with the 63 others, so read the 1-connection latency first.
 *
 * --engine redis needs REDIS_URL (Redis Stack) and src/store/redis/redis-store.ts; without them the
 * run stops with the reason. --check compares the sqlite vector index with an exact SQL scan.
 * --analyze runs SQLite's ANALYZE after each fill (from a second connection): without planner
 * statistics SQLite answers `user_id = ? and id in (…)` by walking all of the user's rows.
 *
 * --data-dir keeps the store for a re-run: a wallet that already holds its rows is not filled again
 * (a partly filled one is completed, its generator advanced past the rows it has). --no-measure
 * skips the latency phases (nothing is written then: the phases' storeMany line adds 640 rows per
 * phase, which would push a re-run past --total). --search-all, after the last phase, runs one
 * recall and one keyword search in every wallet, so that every wallet's cache is loaded (the worst
 * case for memory while the cached wallets fit in the cache budget, maxCachedBytes), and reports what the resident
 * memory is made of before and after, and after a forced GC: anonymous memory (heaps, the caches'
 * typed arrays, WebAssembly memories) apart from file-backed pages (SQLite's memory-mapped database,
 * which the OS can reclaim and other processes share). A re-run with --data-dir, --no-measure and
 * --search-all measures a fresh process, as a restarted service would be, without the fill's garbage.
 * Progress goes to stderr, the markdown tables to stdout.
 */
import { parseArgs } from "node:util";
import { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import type { Embedder } from "../../src/embed/embedder.ts";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { Recall, type RecallRequest } from "../../src/domain/recall.ts";
import { keywordSearch } from "../../src/domain/search.ts";
import { contentHash } from "../../src/domain/text.ts";
import { newMemory, type Memory } from "../../src/domain/memory.ts";
import type { TextEmbedder } from "../../src/domain/ports.ts";
import type { MemoryFilter, MemoryStore, StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { VectorIndex, type CacheBytes } from "../../src/store/sqlite/vector-index.ts";
import { heapStats } from "bun:jsc";
import { prng, syntheticMemory, syntheticQuery, type Rng } from "./synthetic.ts";
import { memorySnapshot, timedCalls, type MemorySnapshot, startBenchEmbedder, BENCH_MODEL } from "./bench-util.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    total: { type: "string", default: "200000" },
    "other-size": { type: "string", default: "20000" },
    engine: { type: "string", default: "sqlite" },
    queries: { type: "string", default: "2000" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "1,64" },
    "no-http": { type: "boolean", default: false },
    check: { type: "boolean", default: false },
    analyze: { type: "boolean", default: false },
    seed: { type: "string", default: "1" },
    "data-dir": { type: "string" },
    "search-all": { type: "boolean", default: false },
    "no-measure": { type: "boolean", default: false },
    "cache-dir": { type: "string" },
    // internal: run as the Bun load generator (when wrk is missing)
    loader: { type: "string" },
  },
});

const BATCH = 64;
/** memories each phase's storeMany line adds to the main wallet (10 batches) */
const STORE_MANY_ROWS = 10 * BATCH;
const log = (msg: string) => console.error(`[bench] ${msg}`);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const f = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const int = (n: number) => Math.round(n).toLocaleString("en-US");

/** Sorted samples → p50/p95/p99/mean. */
class Histogram {
  readonly samples: number[] = [];
  add(ms: number): void {
    this.samples.push(ms);
  }
  get n(): number {
    return this.samples.length;
  }
  summary(): { p50: number; p95: number; p99: number; mean: number; n: number } {
    const s = [...this.samples].sort((a, b) => a - b);
    const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
    return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length), n: s.length };
  }
}

// ---------------------------------------------------------------------------------------------
// Loader mode: N concurrent fetch loops against one URL for a bounded time; prints one JSON line.
// ---------------------------------------------------------------------------------------------
interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

if (args.loader) {
  const spec = JSON.parse(await Bun.file(args.loader).text()) as { url: string; token: string; bodies: string[]; connections: number; seconds: number; method: string };
  const hist = new Histogram();
  let errors = 0;
  let next = 0;
  const deadline = performance.now() + spec.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < deadline) {
        const body = spec.bodies[next++ % spec.bodies.length]!;
        const t = performance.now();
        const res = await fetch(spec.url, {
          method: spec.method,
          headers: { "content-type": "application/json", authorization: `Bearer ${spec.token}` },
          body: spec.method === "GET" ? undefined : body,
        });
        await res.arrayBuffer();
        hist.add(performance.now() - t);
        if (res.status !== 200) errors++;
      }
    }),
  );
  const s = hist.summary();
  console.log(JSON.stringify({ requests: s.n, errors, seconds: (performance.now() - started) / 1000, p50: s.p50, p95: s.p95, p99: s.p99, mean: s.mean } satisfies LoadResult));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------
const sizes = args.sizes!.split(",").map(Number).filter((n) => n > 0).sort((a, b) => a - b);
const total = Number(args.total);
const otherSize = Number(args["other-size"]);
const queryCount = Number(args.queries);
const seconds = Number(args.seconds);
const connections = args.connections!.split(",").map(Number).filter((n) => n > 0);
const seed = Number(args.seed);
const engineName = args.engine!;
if (engineName !== "sqlite" && engineName !== "redis") throw new Error(`--engine must be sqlite or redis (got ${engineName})`);
const cacheDir = resolve(args["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
const ownDataDir = !args["data-dir"];
const dataDir = args["data-dir"] ? resolve(args["data-dir"]) : mkdtempSync(join(tmpdir(), "engram-bench-"));
mkdirSync(dataDir, { recursive: true }); // a new --data-dir is created, as the service does

/** The store, wrapped so every call can be timed; `timings` collects per-method histograms while on. */
const timings = new Map<string, Histogram>();
let timing = false;
// until the answer: sqlite's vector searches of large wallets run on its scan thread, and its keyword
// search waits for the query vector (the hits' cosines), as Redis's calls wait for Redis
function timed<T extends object>(target: T, prefix: string): T {
  return timedCalls(target, (method, ms) => {
    const name = `${prefix}${method}`;
    (timings.get(name) ?? timings.set(name, new Histogram()).get(name)!).add(ms);
  }, () => timing);
}

async function openEngine(): Promise<{ store: MemoryStore; cleanup: () => Promise<void> }> {
  if (engineName === "sqlite") return { store: new SqliteStore(dataDir), cleanup: async () => {} };
  const url = process.env.REDIS_URL;
  if (!url) throw new Error("--engine redis: set REDIS_URL to a Redis Stack server (search + JSON modules)");
  // a variable specifier: the module may not exist in this checkout
  const modulePath: string = "../../src/store/redis/redis-store.ts";
  let mod: { RedisStore: { connect(url: string, opts: { keyPrefix: string }): Promise<MemoryStore> } };
  try {
    mod = await import(modulePath);
  } catch (error) {
    throw new Error(`--engine redis: src/store/redis/redis-store.ts is not available (${(error as Error).message})`);
  }
  const keyPrefix = `engram-bench-${Date.now()}:`;
  const store = await mod.RedisStore.connect(url, { keyPrefix });
  log(`redis engine at ${url.replace(/\/\/[^@]*@/, "//***@")}, key prefix ${keyPrefix} (left in place: drop it with FT.DROPINDEX + DEL when done)`);
  return { store, cleanup: async () => {} };
}

const embedder: Embedder = await startBenchEmbedder(cacheDir);
const { store: rawStore, cleanup } = await openEngine();
/** The sqlite engine's cache (for --search-all's accounting and to wait for background loads). */
const vectorIndex = rawStore instanceof SqliteStore ? (rawStore as unknown as { vectors: VectorIndex }).vectors : null;
/** Active rows of a user already in the store (a --data-dir re-run); 0 for redis (a fresh key prefix per run). */
function rowsOf(userId: string): number {
  if (engineName !== "sqlite") return 0;
  const db = (rawStore as unknown as { db: Database }).db;
  return (db.query("select count(*) as n from memories where user_id = ? and deleted_at is null").get(userId) as { n: number }).n;
}
function storeRows(): number {
  if (engineName !== "sqlite") return NaN;
  const db = (rawStore as unknown as { db: Database }).db;
  return (db.query("select count(*) as n from memories where deleted_at is null").get() as { n: number }).n;
}
await rawStore.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
const store = timed(rawStore, "store.");
const timedEmbedder: TextEmbedder = {
  modelId: embedder.modelId,
  dimension: embedder.dimension,
  embed: (texts) => {
    if (!timing) return embedder.embed(texts);
    const hist = timings.get("embed") ?? timings.set("embed", new Histogram()).get("embed")!;
    const t = performance.now();
    return embedder.embed(texts).then((r) => (hist.add(performance.now() - t), r));
  },
};

const config = await withSessionSecret(loadConfig({ DATA_DIR: dataDir, MODEL_CACHE_DIR: cacheDir, FREE_TIER_CALLS: "1000000000", HOST: "127.0.0.1", PORT: "0" }), rawStore);
const deps = buildDeps(config, rawStore, embedder);
const recall = new Recall(store, timedEmbedder, Date.now);

const walletKey = (label: string) => `0x${createHash("sha256").update(`engram-bench-${seed}-${label}`).digest("hex")}` as Hex;
const mainAccount = privateKeyToAccount(walletKey("main"));
const mainUser = await rawStore.userIdForWallet(mainAccount.address);

/** A UUID v4 drawn from the PRNG, so ids are reproducible too. */
function uuid(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rng() * 16).toString(16));
  hex[12] = "4";
  hex[16] = "89ab"[Math.floor(rng() * 4)]!;
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function record(rng: Rng, userId: string, now: number): { memory: Memory; content_hash: string } {
  const s = syntheticMemory(rng);
  const at = new Date(now - s.age_ms).toISOString();
  const memory = newMemory(
    {
      id: uuid(rng),
      user_id: userId,
      namespace: s.namespace,
      content: s.content,
      metadata: s.tags.length ? { tags: s.tags } : {},
      importance: s.importance,
      memory_type: s.memory_type,
      session_id: s.session_id,
      agent_id: s.agent_id,
      pinned: s.pinned,
    },
    at,
  );
  return { memory, content_hash: contentHash(s.content) };
}

interface FillStats {
  rows: number;
  seconds: number;
  embedSeconds: number;
  insertSeconds: number;
}

/**
 * Adds `count` memories to the user in batches of 64: the next batch is embedded while this one is
 * written. `skip`: records the generator drew in a previous run (a --data-dir re-run), drawn again
 * and dropped so the new ones do not repeat their ids.
 */
async function fill(userId: string, rng: Rng, count: number, label: string, stats: FillStats, skip = 0): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < skip; i++) record(rng, userId, now);
  const makeBatch = (n: number) => Array.from({ length: n }, () => record(rng, userId, now));
  const embedBatch = async (batch: ReturnType<typeof makeBatch>) => {
    const t = performance.now();
    const { vectors } = await embedder.embed(batch.map((b) => b.memory.content));
    stats.embedSeconds += (performance.now() - t) / 1000;
    return batch.map((b, i): StoredMemory => ({ ...b, embedding: vectors[i]! }));
  };
  const started = performance.now();
  let lastLog = started;
  let done = 0;
  let pending = embedBatch(makeBatch(Math.min(BATCH, count)));
  while (done < count) {
    const items = await pending;
    done += items.length;
    if (done < count) pending = embedBatch(makeBatch(Math.min(BATCH, count - done)));
    const t = performance.now();
    await rawStore.insertMemories(items);
    stats.insertSeconds += (performance.now() - t) / 1000;
    if (performance.now() - lastLog > 2000 || done === count) {
      lastLog = performance.now();
      const rate = done / ((lastLog - started) / 1000);
      log(`fill ${label}: ${int(done)}/${int(count)} (${int(rate)}/s, RSS ${mb(process.memoryUsage().rss)})`);
    }
  }
  stats.rows += count;
  stats.seconds += (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------
const queryRng = prng(seed * 7919 + 1);
const queries = Array.from({ length: Math.max(queryCount, 1) }, () => syntheticQuery(queryRng));

const baseRequest = (query: string, filter: MemoryFilter = {}): RecallRequest => ({
  query,
  limit: 5,
  min_similarity: 0,
  include_relations: false,
  record_access: true,
  filter,
});

async function timeRecalls(n: number, filter: MemoryFilter = {}): Promise<Histogram> {
  const hist = new Histogram();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await recall.run(mainUser, baseRequest(queries[i % queries.length]!, filter));
    hist.add(performance.now() - t);
  }
  return hist;
}

async function timeSearches(n: number): Promise<Histogram> {
  const hist = new Histogram();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await keywordSearch(rawStore, Date.now, mainUser, queries[i % queries.length]!, {}, 10);
    hist.add(performance.now() - t);
  }
  return hist;
}

interface ServerSide {
  firstRecallMs: number;
  recall: Histogram;
  search: Histogram;
  parts: Map<string, Histogram>;
  filtered: [string, Histogram][];
  storeManyRate: number;
  /** memories the storeMany line added to the wallet */
  storeManyAdded: number;
  check?: { queries: number; identical: number };
}

async function serverSide(): Promise<ServerSide> {
  const t0 = performance.now();
  await recall.run(mainUser, baseRequest("what editor theme does the user prefer"));
  const firstRecallMs = performance.now() - t0;
  log(`first recall after fill: ${f(firstRecallMs)} ms`);
  await timeRecalls(Math.min(200, queryCount)); // warm-up
  timings.clear();
  timing = true;
  const recallHist = await timeRecalls(queryCount);
  timing = false;
  const parts = new Map(timings);
  log(`recall: ${fmt(recallHist)}`);
  await timeSearches(Math.min(200, queryCount));
  const search = await timeSearches(queryCount);
  log(`search: ${fmt(search)}`);
  const filtered: [string, Histogram][] = [];
  const fewer = Math.max(100, Math.floor(queryCount / 4));
  for (const [label, filter] of [
    ["namespace = work", { namespace: "work" }],
    ["tags any of [decision]", { tags: ["decision"] }],
    ["session_id = session-7", { session_id: "session-7" }],
    ["created_after 30 days ago", { created_after: new Date(Date.now() - 30 * 86_400_000).toISOString() }],
  ] as [string, MemoryFilter][]) {
    filtered.push([label, await timeRecalls(fewer, filter)]);
    log(`recall, ${label}: ${fmt(filtered.at(-1)![1])}`);
  }
  // the real ingest path (validation, embedding, exact + near-duplicate lookups) on this wallet
  const rng = prng(seed * 104729 + sizeIndex);
  const started = performance.now();
  let stored = 0;
  for (let b = 0; b < STORE_MANY_ROWS / BATCH; b++) {
    const items = Array.from({ length: BATCH }, () => {
      const s = syntheticMemory(rng);
      return { content: `${s.content} (${uuid(rng).slice(0, 8)})`, memory_type: s.memory_type, namespace: s.namespace, metadata: { tags: s.tags } };
    });
    stored += (await deps.memories.storeMany(mainUser, items)).stored;
  }
  const storeManyRate = STORE_MANY_ROWS / ((performance.now() - started) / 1000);
  log(`storeMany (dedup path): ${int(storeManyRate)} memories/s`);
  let check: ServerSide["check"];
  if (args.check && rawStore instanceof SqliteStore) check = await checkIndex();
  return { firstRecallMs, recall: recallHist, search, parts, filtered, storeManyRate, storeManyAdded: stored, check };
}

/** The sqlite vector index against an exact SQL scan, over a spread of filters and k. */
type Nearest = (userId: string, v: Float32Array, filter: MemoryFilter, k: number, now: number) => { rowid: number; distance: number }[];
async function checkIndex(): Promise<{ queries: number; identical: number }> {
  const index = (rawStore as unknown as { vectors: { nearest: Nearest; nearestExact: Nearest } }).vectors;
  const rng = prng(seed + 99);
  const filters: MemoryFilter[] = [{}, { namespace: "work" }, { tags: ["decision", "ops"] }, { session_id: "session-3" }, { pinned: true }, { memory_type: "correction", agent_id: "coder" }];
  let identical = 0;
  let n = 0;
  const now = Date.now();
  const { vectors } = await embedder.embed(queries.slice(0, 60));
  for (const [i, v] of vectors.entries()) {
    const filter = filters[i % filters.length]!;
    const k = [5, 40, 400][Math.floor(rng() * 3)]!;
    const a = index.nearest.call(index, mainUser, v, filter, k, now);
    const b = index.nearestExact.call(index, mainUser, v, filter, k, now);
    n++;
    if (a.length === b.length && a.every((x, j) => x.rowid === b[j]!.rowid && Math.abs(x.distance - b[j]!.distance) < 1e-5)) identical++;
  }
  log(`index check: ${identical}/${n} identical to the exact SQL scan`);
  return { queries: n, identical };
}

function fmt(h: Histogram): string {
  const s = h.summary();
  return `p50 ${f(s.p50)} / p95 ${f(s.p95)} / p99 ${f(s.p99)} ms (n=${s.n})`;
}

// ---------------------------------------------------------------------------------------------
// End-to-end over HTTP
// ---------------------------------------------------------------------------------------------
interface Server {
  url: string;
  token: string;
  stop: () => Promise<void>;
}
let server: Server | null = null;

async function startServer(): Promise<Server> {
  const app = createApp(deps).listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${app.server!.port}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await mainAccount.signMessage({ message: `${config.AUTH_MESSAGE_PREFIX}:${timestamp}` });
  const res = await fetch(`${url}/auth/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: mainAccount.address, timestamp, signature }),
  });
  if (res.status !== 200) throw new Error(`POST /auth/session: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { url, token, stop: async () => void (await app.stop()) };
}

const wrkPath = Bun.which("wrk");
const recallBodies = queries.slice(0, 500).map((query) => JSON.stringify({ query, limit: 5 }));

async function load(path: string, bodies: string[], conns: number, secs: number, method: "GET" | "POST" = "POST"): Promise<LoadResult> {
  const { url, token } = server!;
  const work = mkdtempSync(join(tmpdir(), "engram-load-"));
  try {
    // requests a previous run left in flight must not count against this one
    await fetch(`${url}/health`).then((r) => r.arrayBuffer());
    if (wrkPath) {
      const lua = `local bodies = {\n${bodies.map((b) => `[==[${b}]==]`).join(",\n")}\n}
local headers = { ["content-type"] = "application/json", ["authorization"] = "Bearer ${token}" }
local i = 0
request = function()
  i = i + 1
  return wrk.format("${method}", "${path}", headers, ${method === "GET" ? "nil" : "bodies[(i % #bodies) + 1]"})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %.1f %.1f %.1f %.1f\\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout, latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.mean))
end\n`;
      writeFileSync(join(work, "load.lua"), lua);
      const proc = Bun.spawn([wrkPath, "-t1", `-c${conns}`, `-d${secs}s`, "--timeout", "10s", "-s", join(work, "load.lua"), url + path], { stdout: "pipe", stderr: "pipe" });
      const out = await new Response(proc.stdout).text();
      await proc.exited;
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (!line) throw new Error(`wrk gave no result:\n${out}\n${await new Response(proc.stderr).text()}`);
      const [requests, durationUs, errors, p50, p95, p99, mean] = line.split(" ").slice(1).map(Number) as number[];
      return { requests: requests!, errors: errors!, seconds: durationUs! / 1e6, p50: p50! / 1000, p95: p95! / 1000, p99: p99! / 1000, mean: mean! / 1000 };
    }
    writeFileSync(join(work, "spec.json"), JSON.stringify({ url: url + path, token, bodies, connections: conns, seconds: secs, method }));
    const proc = Bun.spawn([process.execPath, import.meta.path, "--loader", join(work, "spec.json")], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    return JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface EndToEnd {
  runs: { label: string; conns: number; result: LoadResult }[];
}

async function endToEnd(): Promise<EndToEnd> {
  server ??= await startServer();
  await load("/v1/recall", recallBodies, 8, Math.min(3, seconds)); // warm-up
  const runs: EndToEnd["runs"] = [];
  for (const conns of connections) {
    const result = await load("/v1/recall", recallBodies, conns, seconds);
    runs.push({ label: "recall", conns, result });
    log(`e2e recall, ${conns} connection(s): ${int(result.requests / result.seconds)}/s, p50 ${f(result.p50)} / p95 ${f(result.p95)} / p99 ${f(result.p99)} ms, errors ${result.errors}`);
  }
  const searchBodies = queries.slice(0, 500).map((query) => JSON.stringify({ query, limit: 10 }));
  const conns = Math.max(...connections);
  const result = await load("/v1/search", searchBodies, conns, seconds);
  runs.push({ label: "search", conns, result });
  log(`e2e search, ${conns} connection(s): ${int(result.requests / result.seconds)}/s, p50 ${f(result.p50)} ms, errors ${result.errors}`);
  // the floor: authentication, wallet lookup, free-tier read and JSON, no retrieval
  const floor = await load("/v1/free-tier/status", [""], conns, Math.min(5, seconds), "GET");
  runs.push({ label: "GET /v1/free-tier/status (auth floor)", conns, result: floor });
  log(`e2e GET /v1/free-tier/status, ${conns} connection(s): ${int(floor.requests / floor.seconds)}/s, p50 ${f(floor.p50)} ms`);
  return { runs };
}

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------
interface Phase {
  label: string;
  walletRows: number;
  totalRows: number;
  fill: FillStats;
  rssAfterFill: number;
  server: ServerSide;
  e2e: EndToEnd | null;
  rssAfterLoad: number;
}

const phases: Phase[] = [];
const mainRng = prng(seed);
/** main-wallet rows a previous run left in --data-dir, and how many records this run has drawn from mainRng */
const mainResumed = rowsOf(mainUser);
let mainDrawn = 0;
/** every wallet filled, the main one first (for --search-all) */
const wallets: string[] = [mainUser];
const startMemory = memorySnapshot();
let walletRows = 0;
let totalRows = 0;
let sizeIndex = 0;
const runStarted = performance.now();
log(`engine ${engineName}, data dir ${dataDir}, sizes ${sizes.join(", ")}, total ${int(total)}, wrk ${wrkPath ?? "not found (Bun loader)"}`);

async function measure(label: string, fillStats: FillStats): Promise<void> {
  if (args.analyze && engineName === "sqlite") {
    const t = performance.now();
    const db = new Database(join(dataDir, "engram.sqlite"));
    db.exec("pragma busy_timeout = 5000; analyze");
    db.close();
    log(`analyze: ${f(performance.now() - t)} ms`);
  }
  const rssAfterFill = process.memoryUsage().rss;
  if (args["no-measure"]) return;
  log(`phase ${label}: measuring (RSS ${mb(rssAfterFill)})`);
  const server = await serverSide();
  walletRows += server.storeManyAdded;
  totalRows += server.storeManyAdded;
  const e2e = args["no-http"] ? null : await endToEnd();
  phases.push({ label, walletRows, totalRows, fill: fillStats, rssAfterFill, server, e2e, rssAfterLoad: process.memoryUsage().rss });
}

for (const size of sizes) {
  const stats: FillStats = { rows: 0, seconds: 0, embedSeconds: 0, insertSeconds: 0 };
  walletRows = Math.max(walletRows, rowsOf(mainUser));
  if (size > walletRows) {
    const skip = Math.max(0, mainResumed - mainDrawn);
    await fill(mainUser, mainRng, size - walletRows, `main wallet → ${int(size)}`, stats, skip);
    mainDrawn += skip + size - walletRows;
  }
  walletRows = Math.max(walletRows, size);
  totalRows = Math.max(totalRows, walletRows);
  await measure(`${int(size)} in one wallet`, stats);
  sizeIndex++;
}
if (total > totalRows) {
  const stats: FillStats = { rows: 0, seconds: 0, embedSeconds: 0, insertSeconds: 0 };
  // the last phase's storeMany line adds up to STORE_MANY_ROWS to the main wallet: with them the
  // store holds --total rows, not more (--search-all's worst case needs them to fit in the cache budget)
  const fillTo = total - (args["no-measure"] ? 0 : STORE_MANY_ROWS);
  for (let w = 1; totalRows < fillTo; w++) {
    const userId = await rawStore.userIdForWallet(privateKeyToAccount(walletKey(`other-${w}`)).address);
    const n = Math.min(otherSize, fillTo - totalRows);
    const have = rowsOf(userId);
    if (n > have) await fill(userId, prng(seed * 1000 + w), n - have, `other wallet ${w} (total ${int(totalRows + n)}/${int(total)})`, stats, have);
    wallets.push(userId);
    totalRows += n;
  }
  await measure(`${int(walletRows)} in one wallet, ${int(totalRows)} total`, stats);
}

// ---------------------------------------------------------------------------------------------
// --search-all: every wallet's cache loaded, and what the resident memory is made of
// ---------------------------------------------------------------------------------------------
interface MemoryPoint {
  label: string;
  snap: MemorySnapshot;
  /** the main thread's JS heap, and memory JSC knows is held outside it (typed arrays' buffers) */
  heap: number;
  extra: number;
  cache: { users: number; rows: number; keywordBytes: number } | null;
}
const memoryPoints: MemoryPoint[] = [];
const dbFile = join(dataDir, "engram.sqlite");
function memoryPoint(label: string): void {
  const stats = heapStats();
  const cache = vectorIndex ? { ...vectorIndex.cached(), keywordBytes: vectorIndex.memory().keywords } : null;
  const point = { label, snap: memorySnapshot(dbFile), heap: stats.heapSize, extra: stats.extraMemorySize, cache };
  memoryPoints.push(point);
  const s = point.snap;
  log(`memory ${label}: RSS ${mb(s.rss)} = anon ${mb(s.anon)} + file ${mb(s.file)} (database mapped ${mb(s.mapped)}) + shmem ${mb(s.shmem)}; JS heap ${mb(point.heap)}, extra ${mb(point.extra)}${cache ? `; cached ${int(cache.rows)} rows in ${cache.users} wallets, keyword index ${mb(cache.keywordBytes)}` : ""}`);
}
let searchAllSeconds = 0;
/** the cache's own accounting by part, once every wallet is loaded */
let cacheParts: CacheBytes | null = null;
if (args["search-all"]) {
  memoryPoint("before the searches");
  Bun.gc(true);
  memoryPoint("before the searches, after a forced GC");
  const started = performance.now();
  for (const [i, userId] of wallets.entries()) {
    const query = queries[i % queries.length]!;
    // a vector search finishes a wallet's load at once; the keyword search then reads the same cache
    await recall.run(userId, { ...baseRequest(query), record_access: false });
    await keywordSearch(rawStore, Date.now, userId, query, {}, 10);
    log(`search-all: wallet ${i + 1}/${wallets.length} (${int(rowsOf(userId))} rows) searched, RSS ${mb(process.memoryUsage().rss)}`);
  }
  await vectorIndex?.settled();
  searchAllSeconds = (performance.now() - started) / 1000;
  memoryPoint("after a recall + search in every wallet");
  cacheParts = vectorIndex?.memory() ?? null;
  Bun.gc(true);
  memoryPoint("after, after a forced GC");
  // the allocator gives freed pages back to the OS in the background, not at once
  await Bun.sleep(10_000);
  Bun.gc(true);
  memoryPoint("after, 10 s and another GC later");
}
const finalStoreRows = storeRows();

await (server as Server | null)?.stop();
await embedder.close();
await rawStore.close();
await cleanup();
if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------
const lines: string[] = [];
const out = (s = "") => lines.push(s);
const triple = (h: Histogram) => {
  const s = h.summary();
  return `${f(s.p50)} / ${f(s.p95)} / ${f(s.p99)}`;
};
out(`## recall benchmark: ${engineName}, ${BENCH_MODEL} (bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, seed ${seed}, ${((performance.now() - runStarted) / 1000).toFixed(0)} s)`);
out();
out(`Latencies in ms as p50 / p95 / p99. Server-side = in-process, one call at a time (${int(queryCount)} recalls, ${int(queryCount)} searches per phase).`);
out(`End-to-end = HTTP on 127.0.0.1 via ${wrkPath ? "wrk (1 thread)" : "the Bun loader"}, ${seconds} s per run, one wallet (session token), recall limit 5.`);
out();
if (phases.length) {
  out("| phase | fill rate (embed + insert) | recall server-side | search server-side | e2e recall, 1 conn | recalls/s, " + connections.map((c) => `${c} conn`).join(" / ") + " | RSS after fill / after load |");
  out("|---|---|---|---|---|---|---|");
}
for (const p of phases) {
  const e2e = p.e2e?.runs.filter((r) => r.label === "recall") ?? [];
  const one = e2e.find((r) => r.conns === 1)?.result;
  out(
    `| ${p.label} | ${p.fill.rows ? `${int(p.fill.rows / p.fill.seconds)}/s (${int(p.fill.rows)} rows)` : "—"} | ${triple(p.server.recall)} | ${triple(p.server.search)} | ${
      one ? `${f(one.p50)} / ${f(one.p95)} / ${f(one.p99)}` : "—"
    } | ${e2e.length ? e2e.map((r) => int(r.result.requests / r.result.seconds)).join(" / ") : "—"} | ${mb(p.rssAfterFill)} / ${mb(p.rssAfterLoad)} |`,
  );
}
if (memoryPoints.length) {
  out();
  out(
    `### Memory with every wallet searched (--search-all): ${wallets.length} wallets, ${int(finalStoreRows)} active rows in the store, searched in ${searchAllSeconds.toFixed(0)} s` +
      (args["no-measure"] ? " (no latency phases: a fresh process)" : ""),
  );
  out();
  out(`At start (embedder and store open, nothing cached): RSS ${mb(startMemory.rss)} = anon ${mb(startMemory.anon)} + file ${mb(startMemory.file)}.`);
  out("RSS = anon (heaps, cache arrays, WebAssembly memories) + file-backed (executable, libraries, the memory-mapped database: reclaimable, shared) + shmem.");
  out();
  out("| point | RSS | anon | file-backed | of which the database's mmap | JS heap (main thread) | outside the heap (typed arrays) | cached rows / wallets | keyword index |");
  out("|---|---|---|---|---|---|---|---|---|");
  for (const m of memoryPoints) {
    const s = m.snap;
    out(`| ${m.label} | **${mb(s.rss)}** | ${mb(s.anon)} | ${mb(s.file)} | ${mb(s.mapped)} | ${mb(m.heap)} | ${mb(m.extra)} | ${m.cache ? `${int(m.cache.rows)} / ${m.cache.users}` : "—"} | ${m.cache ? mb(m.cache.keywordBytes) : "—"} |`);
  }
}
if (cacheParts) {
  const rows = memoryPoints.at(-1)!.cache!.rows;
  const sum = Object.values(cacheParts).reduce((a, b) => a + b, 0);
  out();
  out(`The cache's own accounting with every wallet loaded (typed arrays at their allocated capacity; JS strings, Map entries and small arrays estimated), ${int(rows)} rows:`);
  out();
  out("| part | MB | bytes per cached row |");
  out("|---|---|---|");
  for (const [part, bytes] of [...Object.entries(cacheParts), ["**total**", sum] as const]) out(`| ${part} | ${mb(bytes)} | ${int(bytes / Math.max(1, rows))} |`);
}
for (const p of phases) {
  out();
  out(`### ${p.label} (wallet ${int(p.walletRows)} rows, store ${int(p.totalRows)} rows)`);
  out();
  out("| measurement | p50 | p95 | p99 | mean | n |");
  out("|---|---|---|---|---|---|");
  const row = (label: string, h: Histogram) => {
    const s = h.summary();
    out(`| ${label} | ${f(s.p50)} | ${f(s.p95)} | ${f(s.p99)} | ${f(s.mean)} | ${int(s.n)} |`);
  };
  row("**recall, server-side (Recall.run)**", p.server.recall);
  const partNames = ["embed", "store.nearest", "store.searchText", "store.embeddings", "store.relationsAmong", "store.recordAccess"];
  for (const name of [...partNames, ...[...p.server.parts.keys()].filter((n) => !partNames.includes(n))]) {
    const h = p.server.parts.get(name);
    if (h) row(`&nbsp;&nbsp;↳ ${name}`, h);
  }
  for (const [label, h] of p.server.filtered) row(`recall, ${label}`, h);
  row("**search, server-side (keywordSearch, limit 10)**", p.server.search);
  for (const run of p.e2e?.runs ?? []) {
    const r = run.result;
    out(`| e2e ${run.label}, ${run.conns} conn: ${int(r.requests / r.seconds)}/s${r.errors ? `, ${r.errors} errors` : ""} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.p99)} | ${f(r.mean)} | ${int(r.requests)} |`);
  }
  out();
  const fl = p.fill;
  out(
    `first recall after fill (loads the index): ${f(p.server.firstRecallMs)} ms · fill: ${fl.rows ? `${int(fl.rows)} rows in ${fl.seconds.toFixed(1)} s = ${int(fl.rows / fl.seconds)}/s (embedding ${fl.embedSeconds.toFixed(1)} s overlapped, insert ${fl.insertSeconds.toFixed(1)} s)` : "none"} · storeMany (dedup path): ${int(p.server.storeManyRate)} memories/s · RSS after fill ${mb(p.rssAfterFill)}, after load ${mb(p.rssAfterLoad)}` +
      (p.server.check ? ` · index check: ${p.server.check.identical}/${p.server.check.queries} identical to an exact SQL scan` : ""),
  );
}
console.log(lines.join("\n"));
process.exit(0);
