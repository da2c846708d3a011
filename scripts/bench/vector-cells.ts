/**
 * What the coarse cells of a large wallet (src/store/sqlite/vector-cells.ts) cost in exactness and
 * save in time: the same vector searches and recalls against two stores on one data dir, one with the
 * cells (the default, from 50,000 rows) and one scanning every row exactly.
 *
 *   bun scripts/bench/throughput.ts --corpus realmem --size 100000 --data-dir DIR --only status   (fills DIR once)
 *   bun scripts/bench/vector-cells.ts --data-dir DIR --corpus realmem [--queries 500] [--limit 10]
 *
 * Queries are the corpus's as throughput.ts sends them (RealMem's query turns, or synthetic
 * questions). Reported, over --queries queries:
 *  - the share of the exact k nearest (k = 10 and 40, what a recall at limit 10 asks) that the
 *    cells find;
 *  - the share of a recall's results (Recall.run, hybrid ranking, access counting off) that are the
 *    same with the cells as without;
 *  - vector search wall time p50 / p95, one search at a time on the main thread (the wallet's scan
 *    thread off: an exact scan may otherwise be split with it).
 */
import { parseArgs } from "node:util";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { startEmbedder } from "../../src/embed/embedder.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { LIMITS } from "../../src/domain/memory.ts";
import type { UserVectors } from "../../src/store/sqlite/wallet-cache.ts";
import { BENCH_MODEL, percentiles, printTable } from "./bench-util.ts";
import { loadRealMem } from "./realmem.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    corpus: { type: "string", default: "realmem" },
    queries: { type: "string", default: "500" },
    limit: { type: "string", default: "10" },
  },
});
if (!args["data-dir"] || !existsSync(join(resolve(args["data-dir"]), "engram.sqlite"))) {
  throw new Error("--data-dir: a data dir filled by scripts/bench/throughput.ts (e.g. --corpus realmem --size 100000 --data-dir DIR --only status)");
}
if (args.corpus !== "realmem" && args.corpus !== "synthetic") throw new Error(`--corpus is realmem or synthetic; got ${args.corpus}`);
const dataDir = resolve(args["data-dir"]);
const count = Number(args.queries);
const limit = Number(args.limit);
const log = (msg: string) => console.error(`[vector-cells] ${msg}`);
const root = resolve(import.meta.dir, "../..");
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(root, ".cache/models"));

const qrng = prng(7);
const texts =
  args.corpus === "realmem"
    ? loadRealMem(2000)
        .flatMap((p) => p.events.flatMap((e) => (e.kind === "query" && e.text.length <= LIMITS.searchQuery ? [e.text] : [])))
        .slice(0, count)
    : Array.from({ length: count }, () => syntheticQuery(qrng));

const embedder = await startEmbedder({ model: BENCH_MODEL, cacheDir });
const model = { id: embedder.modelId, dimension: embedder.dimension };
// the scan thread off in both: each search below runs on this thread, so their times compare
const withCells = new SqliteStore(dataDir, { vectorIndex: { offloadMinRows: Infinity } });
const exact = new SqliteStore(dataDir, { vectorIndex: { offloadMinRows: Infinity, cellsMinRows: Infinity } });
await withCells.bindEmbeddingModel(model);
await exact.bindEmbeddingModel(model);

const account = privateKeyToAccount(`0x${createHash("sha256").update("engram-throughput-main").digest("hex")}` as Hex);
const userId = await withCells.userIdForWallet(account.address);
const rows = await withCells.countAll();

log(`embedding ${texts.length} queries`);
const vectors: Float32Array[] = [];
for (let i = 0; i < texts.length; i += 25) vectors.push(...(await embedder.embed(texts.slice(i, i + 25))).vectors);

