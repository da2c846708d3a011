/**
 * What a recall and a search cost, part by part, in CPU time per request: the figure a loaded
 * machine disturbs least (wall time and req/s move with every other process; the CPU a thread spends
 * on one request hardly does). In process, on a data dir filled by throughput.ts (its wallet):
 *
 *   bun scripts/bench/throughput.ts --corpus realmem --size 10000 --data-dir DIR --only status   (fills DIR once)
 *   bun scripts/bench/recall-cost.ts --data-dir DIR [--requests 1000] [--limit 10] [--rounds 2] [--parts recall,http-recall] [--alloc]
 *
 * Queries are RealMem's query turns (as throughput.ts sends them). Parts (--parts picks some by key), each over --requests queries:
 *  - embed-1, embed-25: embedding, one query at a time, and 25 at a time (what coalescing gives at 64 connections);
 *  - keyword, vector, records: keyword search (BM25 with the hits' cosines), vector search, the records of 10 results;
 *  - recall, http-recall: the domain recall (Recall.run, access counting on) and POST /v1/recall through the HTTP app
 *    (app.handle: routing, authentication, validation, paywall, JSON), both with the query vectors
 *    embedded beforehand, so the difference is the HTTP layer alone;
 *  - search, http-search: keyword search as POST /v1/search answers it, and through the HTTP app.
 * CPU is read per thread from /proc/self/task: "main" is the JavaScript thread serving requests,
 * "GC" JavaScriptCore's collector threads (HeapHelper, Heap Collector), "JIT" its compiler threads
 * (JITWorker), "other" every other thread (the embedding worker, ONNX Runtime, the allocator's).
 * Each part runs --rounds times; the table shows the lowest total.
 *
 * --alloc adds the JavaScript heap bytes each request allocates, as JavaScriptCore counts them: the
 * bench runs itself again with BUN_JSC_logGC=1, and each collection the allocation triggers logs the
 * bytes allocated since the previous one ("bytes allocated this cycle", JS cells, not ArrayBuffer
 * contents). Collections on a timer (JavaScriptCore's and Bun's) would reset that count unlogged, so
 * the child runs with them off (BUN_GC_TIMER_DISABLE, the JSC timers' CPU shares near 0); the
 * "unlogged" column counts collections inside a part that were not triggered by allocation (0, or
 * the figure is too low). A part's requests start right after a full collection (which resets the
 * count), so the cycles logged until their end hold all their allocation but the last, unfinished
 * cycle's: the table gives the logged bytes plus half the last cycle's allowance, ± that half (the
 * "±" column; cycles are tens of MB, so give --alloc a few thousand --requests). Collection logging
 * and the timers being off change the CPU figures: read CPU from a run without --alloc.
 */
import { parseArgs } from "node:util";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { openStore } from "../../src/store/open-store.ts";
import { startEmbedder } from "../../src/embed/embedder.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { keywordSearch } from "../../src/domain/search.ts";
import { queryTerms } from "../../src/domain/text.ts";
import { LIMITS } from "../../src/domain/memory.ts";
import { BENCH_MODEL, cpuByName, printTable, threadCpu } from "./bench-util.ts";
import { loadRealMem } from "./realmem.ts";

const { values: args } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    requests: { type: "string", default: "1000" },
    limit: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    parts: { type: "string" },
    alloc: { type: "boolean", default: false },
  },
});
if (!args["data-dir"] || !existsSync(join(resolve(args["data-dir"]), "engram.sqlite"))) {
  throw new Error("--data-dir: a data dir filled by scripts/bench/throughput.ts (e.g. --corpus realmem --size 10000 --data-dir DIR --only status)");
}
const dataDir = resolve(args["data-dir"]);
type ThreadKind = "main" | "gc" | "jit" | "other";
const KINDS: ThreadKind[] = ["main", "gc", "jit", "other"];
/** JavaScriptCore names its collector threads HeapHelper and "Heap Collector…", its compilers JITWorker. */
const kindOf = (thread: string): ThreadKind => (thread === "main" ? "main" : /^Heap|GC/.test(thread) ? "gc" : /JIT/.test(thread) ? "jit" : "other");
type Cost = Record<ThreadKind, number>;
const total = (cost: Cost) => KINDS.reduce((sum, kind) => sum + cost[kind], 0);

if (args.alloc && !process.env.BUN_JSC_logGC) process.exit(await withAllocation());
const requests = Number(args.requests);
const limit = Number(args.limit);
const rounds = Number(args.rounds);
const log = (msg: string) => console.error(`[recall-cost] ${msg}`);
const root = resolve(import.meta.dir, "../..");
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(root, ".cache/models"));

const queries = loadRealMem(2000)
  .flatMap((p) => p.events.flatMap((e) => (e.kind === "query" && e.text.length <= LIMITS.searchQuery ? [e.text] : [])))
  .slice(0, 500);
const query = (i: number) => queries[i % queries.length]!;

