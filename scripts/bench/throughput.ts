/**
 * HTTP throughput benchmark: the service as a user runs it (`bun scripts/start.ts`, a separate
 * process, or several with --processes) against wrk on 127.0.0.1, one wallet of --size memories,
 * every request authenticated the way a client that signs once and reuses the header does.
 *
 *   bun scripts/bench/throughput.ts [--size 10000] [--seconds 10] [--connections 64]
 *                                   [--auth wallet|bearer] [--processes 1] [--data-dir DIR] [--only status,list]
 *                                   [--corpus synthetic|realmem] [--limits 5,10] [--cpu-prof DIR]
 *                                   [--engine sqlite|redis]
 *
 * Needs wrk (apt-get install -y wrk). The data dir is filled once (real embeddings,
 * store.insertMemories) and kept when --data-dir is given, so before/after runs measure the same
 * data. --engine redis runs the service on REDIS_URL instead (STORE=redis): give it a server of its
 * own, empty or holding just this bench's wallet (it is filled once, when its memory count is not
 * --size). --corpus: synthetic memories and queries (scripts/bench/synthetic.ts, the default), or
 * RealMem (scripts/bench/realmem.ts: its dialogue turns, split at 2,000 characters, as memories,
 * each dated by its session, in order and again from the start, marked "(copy n)", when --size asks
 * for more than its 16,264; its query turns of at most 1,000 characters, 1,414 of 1,415, as queries). The x-wallet-auth header is re-signed
 * before each endpoint (it must stay inside the 5-minute window). Endpoints, each for --seconds:
 *   status   GET  /v1/free-tier/status        authentication + wallet lookup, no work
 *   list     GET  /v1/memories?limit=20       first page, newest first (with total)
 *   list-p   GET  /v1/memories?limit=20&offset=… pages cycling through the first 50
 *   search   POST /v1/search                  BM25, limit 10 (or each of --limits), queries cycling
 *   recall   POST /v1/recall                  hybrid, limit 5 (or each of --limits), queries cycling (writes access counts)
 *   recall10 POST /v1/recall                  the same at limit 10 (without --limits)
 *   mixed    70% recall, 20% search (limit 10 or the last of --limits), 10% POST /v1/store of a new memory
 *   batch    POST /v1/store/batch             100 new memories per request (dedup path); adds to the wallet
 * Prints one markdown table (req/s, latency p50 / p99 from wrk, the service's CPU time per request,
 * non-2xx; with --connections 1 also the server-side p50: the service logs each request's duration
 * from its arrival to its answer handed to the socket, LOG_FORMAT=json, read back here), and logs each endpoint's CPU per request by thread of the service (main, the embedding
 * Worker, JIT, GC and allocator threads). Share the machine honestly: wrk's own thread runs on the same 2 cores as the service;
 * on a busy machine compare the CPU per request, which other load disturbs least.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { contentHash } from "../../src/domain/text.ts";
import { LIMITS, newMemory } from "../../src/domain/memory.ts";
import type { StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { openStore } from "../../src/store/open-store.ts";
import { loadConfig } from "../../src/config.ts";
import { CELLS_MIN_ROWS } from "../../src/store/sqlite/vector-index.ts";
import { cpuByName, metricValue, percentiles, printTable, startBenchEmbedder, threadCpu } from "./bench-util.ts";
import { prng, syntheticMemory, syntheticQuery } from "./synthetic.ts";
import { loadRealMem } from "./realmem.ts";

const { values: args } = parseArgs({
  options: {
    size: { type: "string", default: "10000" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    auth: { type: "string", default: "wallet" },
    processes: { type: "string", default: "1" },
    "data-dir": { type: "string" },
    only: { type: "string" },
    port: { type: "string", default: "18787" },
    /** write the service's CPU profile (bun --cpu-prof, one file per process) into this folder */
    "cpu-prof": { type: "string" },
    corpus: { type: "string", default: "synthetic" },
    limits: { type: "string" },
    engine: { type: "string", default: "sqlite" },
  },
});

