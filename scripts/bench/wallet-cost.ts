/**
 * What each wallet costs in memory on the embedded engine: many small wallets written through the
 * whole service in-process (HTTP handler, auth, domain, store, cache), then the growth of the
 * process's memory per wallet and per memory after a forced GC, and what the cache holds by part.
 *
 *   bun scripts/bench/wallet-cost.ts [--shapes 1000x20,3000x5] [--model glove-sif-100d] [--dim 512]
 *                                    [--idle 0] [--cache-mb 0] [--recall true]
 *
 * Each shape (wallets × memories) runs in a fresh child process. A child starts the app on a temp
 * data dir (EMBEDDING_MODEL = --model, default the configured default; CACHE_MAX_MB = --cache-mb
 * when given), sends requests to its handler directly (no socket), and per wallet: one
 * `POST /v1/store/batch` of synthetic memories (synthetic.ts), then one `POST /v1/recall`, each with
 * that wallet's signed `x-wallet-auth` header. A warm-up of 250 wallets × 20 memories first fills the
 * process-wide bounded caches (fact signatures, stems) and the JIT, then its wallets are dropped
 * from the cache, so the growth measured is what more wallets cost. `--dim N` stands in for a model of another dimension: the model's vectors
 * projected to N dimensions by a fixed random matrix (cosines roughly kept, so dedup behaves alike).
 * Memory is read after `Bun.gc(true)` (and --idle seconds):
 *
 * - anonymous RSS (RssAnon of /proc/self/status: heaps, typed arrays, WebAssembly memories; not
 *   the memory-mapped database) and JSC's heap size and extra (typed array and buffer) memory;
 * - the cache's own accounting (VectorIndex.memory(): allocated bytes by part) per wallet and per
 *   memory, and the row's own bytes (content, embedding at the model's dimension, id and
 *   timestamps as stored);
 * - the JS object types whose count grew most (bun:jsc heapStats().objectTypeCounts), per wallet;
 * - the growth left after the cache is dropped (VectorIndex.clear()): what a wallet costs outside
 *   it (verified-header and wallet → user caches, SQLite, allocator fragmentation);
 * - the cache alone: every wallet loaded again (one list each) into the emptied cache, with no
 *   request's garbage between its objects, and the heap's growth from the emptied state. Both
 *   readings are taken at the end, so what the warm-up and the writes left in the heap cancels out:
 *   this is the steadiest per-wallet figure (the others move by ~1 KiB per wallet between runs).
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { heapStats } from "bun:jsc";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { startEmbedder, type Embedder } from "../../src/embed/embedder.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { VectorIndex } from "../../src/store/sqlite/vector-index.ts";
import { memorySnapshot, printTable } from "./bench-util.ts";
import { prng, syntheticMemory, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    shapes: { type: "string", default: "1000x20,3000x5" },
    model: { type: "string" },
    dim: { type: "string" },
    idle: { type: "string", default: "0" },
    "cache-mb": { type: "string" },
    recall: { type: "string", default: "true" },
    child: { type: "string" },
  },
});
const root = resolve(import.meta.dir, "../..");
const WARMUP_WALLETS = 250;
const WARMUP_MEMORIES = 20;

/** What a child reports for one shape. */
interface ShapeResult {
  wallets: number;
  memories: number;
  stored: number;
  model: string;
  dimension: number;
  anon: number;
  heap: number;
  /** JSC's heap capacity: the blocks it holds, live objects or not */
  capacity: number;
  extra: number;
  arrayBuffers: number;
  cache: Record<string, number>;
  cachedWallets: number;
  cachedRows: number;
  /** the budget's count for the cached wallets, and the part of it in slots beyond the rows */
  cachedBytes: number;
  maxBytes: number;
  spare: number;
  rowBytes: number;
  types: [string, number][];
  /** growth left once the cache is dropped (VectorIndex.clear()): what the wallets cost outside it */
  outsideAnon: number;
  outsideHeap: number;
  /** the heap's growth, and the accounting, for the wallets loaded again into the emptied cache */
  reloadedHeap: number;
  reloadedCache: number;
  baselineAnon: number;
  finalAnon: number;
  seconds: number;
}

if (args.child) {
  console.log(JSON.stringify(await measure(args.child)));
  process.exit(0);
}