const settings = loadConfig({ DATA_DIR: dataDir, MODEL_CACHE_DIR: cacheDir, FREE_TIER_CALLS: "1000000000", LOG_LEVEL: "warn" });
const store = await openStore(settings);
const embedder = await startEmbedder({ model: BENCH_MODEL, cacheDir });
await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });

/** Query vectors embedded once, so the recall parts measure everything but the embedding. */
const embedded = new Map<string, { vector: Float32Array; tokens: number }>();
for (let i = 0; i < queries.length; i += 25) {
  const batch = queries.slice(i, i + 25);
  const { vectors, tokens } = await embedder.embed(batch);
  batch.forEach((q, k) => embedded.set(q, { vector: vectors[k]!, tokens: tokens[k]! }));
}
const preEmbedded = Object.create(embedder, {
  embed: {
    value: async (texts: string[]) => {
      const found = texts.map((t) => embedded.get(t));
      if (!found.every((f) => f !== undefined)) return embedder.embed(texts);
      return { vectors: found.map((f) => f!.vector), tokens: found.map((f) => f!.tokens) };
    },
  },
});
const deps = buildDeps(await withSessionSecret(settings, store), store, preEmbedded);
const app = createApp(deps);

// the wallet throughput.ts fills
const account = privateKeyToAccount(`0x${createHash("sha256").update("engram-throughput-main").digest("hex")}` as Hex);
const userId = await store.userIdForWallet(account.address);
const ts = Math.floor(Date.now() / 1000);
const authHeader = `${account.address}:${ts}:${await account.signMessage({ message: `service-auth:${ts}` })}`;
const memories = await store.countAll();