const log = (msg: string) => console.error(`[throughput] ${msg}`);
const size = Number(args.size);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const port = Number(args.port);
const processes = Number(args.processes);
const root = resolve(import.meta.dir, "../..");
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(root, ".cache/models"));
const ownDataDir = !args["data-dir"];
const dataDir = args["data-dir"] ? resolve(args["data-dir"]) : mkdtempSync(join(tmpdir(), "engram-throughput-"));
const account = privateKeyToAccount(`0x${createHash("sha256").update("engram-throughput-main").digest("hex")}` as Hex);
if (args.corpus !== "synthetic" && args.corpus !== "realmem") throw new Error(`--corpus is synthetic or realmem; got ${args.corpus}`);
const realmem = args.corpus === "realmem" ? realMemCorpus() : null;
const limits = args.limits?.split(",").map(Number);
if (limits?.some((l) => !(Number.isInteger(l) && l >= 1 && l <= 100))) throw new Error(`--limits takes limits from 1 to 100, e.g. 5,10; got ${args.limits}`);

/** RealMem's dialogue turns (pieces of at most 2,000 characters) and query turns, every persona in order. */
function realMemCorpus(): { memories: { content: string; at: number }[]; queries: string[] } {
  const personas = loadRealMem(2000);
  const memories = personas.flatMap((p) => p.events.flatMap((e) => (e.kind === "turn" ? e.chunks.map((content) => ({ content, at: e.at })) : [])));
  // search takes queries of at most LIMITS.searchQuery characters (one RealMem query has 2,493)
  const queries = personas.flatMap((p) => p.events.flatMap((e) => (e.kind === "query" && e.text.length <= LIMITS.searchQuery ? [e.text] : [])));
  return { memories, queries };
}

/** The i-th memory of the fill: RealMem's turns in order, again from the start (marked) past its end. */
function realMemMemory(i: number): { content: string; at: number } {
  const { memories } = realmem!;
  const m = memories[i % memories.length]!;
  const copy = Math.floor(i / memories.length);
  return copy === 0 ? m : { content: `${m.content} (copy ${copy})`, at: m.at };
}

// ---- fill (once per data dir, or per Redis server) ----
if (args.engine !== "sqlite" && args.engine !== "redis") throw new Error(`--engine is sqlite or redis; got ${args.engine}`);
const redisUrl = process.env.REDIS_URL;
if (args.engine === "redis" && !redisUrl) throw new Error("--engine redis: set REDIS_URL to a Redis 8 (or Redis Stack 7.4) server the bench may fill");
const engineEnv = args.engine === "redis" ? { STORE: "redis", REDIS_URL: redisUrl! } : {};
mkdirSync(dataDir, { recursive: true });
// synthetic data dirs keep their earlier marker name
const marker = join(dataDir, realmem ? `.filled-realmem-${size}` : `.filled-${size}`);

/** Whether the engine already holds this bench's wallet: the data dir's marker, or Redis' memory count. */
async function filled(): Promise<boolean> {
  if (args.engine === "sqlite") return existsSync(marker);
  const store = await openStore(loadConfig({ ...engineEnv, DATA_DIR: dataDir }));
  try {
    const count = await store.countAll();
    if (count !== 0 && count !== size) throw new Error(`REDIS_URL holds ${count} memories, not --size ${size}: give the bench an empty server (or the one it filled for this size)`);
    return count === size;
  } finally {
    await store.close();
  }
}

if (!(await filled())) {
  const embedder = await startBenchEmbedder(cacheDir);
  const store = args.engine === "sqlite" ? new SqliteStore(dataDir) : await openStore(loadConfig({ ...engineEnv, DATA_DIR: dataDir }));
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const userId = await store.userIdForWallet(account.address);
  const rng = prng(42);
  const now = Date.now();
  for (let done = 0; done < size; ) {
    const n = Math.min(256, size - done);
    const batch = Array.from({ length: n }, (_, i) => {
      if (realmem) {
        const { content, at } = realMemMemory(done + i);
        const memory = newMemory({ id: crypto.randomUUID(), user_id: userId, content }, new Date(at + done + i).toISOString());
        return { memory, content_hash: contentHash(content) };
      }
      const s = syntheticMemory(rng);
      const memory = newMemory(
        { id: crypto.randomUUID(), user_id: userId, namespace: s.namespace, content: s.content, metadata: s.tags.length ? { tags: s.tags } : {},
          importance: s.importance, memory_type: s.memory_type, session_id: s.session_id, agent_id: s.agent_id, pinned: s.pinned },
        new Date(now - s.age_ms - i).toISOString(),
      );
      return { memory, content_hash: contentHash(s.content) };
    });
    const { vectors } = await embedder.embed(batch.map((b) => b.memory.content));
    await store.insertMemories(batch.map((b, i): StoredMemory => ({ ...b, embedding: vectors[i]! })));
    done += n;
    if (done % 5120 === 0 || done === size) log(`fill ${done}/${size}`);
  }
  await store.close();
  await embedder.close();
  writeFileSync(marker, "");
}