const results: ShapeResult[] = [];
for (const shape of args.shapes!.split(",")) {
  console.error(`[wallet-cost] ${shape}: starting a fresh process`);
  const extra = [...(args.model ? ["--model", args.model] : []), ...(args.dim ? ["--dim", args.dim] : []), ...(args["cache-mb"] ? ["--cache-mb", args["cache-mb"]] : [])];
  const child = Bun.spawn(["bun", "--expose-gc", import.meta.path, "--child", shape, "--idle", args.idle!, "--recall", args.recall!, ...extra], {
    cwd: root,
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`the ${shape} run failed (its output is above); run it alone with --shapes ${shape}`);
  results.push(JSON.parse(out.trim().split("\n").at(-1)!) as ShapeResult);
}
report(results);

function report(all: ShapeResult[]): void {
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const b = (bytes: number) => bytes.toFixed(0);
  console.log(`\nmodel ${all[0]!.model} (${all[0]!.dimension}-d); growth after Bun.gc(true)${Number(args.idle) > 0 ? ` and ${args.idle} s idle` : ""}, warm-up of ${WARMUP_WALLETS} × ${WARMUP_MEMORIES} excluded\n`);
  printTable(
    ["wallets × memories", "stored", "anon RSS / wallet", "JS heap / wallet", "JS heap capacity / wallet", "extra (buffers) / wallet", "cache accounted / wallet", "cache / memory", "row's own bytes / memory", "anon RSS / heap per wallet, cache dropped", "the cache alone: heap / accounted per wallet, loaded again", "anon RSS after", "run"],
    all.map((r) => [
      `${r.wallets} × ${r.memories}`,
      String(r.stored),
      `${kib(r.anon / r.wallets)} KiB`,
      `${kib(r.heap / r.wallets)} KiB`,
      `${kib(r.capacity / r.wallets)} KiB`,
      `${kib(r.extra / r.wallets)} KiB`,
      `${kib(sum(r.cache) / r.wallets)} KiB`,
      `${b(sum(r.cache) / r.stored)} B`,
      `${b(r.rowBytes / r.stored)} B`,
      `${kib(r.outsideAnon / r.wallets)} / ${kib(r.outsideHeap / r.wallets)} KiB`,
      `${kib(r.reloadedHeap / r.wallets)} / ${kib(r.reloadedCache / r.wallets)} KiB`,
      `${(r.finalAnon / 2 ** 20).toFixed(0)} MiB`,
      `${r.seconds.toFixed(0)} s`,
    ]),
  );
  console.log("\nthe cache's accounting by part (allocated bytes, VectorIndex.memory()), per cached wallet\n");
  const parts = Object.keys(all[0]!.cache);
  const perCached = (r: ShapeResult, bytes: number) => `${b(bytes / Math.max(1, r.cachedWallets))} B`;
  printTable(
    ["part", ...all.map((r) => `${r.wallets} × ${r.memories}`)],
    [
      ...parts.map((part) => [part, ...all.map((r) => perCached(r, r.cache[part]!))]),
      ["**total**", ...all.map((r) => perCached(r, sum(r.cache)))],
      ["of which slots beyond the rows", ...all.map((r) => perCached(r, r.spare))],
      ["wallets cached / budget", ...all.map((r) => `${r.cachedWallets} / ${(r.maxBytes / 2 ** 20).toFixed(0)} MiB (${(r.cachedBytes / 2 ** 20).toFixed(1)} used)`)],
    ],
  );
  console.log("\nJS objects per wallet, by type (the largest growths, heapStats().objectTypeCounts)\n");
  const types = [...new Set(all.flatMap((r) => r.types.slice(0, 12).map(([t]) => t)))];
  printTable(["type", ...all.map((r) => `${r.wallets} × ${r.memories}`)], types.map((t) => [t, ...all.map((r) => ((r.types.find(([n]) => n === t)?.[1] ?? 0) / r.wallets).toFixed(1))]));
}

/** The embedder's vectors projected to `dim` dimensions by a fixed Gaussian matrix (a stand-in for a model of that size). */
function projected(model: Embedder, dim: number): Embedder {
  if (!(Number.isInteger(dim) && dim > 0 && dim <= 4096)) throw new Error(`--dim takes a dimension from 1 to 4096; got ${dim}`);
  const rng = prng(7);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const matrix = Float32Array.from({ length: dim * model.dimension }, gauss);
  const project = (v: Float32Array) => {
    const out = new Float32Array(dim);
    for (let i = 0; i < dim; i++) {
      let s = 0;
      for (let j = 0; j < v.length; j++) s += matrix[i * v.length + j]! * v[j]!;
      out[i] = s;
    }
    return out;
  };
  return {
    modelId: `${model.modelId}-projected-${dim}`,
    dimension: dim,
    embed: async (texts: string[]) => {
      const { vectors, tokens } = await model.embed(texts);
      return { vectors: vectors.map(project), tokens };
    },
    factSignatures: (texts: string[]) => model.factSignatures(texts),
    close: () => model.close(),
  };
}

function sum(parts: Record<string, number>): number {
  return Object.values(parts).reduce((a, v) => a + v, 0);
}

async function measure(shape: string): Promise<ShapeResult> {
  const [wallets, memories] = shape.split("x").map(Number) as [number, number];
  if (!(wallets > 0 && memories > 0 && memories <= 100)) throw new Error(`--shapes takes wallets x memories (1..100 memories), e.g. 1000x20; got ${shape}`);
  const started = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), "engram-wallet-cost-"));
  const env: Record<string, string> = { DATA_DIR: dataDir, MODEL_CACHE_DIR: join(root, ".cache/models"), FREE_TIER_CALLS: "1000000" };
  if (args.model) env.EMBEDDING_MODEL = args.model;
  if (args["cache-mb"]) env.CACHE_MAX_MB = args["cache-mb"];
  const settings = loadConfig(env);
  const store = await openStore(settings);
  const model = await startEmbedder({ model: settings.EMBEDDING_MODEL, cacheDir: settings.MODEL_CACHE_DIR });
  const embedder = args.dim ? projected(model, Number(args.dim)) : model;
  const config = await withSessionSecret(settings, store);
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const app = createApp(buildDeps(config, store, embedder));
  const index = (store as unknown as { vectors: VectorIndex }).vectors;
  const rng = prng(1);
  let rowBytes = 0;
  let stored = 0;
  /** the counted wallets' user ids */
  const users: string[] = [];

  const send = async (path: string, body: unknown, auth: string) => {
    const res = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json", "x-wallet-auth": auth }, body: JSON.stringify(body) }));
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const wallet = async (count: number, counted: boolean) => {
    const account = privateKeyToAccount(generatePrivateKey());
    const ts = Math.floor(Date.now() / 1000);
    const auth = `${account.address}:${ts}:${await account.signMessage({ message: `service-auth:${ts}` })}`;
    const batch = Array.from({ length: count }, () => {
      const s = syntheticMemory(rng);
      return { content: s.content, namespace: s.namespace, memory_type: s.memory_type, importance: s.importance, metadata: { tags: s.tags } };
    });
    const answer = await send("/v1/store/batch", { memories: batch }, auth);
    if (args.recall === "true") await send("/v1/recall", { query: syntheticQuery(rng), limit: 10 }, auth);
    if (!counted) return;
    stored += answer.count as number;
    users.push(await store.userIdForWallet(account.address));
    // the row's own bytes: its text, its embedding as stored (f32), its id and three timestamps
    for (const m of batch) rowBytes += Buffer.byteLength(m.content) + 4 * embedder.dimension + 36 + 3 * 24;
  };

  const progress = (label: string, i: number, n: number) => {
    if (i % 100 === 0 || i === n) process.stderr.write(`\r[wallet-cost] ${shape} ${label} ${i}/${n}   `);
  };
  for (let i = 1; i <= WARMUP_WALLETS; i++) {
    await wallet(WARMUP_MEMORIES, false);
    progress("warm-up", i, WARMUP_WALLETS);
  }
  index.clear(); // the warm-up's wallets are not counted either way (loaded again only if asked for)
  const before = await settle();
  for (let i = 1; i <= wallets; i++) {
    await wallet(memories, true);
    progress("wallets", i, wallets);
  }
  process.stderr.write("\n");
  const after = await settle();
  const cache = index.memory() as unknown as Record<string, number>;
  const cached = index.cached();
  const beforeCache = before.cache;
  index.clear();
  const outside = await settle();
  // the cache alone: each wallet loaded again by a keyword search (no list: its order would be counted)
  for (const userId of users) index.keywordSearch(userId, ["zzz"], {}, 1, Date.now());
  const reloaded = await settle();
  const reloadedCache = index.cached().bytes;
  index.clear();
  const types = Object.entries(after.types)
    .map(([t, n]): [string, number] => [t, n - (before.types[t] ?? 0)])
    .sort((a, b) => b[1] - a[1]);
  const result: ShapeResult = {
    wallets,
    memories,
    stored,
    model: embedder.modelId,
    dimension: embedder.dimension,
    anon: after.anon - before.anon,
    heap: after.heap - before.heap,
    capacity: after.capacity - before.capacity,
    extra: after.extra - before.extra,
    arrayBuffers: after.arrayBuffers - before.arrayBuffers,
    cache: Object.fromEntries(Object.entries(cache).map(([k, v]) => [k, v - (beforeCache[k] ?? 0)])),
    cachedWallets: cached.users,
    cachedRows: cached.rows,
    cachedBytes: cached.bytes,
    maxBytes: cached.maxBytes,
    spare: cached.spare,
    rowBytes,
    types,
    outsideAnon: outside.anon - before.anon,
    outsideHeap: outside.heap - before.heap,
    reloadedHeap: reloaded.heap - outside.heap,
    reloadedCache,
    baselineAnon: before.anon,
    finalAnon: after.anon,
    seconds: (performance.now() - started) / 1000,
  };
  await model.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
  return result;

  async function settle() {
    for (let i = 0; i < 3; i++) {
      Bun.gc(true);
      await Bun.sleep(100);
    }
    if (Number(args.idle) > 0) {
      await Bun.sleep(Number(args.idle) * 1000);
      Bun.gc(true);
    }
    const stats = heapStats();
    return {
      anon: memorySnapshot().anon,
      heap: stats.heapSize,
      capacity: stats.heapCapacity,
      extra: stats.extraMemorySize,
      arrayBuffers: process.memoryUsage().arrayBuffers,
      types: { ...stats.objectTypeCounts } as Record<string, number>,
      cache: { ...index.memory() } as unknown as Record<string, number>,
    };
  }
}