async function post(path: string, body: unknown): Promise<void> {
  const res = await app.handle(
    new Request(`http://127.0.0.1${path}`, { method: "POST", headers: { "x-wallet-auth": authHeader, "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  await res.text();
}

/**
 * CPU per request of `run` over `requests` queries, by kind of thread. The requests start right
 * after a full collection (none of the warm-up's garbage left to collect) and are marked on stderr
 * for --alloc.
 */
async function measure(name: string, run: (i: number) => Promise<unknown>, n = requests): Promise<Cost> {
  for (let i = 0; i < Math.min(200, n); i++) await run(i); // warm-up (JIT, caches)
  Bun.gc(true);
  const before = threadCpu();
  console.error(`MARK start ${name}`);
  for (let i = 0; i < n; i++) await run(i);
  console.error(`MARK end ${name}`);
  const cost: Cost = { main: 0, gc: 0, jit: 0, other: 0 };
  for (const [thread, ms] of cpuByName(before, threadCpu())) cost[kindOf(thread)] += ms / n;
  return cost;
}

const recallRequest = (i: number) => ({ query: query(i), limit, min_similarity: 0, include_relations: false, record_access: true, filter: {} });
const vectorOf = (i: number) => embedded.get(query(i))!.vector;
const now = () => Date.now();
const BATCH = 25;

const parts: [key: string, name: string, run: (i: number) => Promise<unknown>, calls?: number][] = [
  ["embed-1", "embedding, one query at a time", (i) => embedder.embed([query(i)])],
  // BATCH concurrent calls, coalesced by the embedder into one batch: counted per query
  ["embed-25", `embedding, ${BATCH} queries at a time`, (i) => Promise.all(Array.from({ length: BATCH }, (_, k) => embedder.embed([query(i * BATCH + k)]))), Math.ceil(requests / BATCH)],
  ["keyword", "keyword search (BM25, with cosines)", (i) => store.searchText(userId, queryTerms(query(i)), {}, 40, now(), vectorOf(i))],
  ["vector", "vector search", (i) => store.nearest(userId, vectorOf(i), {}, 40, now())],
  ["records", `records of ${limit} results`, async (i) => store.getMemories(userId, (await store.nearest(userId, vectorOf(i), {}, limit, now())).map((h) => h.memory.id), now())],
  ["recall", `recall, domain (limit ${limit}, embedded beforehand)`, (i) => deps.recall.run(userId, recallRequest(i))],
  ["http-recall", `POST /v1/recall (limit ${limit}, embedded beforehand)`, (i) => post("/v1/recall", { query: query(i), limit })],
  ["search", `search, domain (limit ${limit})`, (i) => keywordSearch(deps.store, deps.clock, userId, query(i), {}, limit)],
  ["http-search", `POST /v1/search (limit ${limit})`, (i) => post("/v1/search", { query: query(i), limit })],
];
const picked = args.parts?.split(",");
const unknown = picked?.filter((key) => !parts.some(([k]) => k === key));
if (unknown?.length) throw new Error(`--parts: unknown ${unknown.join(", ")}; the parts are ${parts.map(([k]) => k).join(", ")}`);

const rows: { name: string; cost: Cost; requests: number }[] = [];
for (const [key, name, run, calls] of parts) {
  if (picked && !picked.includes(key)) continue;
  let best: Cost | null = null;
  for (let r = 0; r < rounds; r++) {
    const cost = await measure(`${name} #${r}`, run, calls);
    // embed-25 counts BATCH queries per call
    if (calls) for (const kind of KINDS) cost[kind] /= BATCH;
    if (!best || total(cost) < total(best)) best = cost;
  }
  log(`${name}: ${KINDS.map((kind) => `${kind} ${best![kind].toFixed(3)}`).join(" + ")} ms/request`);
  rows.push({ name, cost: best!, requests: calls ? calls * BATCH : requests });
}
await embedder.close();
await store.close();
const heading = `${memories.toLocaleString("en-US")} memories (${dataDir}), model ${embedder.modelId}, ${requests} RealMem queries per part, best of ${rounds}; load average: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`;
if (process.env.RECALL_COST_ROWS) {
  // the --alloc parent prints the table
  writeFileSync(process.env.RECALL_COST_ROWS, JSON.stringify({ heading, rows }));
} else {
  console.log(`\n${heading}\n`);
  printTable(
    ["part", "main thread CPU ms/req", "GC threads", "JIT threads", "other threads", "total"],
    rows.map(({ name, cost }) => [name, ...KINDS.map((kind) => cost[kind].toFixed(3)), total(cost).toFixed(3)]),
  );
}
process.exit(0);

/**
 * --alloc: this bench again with BUN_JSC_logGC=1, its collection log read from its stderr; the
 * table of its CPU figures with the bytes allocated per request beside them.
 */
async function withAllocation(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "recall-cost-"));
  const rowsFile = join(dir, "rows.json");
  const child = Bun.spawn(["bun", import.meta.path, ...process.argv.slice(2)], {
    env: {
      ...process.env,
      BUN_JSC_logGC: "1",
      BUN_GC_TIMER_DISABLE: "1",
      BUN_JSC_percentCPUPerMBForEdenTimer: "1e-7",
      BUN_JSC_percentCPUPerMBForFullTimer: "1e-7",
      BUN_JSC_collectionTimerMaxPercentCPU: "1e-7",
      RECALL_COST_ROWS: rowsFile,
    },
    stdout: "inherit",
    stderr: "pipe",
  });
  // per measured round: the bytes of the cycles logged between its marks, and the last cycle's allowance
  type Round = { bytes: number; cycles: number; allowed: number; unlogged: number; requested: boolean };
  const rounds = new Map<string, Round>();
  let open: Round | null = null;
  let allowed = 0;
  let pending = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stderr) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      const mark = /^MARK (start|end) (.*)$/.exec(line);
      const cycle = /bytes allocated this cycle: (\d+) exceed bytes allowed: (\d+)/.exec(line);
      if (cycle) allowed = Number(cycle[2]);
      if (mark?.[1] === "start") rounds.set(mark[2]!, (open = { bytes: 0, cycles: 0, allowed: 0, unlogged: 0, requested: false }));
      else if (mark) {
        // no collection inside the part: the allowance of the cycle before it
        if (open && open.allowed === 0) open.allowed = allowed;
        open = null;
      } else if (cycle && open) {
        open.bytes += Number(cycle[1]);
        open.cycles += 1;
        open.allowed = allowed;
        open.requested = true;
      } else if (cycle) {
        // a cycle outside the parts
      } else if (/^\[GC<[^>]*>: START/.test(line) && open) {
        if (!open.requested) open.unlogged += 1;
        open.requested = false;
      } else if (!/^(\[GC<|GC END|=> )/.test(line)) console.error(line);
    }
  }
  const code = await child.exited;
  if (code !== 0) return code;
  const { heading, rows } = JSON.parse(readFileSync(rowsFile, "utf8")) as { heading: string; rows: { name: string; cost: Cost; requests: number }[] };
  rmSync(dir, { recursive: true });
  console.log(`\n${heading}; CPU with collection logging on\n`);
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  printTable(
    ["part", "KB allocated/req", "±", "cycles", "unlogged", "main thread CPU ms/req", "GC threads", "JIT threads", "other threads", "total"],
    rows.map(({ name, cost, requests: n }) => {
      // the round the table shows is the cheapest; allocation is alike across rounds: their mean
      const logged = [...rounds].filter(([round]) => round.startsWith(`${name} #`)).map(([, r]) => r);
      const bytes = logged.reduce((sum, r) => sum + r.bytes + r.allowed / 2, 0) / logged.length / n;
      const error = logged.reduce((sum, r) => sum + r.allowed / 2, 0) / logged.length / n;
      const cycles = logged.reduce((sum, r) => sum + r.cycles, 0) / logged.length;
      const unlogged = logged.reduce((sum, r) => sum + r.unlogged, 0);
      return [name, kb(bytes), kb(error), cycles.toFixed(0), String(unlogged), ...KINDS.map((kind) => cost[kind].toFixed(3)), total(cost).toFixed(3)];
    }),
  );
  return 0;
}