// ---- service ----
/** One call at a time: the service logs every request's duration (request-log.ts), read back for a server-side p50. */
const serverSide = connections === 1;
const requestLogEnv = serverSide ? { LOG_FORMAT: "json", LOG_LEVEL: "info" } : {};
const env = { ...process.env, ...engineEnv, ...requestLogEnv, DATA_DIR: dataDir, MODEL_CACHE_DIR: cacheDir, PORT: String(port), HOST: "127.0.0.1", FREE_TIER_CALLS: "1000000000", WORKERS: args.processes! };
const profile = args["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${resolve(args["cpu-prof"])}`] : [];
const server = Bun.spawn(["bun", ...profile, join(root, "scripts/start.ts")], { env, stdout: "pipe", stderr: "inherit" });
const base = `http://127.0.0.1:${port}`;
/** Answered requests as the service logged them (only with serverSide), in order. */
const logged: { route: string; status: number; ms: number }[] = [];
void readRequestLog(server.stdout);

async function readRequestLog(stdout: ReadableStream<Uint8Array>): Promise<void> {
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of stdout) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      const entry = JSON.parse(line) as { msg?: string; route?: string; status?: number; duration_ms?: number };
      if (entry.msg === "request" && entry.duration_ms !== undefined) logged.push({ route: entry.route!, status: entry.status!, ms: entry.duration_ms });
    }
  }
}

/**
 * The shortest warm-up before each endpoint, per process: the service's JIT compiles an endpoint's
 * path in the background for a few seconds after its first calls (a 1 s warm-up left the first
 * recall endpoint measured 10–40% slower, in CPU per request, than the same recall measured next),
 * and each process compiles its own.
 */
const WARM_UP_MIN_S = 3;

