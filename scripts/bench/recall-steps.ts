/**
 * Where one recall's time goes, as a lone client sees it: POST /v1/recall through the HTTP app
 * (app.handle: routing, authentication, validation, paywall, JSON) one call at a time with a 1 ms
 * pause between calls, and when each step the recall waits for starts and ends, in ms from the
 * request's start (p50 over the calls). Steps are the store's and the embedder's calls (the same on
 * either engine): the free-call read and reservation, the query's embedding, the keyword and vector
 * searches, the relation counts and the results' records. Then, for reference, the embedding, the
 * keyword search and the vector search each alone (one call at a time, 1 ms apart), the embedding
 * with the keyword search run meanwhile, as a recall runs them, and the embedding right after a
 * vector search (untimed), as the next recall's embedding follows this one's scan. On the wallet
 * scripts/bench/throughput.ts fills:
 *
 *   bun scripts/bench/throughput.ts --corpus realmem --size 100000 --data-dir DIR --only status   (fills DIR once)
 *   bun scripts/bench/recall-steps.ts --data-dir DIR [--corpus realmem] [--limit 10] [--calls 250]
 *   REDIS_URL=redis://127.0.0.1:6379 bun scripts/bench/recall-steps.ts --engine redis --data-dir DIR --corpus synthetic
 *
 * Wall times: run it on a quiet machine. On the embedded engine it first waits until the wallet is cached.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { openStore } from "../../src/store/open-store.ts";
import { startEmbedder } from "../../src/embed/embedder.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { queryTerms } from "../../src/domain/text.ts";
import { LIMITS } from "../../src/domain/memory.ts";
import { BENCH_MODEL, percentiles, printTable, timedCalls } from "./bench-util.ts";
import { loadRealMem } from "./realmem.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    engine: { type: "string", default: "sqlite" },
    corpus: { type: "string", default: "realmem" },
    limit: { type: "string", default: "10" },
    calls: { type: "string", default: "250" },
  },
});
if (!args["data-dir"]) throw new Error("--data-dir: a data dir filled by scripts/bench/throughput.ts (e.g. --corpus realmem --size 10000 --data-dir DIR --only status)");
const redisUrl = process.env.REDIS_URL;
if (args.engine === "redis" && !redisUrl) throw new Error("--engine redis: set REDIS_URL to the server throughput.ts --engine redis filled");
if (!["synthetic", "realmem"].includes(args.corpus!)) throw new Error(`--corpus is synthetic or realmem; got ${args.corpus}`);
const limit = Number(args.limit);
const calls = Number(args.calls);
const log = (msg: string) => console.error(`[recall-steps] ${msg}`);
const root = resolve(import.meta.dir, "../..");
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(root, ".cache/models"));

const WARM_UP = Math.min(300, calls);
// The tokenizer remembers the words it has seen, so every embedding timed here needs a query nothing
// has asked before: the warm-up's, the recalls', and those of the three embedding references.
const fresh = WARM_UP + 4 * calls;
const queries =
  args.corpus === "realmem"
    ? loadRealMem(2000).flatMap((p) => p.events.flatMap((e) => (e.kind === "query" && e.text.length <= LIMITS.searchQuery ? [e.text] : [])))
    : Array.from({ length: fresh }, ((rng) => () => syntheticQuery(rng))(prng(3)));
if (queries.length < fresh) {
  throw new Error(`--calls ${calls} needs ${fresh} queries nothing has asked before (the warm-up, the recalls, three embedding references); RealMem has ${queries.length}: use --calls ${Math.floor((queries.length - WARM_UP) / 4)} or fewer`);
}
// the keyword and vector references after them may wrap around: neither remembers a query
const query = (i: number) => queries[i % queries.length]!;

const engineEnv = args.engine === "redis" ? { STORE: "redis", REDIS_URL: redisUrl! } : {};
const settings = loadConfig({ DATA_DIR: resolve(args["data-dir"]), MODEL_CACHE_DIR: cacheDir, FREE_TIER_CALLS: "1000000000", LOG_LEVEL: "warn", ...engineEnv });
const store = await openStore(settings);
const embedder = await startEmbedder({ model: BENCH_MODEL, cacheDir });
await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });

/** Start and end of each step of the current call, in ms from its start (the first call of each name); `on` while a measured call runs. */
let callStart = 0;
let on = false;
let steps = new Map<string, { start: number; end: number }>();
const STEPS = new Set(["freeCallsUsed", "reserveFreeCall", "searchText", "nearest", "embeddings", "relationsAmong", "termStatistics", "getMemories", "embed"]);
const step = (name: string, ms: number, startedAt: number) => {
  if (STEPS.has(name) && !steps.has(name)) steps.set(name, { start: startedAt - callStart, end: startedAt + ms - callStart });
};
const deps = buildDeps(await withSessionSecret(settings, store), timedCalls(store, step, () => on), timedCalls(embedder, step, () => on));
const app = createApp(deps);