const walletOf = (store: SqliteStore) => (store as unknown as { vectors: { users: Map<string, UserVectors>; cached(): { rows: number } } }).vectors;
async function load(name: string, store: SqliteStore): Promise<void> {
  log(`loading the wallet (${name})`);
  await store.nearest(userId, vectors[0]!, {}, 1, Date.now());
  while (walletOf(store).cached().rows < rows) await Bun.sleep(50);
}
await load("cells", withCells);
const wallet = walletOf(withCells).users.get(userId)!;
const buildStart = performance.now();
await wallet.cellsBuilt();
const buildSeconds = (performance.now() - buildStart) / 1000;
const bytes = wallet.memory();
await load("exact", exact);
const cells = (wallet as unknown as { cells: { cells: number; probes: number } | null }).cells;
if (!cells) log(`the wallet has no cells (${rows} rows: fewer than the threshold)`);

function shareFound(got: { memory: { id: string } }[], want: { memory: { id: string } }[]): number {
  const ids = new Set(want.map((h) => h.memory.id));
  return want.length === 0 ? 1 : got.filter((h) => ids.has(h.memory.id)).length / want.length;
}

const now = Date.now();
let found10 = 0;
let found40 = 0;
log("comparing searches");
for (const vector of vectors) {
  const want = await exact.nearest(userId, vector, {}, 40, now);
  const got = await withCells.nearest(userId, vector, {}, 40, now);
  found40 += shareFound(got, want);
  found10 += shareFound(got.slice(0, 10), want.slice(0, 10));
}

log("comparing recalls");
const settings = loadConfig({ DATA_DIR: dataDir, MODEL_CACHE_DIR: cacheDir, LOG_LEVEL: "warn" });
const byText = new Map(texts.map((t, i) => [t, vectors[i]!]));
const preEmbedded = Object.create(embedder, {
  embed: { value: async (list: string[]) => ({ vectors: list.map((t) => byText.get(t)!), tokens: list.map(() => 0) }) },
});
const recallOf = async (store: SqliteStore) => buildDeps(await withSessionSecret(settings, store), store, preEmbedded).recall;
const [recallCells, recallExact] = [await recallOf(withCells), await recallOf(exact)];
let sameResults = 0;
let sameLists = 0;
for (const query of texts) {
  const request = { query, limit, min_similarity: 0, include_relations: false, record_access: false, filter: {} };
  const want = (await recallExact.run(userId, request)).results;
  const got = (await recallCells.run(userId, request)).results;
  const share = shareFound(got, want);
  if (share === 1 && got.every((r, i) => r.memory.id === want[i]!.memory.id)) sameLists++;
  sameResults += share;
}

log("timing searches");
async function timed(store: SqliteStore): Promise<ReturnType<typeof percentiles>> {
  const ms: number[] = [];
  for (const [i, vector] of vectors.entries()) {
    if (i % 2 === 0) await Bun.sleep(1);
    const t = performance.now();
    await store.nearest(userId, vector, {}, 40, now);
    ms.push(performance.now() - t);
  }
  return percentiles(ms);
}
await timed(withCells);
await timed(exact); // warm-up of both
const tExact = await timed(exact);
const tCells = await timed(withCells);

await embedder.close();
await withCells.close();
await exact.close();
console.log(
  `\n${rows.toLocaleString("en-US")} memories (${dataDir}), ${args.corpus} queries: ${texts.length}, model ${model.id}; cells ${cells ? `${cells.cells}, ${cells.probes} read per search` : "none"}; load average: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}\n`,
);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
printTable(
  ["measure", "value"],
  [
    ["cells built after the load, s (wall)", buildSeconds.toFixed(2)],
    ["cells' bytes / the int8 copy's / the whole wallet's, MB", [bytes.cells, bytes.int8, wallet.bytes()].map((b) => (b / 2 ** 20).toFixed(1)).join(" / ")],
    ["exact 10 nearest found", pct(found10 / texts.length)],
    ["exact 40 nearest found", pct(found40 / texts.length)],
    [`recall results (limit ${limit}) the same`, pct(sameResults / texts.length)],
    [`recall lists (limit ${limit}) identical, in order`, pct(sameLists / texts.length)],
    ["vector search (k 40) p50 / p95 ms, exact", `${tExact.p50.toFixed(3)} / ${tExact.p95.toFixed(3)}`],
    ["vector search (k 40) p50 / p95 ms, cells", `${tCells.p50.toFixed(3)} / ${tCells.p95.toFixed(3)}`],
  ],
);
process.exit(0);