/** Runs wrk without blocking this process, whose reader must keep draining the service's log meanwhile. */
async function wrk(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const run = Bun.spawn(["wrk", ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  return { stdout, stderr };
}

/** The median server-side duration of the successful requests to `path` logged since `from`. */
async function serverP50(from: number, path: string): Promise<string> {
  await Bun.sleep(200); // the last answers' lines
  const ms = logged.slice(from).filter((e) => e.route === path && e.status < 300).map((e) => e.ms);
  return ms.length === 0 ? "—" : percentiles(ms).p50.toFixed(2);
}
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/health`)).ok) break;
  } catch {}
  if (i > 300) throw new Error("service did not start");
  await Bun.sleep(100);
}

async function walletHeader(): Promise<string> {
  const ts = Math.floor(Date.now() / 1000);
  return `${account.address}:${ts}:${await account.signMessage({ message: `service-auth:${ts}` })}`;
}
async function authHeader(): Promise<[string, string]> {
  if (args.auth === "bearer") {
    const res = await fetch(`${base}/auth/session`, { method: "POST", headers: { "x-wallet-auth": await walletHeader() } });
    const body = (await res.json()) as { token?: string };
    if (!body.token) throw new Error(`no session token: ${JSON.stringify(body)}`);
    return ["Authorization", `Bearer ${body.token}`];
  }
  return ["x-wallet-auth", await walletHeader()];
}

/** wrk threads of a measured run (the warm-up uses one); wrk needs a connection per thread */
const WRK_THREADS = Math.min(2, connections);
const qrng = prng(7);
const queries = realmem ? realmem.queries.slice(0, 500) : Array.from({ length: 200 }, () => syntheticQuery(qrng));
const luaDir = mkdtempSync(join(tmpdir(), "engram-wrk-"));

/** A wrk Lua script cycling through requests (method, path, body). */
function luaScript(name: string, requests: { method: string; path: string; body?: string }[], header: [string, string]): string {
  const file = join(luaDir, `${name}.lua`);
  const reqs = requests
    .map((r) => `wrk.format(${JSON.stringify(r.method)}, ${JSON.stringify(r.path)}, h, ${r.body ? `[==[${r.body}]==]` : "nil"})`)
    .join(",\n  ");
  writeFileSync(
    file,
    `local h = { [${JSON.stringify(header[0])}] = ${JSON.stringify(header[1])}, ["content-type"] = "application/json" }
local reqs
-- built in init: wrk.format takes the Host header from wrk.headers, which is set only by then
init = function(args)
  reqs = {
  ${reqs}
  }
end
-- each wrk thread runs its own copy of this script: thread t sends requests t, t + T, t + 2T… (T threads),
-- so together they go through the list once before repeating (each starting at 0 sent every batch body twice)
local threads = 0
setup = function(thread) thread:set("offset", threads); threads = threads + 1 end
local i = -1
request = function() i = i + 1; return reqs[((i * ${WRK_THREADS} + offset) % #reqs) + 1] end
done = function(summary, latency, requests)
  io.write(string.format("JSON{\\"requests\\":%d,\\"seconds\\":%f,\\"p50\\":%f,\\"p99\\":%f,\\"non2xx\\":%d,\\"errors\\":%d}\\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`,
  );
  return file;
}

/**
 * Batch stores of new memories (the dedup path: each item is checked against the wallet and its
 * batch). BATCH_BODIES distinct bodies: a faster run than BATCH_BODIES requests would send repeats,
 * which dedup answers cheaply, so the table marks such a run.
 */
const BATCH_ITEMS = 100;
const BATCH_BODIES = 400;
const batchRng = prng(Date.now());
function batchBodies() {
  return Array.from({ length: BATCH_BODIES }, (_, b) => ({
    method: "POST",
    path: "/v1/store/batch",
    body: JSON.stringify({
      memories: Array.from({ length: BATCH_ITEMS }, (_, i) => {
        const m = syntheticMemory(batchRng);
        return { content: `${m.content} (batch ${b} item ${i} ${batchRng().toString(36).slice(2, 8)})`, memory_type: m.memory_type, namespace: m.namespace, tags: m.tags };
      }),
    }),
  }));
}

const searchBody = (q: string, limit: number) => ({ method: "POST", path: "/v1/search", body: JSON.stringify({ query: q, limit }) });
const recallBody = (q: string, limit: number) => ({ method: "POST", path: "/v1/recall", body: JSON.stringify({ query: q, limit }) });
/** A new memory for the mixed load: a RealMem turn or a synthetic memory, made unique. */
const storeRng = prng(Date.now() + 1);
function storeBody(i: number) {
  const text = realmem ? realMemMemory(Math.floor(storeRng() * realmem.memories.length)).content : syntheticMemory(storeRng).content;
  return { method: "POST", path: "/v1/store", body: JSON.stringify({ content: `${text} (mixed ${i} ${storeRng().toString(36).slice(2, 8)})` }) };
}
/** In every 10 requests: 7 recalls, 2 searches, 1 store (1,000 distinct: a run of more sends repeats, which dedup answers cheaply). */
function mixedBodies(limit: number) {
  return Array.from({ length: 10_000 }, (_, i) => {
    const q = queries[i % queries.length]!;
    const slot = i % 10;
    return slot < 7 ? recallBody(q, limit) : slot < 9 ? searchBody(q, limit) : storeBody(i);
  });
}
const searchLimits = limits ?? [10];
const recallLimits = limits ?? [5];
const mixedLimit = limits?.at(-1) ?? 10;

const endpoints: [string, string, (header: [string, string]) => string][] = [
  ["status", "GET /v1/free-tier/status", (h) => luaScript("status", [{ method: "GET", path: "/v1/free-tier/status" }], h)],
  ["list", "GET /v1/memories?limit=20", (h) => luaScript("list", [{ method: "GET", path: "/v1/memories?limit=20" }], h)],
  ["list-p", "GET /v1/memories?limit=20&offset=0…980", (h) =>
    luaScript("list-p", Array.from({ length: 50 }, (_, i) => ({ method: "GET", path: `/v1/memories?limit=20&offset=${i * 20}` })), h)],
  ...searchLimits.map((limit): [string, string, (header: [string, string]) => string] => [
    "search", `POST /v1/search (limit ${limit})`, (h) => luaScript(`search-${limit}`, queries.map((q) => searchBody(q, limit)), h)]),
  ...recallLimits.map((limit): [string, string, (header: [string, string]) => string] => [
    "recall", `POST /v1/recall (limit ${limit})`, (h) => luaScript(`recall-${limit}`, queries.map((q) => recallBody(q, limit)), h)]),
  ...(limits ? [] : [["recall10", "POST /v1/recall (limit 10)", (h: [string, string]) => luaScript("recall-10", queries.map((q) => recallBody(q, 10)), h)] as [string, string, (header: [string, string]) => string]]),
  // after the reads: its stores add memories to the wallet (and to the data dir, for later runs)
  ["mixed", `70% recall, 20% search (limit ${mixedLimit}), 10% store`, (h) => luaScript("mixed", mixedBodies(mixedLimit), h)],
  // last: it adds memories to the wallet (and to the data dir, for later runs)
  ["batch", `POST /v1/store/batch (${BATCH_ITEMS} new memories each)`, (h) => luaScript("batch", batchBodies(), h)],
];
const only = args.only ? new Set(args.only.split(",")) : null;

/**
 * CPU seconds (user + system, every thread) used so far by the service: its process and the worker
 * processes it started. Per request, this is the figure that other load on the machine disturbs
 * least (req/s falls when wrk or anything else takes a core; CPU per request hardly moves).
 */
function serviceCpuSeconds(): number {
  const ticks = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // fields after the command name (which may hold spaces): state ppid … utime(14) stime(15)
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
      stats.set(Number(entry), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / ticks });
    } catch {} // the process ended meanwhile
  }
  const inTree = (pid: number): boolean => pid === server.pid || (pid > 1 && stats.has(pid) && inTree(stats.get(pid)!.ppid));
  let cpu = 0;
  for (const [pid, { cpu: seconds }] of stats) if (inTree(pid)) cpu += seconds;
  return cpu;
}

/** The embedded engine's vector search counters (/metrics; summed over the processes of a scrape). */
async function vectorSearches(): Promise<{ offloaded: number; cells: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return { offloaded: metricValue(text, "engram_scan_thread_offloads_total"), cells: metricValue(text, "engram_vector_cell_searches_total") };
}

/**
 * On the embedded engine, waits until the wallet is in the cache (/metrics engram_cache_rows): until
 * then FTS5 answers keyword searches at ~0.6 s of CPU each at 100k, and a run would measure that.
 * A wallet of CELLS_MIN_ROWS or more also waits for its coarse cells (engram_cache_cell_rows), built
 * after the load a step per event-loop turn: slower under load, and the searches scan every row meanwhile.
 * With several processes each caches the wallet, and a scrape answers their sum. A process starts
 * loading on its first request for the wallet, and the kernel may have given every connection of the
 * warm-up to the same process, so meanwhile the warm-up's requests go on, on new connections.
 */
async function walletCached(warmUp: string): Promise<void> {
  if (args.engine === "redis") return;
  const started = performance.now();
  const wanted = size * processes;
  for (let logged = 0; ; ) {
    const text = await (await fetch(`${base}/metrics`)).text();
    const rows = metricValue(text, "engram_cache_rows");
    if (rows >= wanted && (size < CELLS_MIN_ROWS || metricValue(text, "engram_cache_cell_rows") >= wanted)) return;
    const waited = (performance.now() - started) / 1000;
    if (waited > 600) throw new Error(`the wallet is not cached in every process after 600 s (${rows} of ${wanted} rows): is CACHE_MAX_MB too small for it?`);
    if (waited - logged >= 10) {
      logged = waited;
      log(`waiting for the wallet to be cached: ${rows} of ${wanted} rows${rows >= wanted ? ", then its coarse cells" : ""}`);
    }
    if (processes > 1) await wrk(["-t1", `-c${8 * processes}`, "-d1s", "-s", warmUp, base]);
    else await Bun.sleep(500);
  }
}

const rows: string[][] = [];
try {
  for (const [key, label, script] of endpoints) {
    if (only && !only.has(key)) continue;
    const header = await authHeader();
    const file = script(header);
    // a warm-up (caches, JIT; every worker process loads the wallet once, ~1 s per 30k synthetic memories, each
    // on its first search, so the warm-up grows with the processes), then the measured run
    // (none for batch stores: a warm-up would spend bodies that then come back as cheap duplicates; recalls for the mixed load)
    const warmUp = key === "mixed" ? luaScript("mixed-warm-up", queries.map((q) => recallBody(q, mixedLimit)), header) : file;
    // (RealMem's turns, ~760 characters each, load ~4× slower than synthetic memories: ~15 s per 100k)
    const loadRate = realmem ? 5_000 : 20_000;
    if (key !== "batch") await wrk(["-t1", "-c8", `-d${Math.max(WARM_UP_MIN_S * processes, Math.ceil((size * processes) / loadRate))}s`, "-s", warmUp, base]);
    // (the authenticated no-op reads no memory: nothing loads the wallet, so nothing to wait for)
    if (key !== "batch" && key !== "status") await walletCached(warmUp);
    const searchesBefore = await vectorSearches();
    const cpuBefore = serviceCpuSeconds();
    // where a request's CPU goes, by thread of the service: main (its JavaScript thread), Worker (the
    // embedding worker), JITWorker, HeapHelper, mi-scavenger…
    const threadsBefore = threadCpu(server.pid);
    const loggedBefore = logged.length;
    const out = await wrk([`-t${WRK_THREADS}`, `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", file, base]);
    const cpuUsed = serviceCpuSeconds() - cpuBefore;
    const searchesAfter = await vectorSearches();
    const threadsUsed = [...cpuByName(threadsBefore, threadCpu(server.pid))].filter(([, ms]) => ms > 0);
    const text = out.stdout;
    const json = text.match(/JSON(\{.*\})/)?.[1];
    if (!json) throw new Error(`wrk output without a summary:\n${text}\n${out.stderr}`);
    const r = JSON.parse(json) as { requests: number; seconds: number; p50: number; p99: number; non2xx: number; errors: number };
    const rps = r.requests / r.seconds;
    const cpuMs = (cpuUsed * 1000) / Math.max(1, r.requests);
    log(`${label}: ${Math.round(rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, service CPU ${cpuMs.toFixed(3)} ms/req, non-2xx ${r.non2xx}, errors ${r.errors}`);
    const byThread = threadsUsed.sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${(ms / Math.max(1, r.requests)).toFixed(3)}`);
    // (with several processes the spawned one is the supervisor: the workers' threads are elsewhere)
    if (processes === 1) log(`${label}: CPU ms/req by thread: ${byThread.join(", ")}`);
    const searched = (key: keyof typeof searchesAfter) => searchesAfter[key] - searchesBefore[key];
    if (searched("offloaded") + searched("cells") > 0) log(`${label}: vector searches on the scan thread ${searched("offloaded")}, of a wallet's coarse cells ${searched("cells")}`);
    const repeated = key === "batch" && r.requests > BATCH_BODIES ? ` (${r.requests - BATCH_BODIES} repeated bodies)` : "";
    const perItem = key === "batch" ? ` = ${Math.round(rps * BATCH_ITEMS).toLocaleString("en-US")} memories/s${repeated}` : "";
    const server50 = serverSide ? [await serverP50(loggedBefore, label.split(" ")[1]!.split("?")[0]!)] : [];
    rows.push([label, `${Math.round(rps).toLocaleString("en-US")}${perItem}`, r.p50.toFixed(2), ...server50, r.p99.toFixed(2), cpuMs.toFixed(3), String(r.non2xx + r.errors)]);
  }
} finally {
  server.kill("SIGTERM");
  await server.exited;
  rmSync(luaDir, { recursive: true, force: true });
  if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
}
console.log(`\n${size.toLocaleString("en-US")} ${args.corpus} memories in the wallet (${args.engine}), ${connections} connections, ${seconds} s each, auth ${args.auth}, ${args.processes} process(es); load average before: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}\n`);
printTable(["endpoint", "req/s", "p50 ms", ...(serverSide ? ["server-side p50 ms"] : []), "p99 ms", "service CPU ms/req", "non-2xx / errors"], rows);