const account = privateKeyToAccount(`0x${createHash("sha256").update("engram-throughput-main").digest("hex")}` as Hex);
const userId = await store.userIdForWallet(account.address);
const ts = Math.floor(Date.now() / 1000);
const authHeader = `${account.address}:${ts}:${await account.signMessage({ message: `service-auth:${ts}` })}`;

if (args.engine === "sqlite") {
  const total = await store.countAll();
  await store.searchText(userId, ["warm"], {}, 1, Date.now()); // starts the wallet's load into the cache
  for (let waited = 0; ; waited++) {
    const rows = (store as unknown as { vectors: { cached(): { rows: number } } }).vectors.cached().rows;
    if (rows >= total) break;
    if (waited % 20 === 0) log(`waiting for the wallet to be cached: ${rows} of ${total} rows`);
    await Bun.sleep(500);
  }
}

async function recall(i: number): Promise<void> {
  const res = await app.handle(
    new Request("http://127.0.0.1/v1/recall", { method: "POST", headers: { "x-wallet-auth": authHeader, "content-type": "application/json" }, body: JSON.stringify({ query: query(i), limit }) }),
  );
  if (res.status !== 200) throw new Error(`POST /v1/recall answered ${res.status}: ${await res.text()}`);
  await res.text();
}

log(`warm-up: ${WARM_UP} recalls`);
for (let i = 0; i < WARM_UP; i++) await recall(i);
const timeline = new Map<string, { start: number[]; end: number[] }>();
const totals: number[] = [];
for (let i = 0; i < calls; i++) {
  await Bun.sleep(1);
  steps = new Map();
  on = true;
  callStart = performance.now();
  await recall(WARM_UP + i);
  totals.push(performance.now() - callStart);
  on = false;
  for (const [name, { start, end }] of steps) {
    const t = timeline.get(name) ?? { start: [], end: [] };
    t.start.push(start);
    t.end.push(end);
    timeline.set(name, t);
  }
  if ((i + 1) % 100 === 0) log(`${i + 1}/${calls} recalls`);
}

/**
 * p50 wall ms of `run` alone, one call at a time, 1 ms apart, each of the four on its own queries
 * that nothing has asked before (the tokenizer remembers the words it has seen: queries asked again
 * embed faster than new ones).
 */
let nextFresh = WARM_UP + calls;
async function alone(run: (i: number) => Promise<unknown>, before?: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    await Bun.sleep(1);
    await before?.(nextFresh); // not timed
    const t = performance.now();
    await run(nextFresh++);
    ms.push(performance.now() - t);
  }
  return percentiles(ms).p50;
}
const vectors = (await embedder.embed(Array.from({ length: 100 }, (_, i) => query(i)))).vectors; // asked in the warm-up
const k = Math.max(40, 4 * limit); // as many candidates as recall asks each search for
const references: [string, number][] = [
  ["the query's embedding", await alone((i) => embedder.embed([query(i)]))],
  // as a recall runs them: the keyword search on the main thread while the worker embeds (until both are done)
  [
    "the query's embedding, the keyword search meanwhile",
    await alone(async (i) => {
      const embedded = embedder.embed([query(i)]);
      await store.searchText(userId, queryTerms(query(i)), {}, k, Date.now());
      await embedded;
    }),
  ],
  // a recall's vector search reads the wallet's whole int8 copy (12.8 MB at 100k) just before the next query's embedding
  ["the query's embedding, right after a vector search", await alone((i) => embedder.embed([query(i)]), (i) => store.nearest(userId, vectors[i % 100]!, {}, k, Date.now()))],
  [`keyword search (${k} hits)`, await alone((i) => store.searchText(userId, queryTerms(query(i)), {}, k, Date.now()))],
  [`vector search (${k} nearest)`, await alone((i) => store.nearest(userId, vectors[i % 100]!, {}, k, Date.now()))],
];

const p50 = (xs: number[]) => percentiles(xs).p50.toFixed(2);
const rows = [...timeline].sort((a, b) => percentiles(a[1].start).p50 - percentiles(b[1].start).p50).map(([name, t]) => [name, `${t.start.length}`, p50(t.start), p50(t.end)]);
rows.push(["the whole request (answer read)", `${totals.length}`, "0.00", p50(totals)]);
console.log(`\n${(await store.countAll()).toLocaleString("en-US")} memories (${args.engine}), ${args.corpus} queries, limit ${limit}, ${calls} recalls one at a time\n`);
printTable(["step of POST /v1/recall", "calls with it", "starts at, p50 ms", "ends at, p50 ms"], rows);
console.log("");
printTable(["alone, one call at a time", "p50 ms"], references.map(([name, ms]) => [name, ms.toFixed(2)]));
await embedder.close();
await store.close();
process.exit(0);
