/**
 * What a recall and a search cost, part by part, in CPU time per request: the figure a loaded
 * machine disturbs least (wall time and req/s move with every other process; the CPU a thread spends
 * on one request hardly does). In process, on a data dir filled by throughput.ts (its wallet):
 *
 *   bun scripts/bench/throughput.ts --corpus realmem --size 10000 --data-dir DIR --only status   (fills DIR once)
 *   bun scripts/bench/recall-cost.ts --data-dir DIR [--requests 1000] [--limit 10] [--rounds 2]
 *
 * Queries are RealMem's query turns (as throughput.ts sends them). Parts, each over --requests queries:
 *  - embedding, one query at a time, and 25 at a time (what coalescing gives at 64 connections);
 *  - keyword search (BM25 with the hits' cosines), vector search, the records of 10 results;
 *  - the domain recall (Recall.run, access counting on) and POST /v1/recall through the HTTP app
 *    (app.handle: routing, authentication, validation, paywall, JSON), both with the query vectors
 *    embedded beforehand, so the difference is the HTTP layer alone;
 *  - keyword search as POST /v1/search answers it, and through the HTTP app.
 * CPU is read per thread from /proc/self/task: "main" is the JavaScript thread serving requests,
 * "other" every other thread (the embedding worker, ONNX Runtime, the JIT and the garbage collector).
 * Each part runs --rounds times; the table shows the lowest total.
 */
import { parseArgs } from "node:util";
import { existsSync, readFileSync } from "node:fs";
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
  },
});
if (!args["data-dir"] || !existsSync(join(resolve(args["data-dir"]), "engram.sqlite"))) {
  throw new Error("--data-dir: a data dir filled by scripts/bench/throughput.ts (e.g. --corpus realmem --size 10000 --data-dir DIR --only status)");
}
const dataDir = resolve(args["data-dir"]);
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

/** CPU per request of `run` over `requests` queries: the main thread's and the others'. */
async function measure(run: (i: number) => Promise<unknown>, n = requests): Promise<{ main: number; other: number }> {
  for (let i = 0; i < Math.min(200, n); i++) await run(i); // warm-up (JIT, caches)
  const before = threadCpu();
  for (let i = 0; i < n; i++) await run(i);
  let main = 0;
  let other = 0;
  for (const [name, ms] of cpuByName(before, threadCpu())) name === "main" ? (main += ms) : (other += ms);
  return { main: main / n, other: other / n };
}

const recallRequest = (i: number) => ({ query: query(i), limit, min_similarity: 0, include_relations: false, record_access: true, filter: {} });
const vectorOf = (i: number) => embedded.get(query(i))!.vector;
const now = () => Date.now();
const BATCH = 25;

const parts: [string, (i: number) => Promise<unknown>, number?][] = [
  ["embedding, one query at a time", (i) => embedder.embed([query(i)])],
  // BATCH concurrent calls, coalesced by the embedder into one batch: counted per query
  [`embedding, ${BATCH} queries at a time`, (i) => Promise.all(Array.from({ length: BATCH }, (_, k) => embedder.embed([query(i * BATCH + k)]))), Math.ceil(requests / BATCH)],
  ["keyword search (BM25, with cosines)", (i) => store.searchText(userId, queryTerms(query(i)), {}, 40, now(), vectorOf(i))],
  ["vector search", (i) => store.nearest(userId, vectorOf(i), {}, 40, now())],
  [`records of ${limit} results`, async (i) => store.getMemories(userId, (await store.nearest(userId, vectorOf(i), {}, limit, now())).map((h) => h.memory.id), now())],
  [`recall, domain (limit ${limit}, embedded beforehand)`, (i) => deps.recall.run(userId, recallRequest(i))],
  [`POST /v1/recall (limit ${limit}, embedded beforehand)`, (i) => post("/v1/recall", { query: query(i), limit })],
  [`search, domain (limit ${limit})`, (i) => keywordSearch(deps.store, deps.clock, userId, query(i), {}, limit)],
  [`POST /v1/search (limit ${limit})`, (i) => post("/v1/search", { query: query(i), limit })],
];

const rows: string[][] = [];
for (const [name, run, n] of parts) {
  let best = { main: Infinity, other: Infinity };
  for (let r = 0; r < rounds; r++) {
    const cost = await measure(run, n);
    const perQuery = n ? { main: cost.main / BATCH, other: cost.other / BATCH } : cost;
    if (perQuery.main + perQuery.other < best.main + best.other) best = perQuery;
  }
  log(`${name}: main ${best.main.toFixed(3)} + other ${best.other.toFixed(3)} ms/request`);
  rows.push([name, best.main.toFixed(3), best.other.toFixed(3), (best.main + best.other).toFixed(3)]);
}
await embedder.close();
await store.close();
console.log(
  `\n${memories.toLocaleString("en-US")} memories (${dataDir}), model ${embedder.modelId}, ${requests} RealMem queries per part, best of ${rounds}; load average: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}\n`,
);
printTable(["part", "main thread CPU ms/req", "other threads CPU ms/req", "total"], rows);
process.exit(0);
