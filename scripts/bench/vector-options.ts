/**
 * Vector search options for the sqlite engine, measured on the same data: one wallet of synthetic
 * memories embedded with the real model, k = 40 (recall's minimum candidate count).
 *
 *   bun scripts/bench/vector-options.ts [--rows 100000] [--queries 300] [--seed 1] [--usearch PATH]
 *
 * Options: sqlite-vec vec0 KNN (the previous index: partition key + metadata columns), an exact
 * SQL scan with vec_distance_cosine, a plain JS f32 scan, the current VectorIndex (int8 SIMD pass +
 * exact f32 rescoring) alone and through SqliteStore.nearest (with the row fetch), and usearch HNSW
 * (f32 and i8) when --usearch points at an installed package (it is not a dependency). sqlite-vec
 * lines are skipped when the package is gone. Recall@40 is against an exact f64 scan.
 */
import { parseArgs } from "node:util";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { contentHash } from "../../src/domain/text.ts";
import type { Memory } from "../../src/domain/memory.ts";
import type { MemoryFilter, StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { vectorIndexCounters, type VectorIndex } from "../../src/store/sqlite/vector-index.ts";
import { prng, syntheticMemory, syntheticQuery } from "./synthetic.ts";
import { startBenchEmbedder, BENCH_MODEL } from "./bench-util.ts";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    queries: { type: "string", default: "300" },
    seed: { type: "string", default: "1" },
    usearch: { type: "string" },
    "cache-dir": { type: "string" },
  },
});
const N = Number(args.rows);
const Q = Number(args.queries);
const K = 40;
const log = (m: string) => console.error(`[options] ${m}`);
const cacheDir = resolve(args["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));

const embedder = await startBenchEmbedder(cacheDir);
const dim = embedder.dimension;
const rng = prng(Number(args.seed));
const now = Date.now();
const dir = mkdtempSync(join(tmpdir(), "engram-vopts-"));
const store = new SqliteStore(dir);
await store.bindEmbeddingModel({ id: embedder.modelId, dimension: dim });
const userId = crypto.randomUUID();

const memories: Memory[] = [];
const matrix = new Float32Array(N * dim);
for (let done = 0; done < N; ) {
  const n = Math.min(64, N - done);
  const batch = Array.from({ length: n }, () => {
    const s = syntheticMemory(rng);
    const at = new Date(now - s.age_ms).toISOString();
    const memory: Memory = {
      id: crypto.randomUUID(), user_id: userId, namespace: s.namespace, content: s.content, metadata: s.tags.length ? { tags: s.tags } : {},
      importance: s.importance, memory_type: s.memory_type, session_id: s.session_id, agent_id: s.agent_id, pinned: s.pinned,
      immutable: false, expires_at: null, created_at: at, updated_at: at, accessed_at: at, access_count: 0, deleted_at: null,
    };
    return memory;
  });
  const { vectors } = await embedder.embed(batch.map((m) => m.content));
  const items: StoredMemory[] = batch.map((memory, i) => ({ memory, embedding: vectors[i]!, content_hash: contentHash(memory.content) }));
  await store.insertMemories(items);
  for (let i = 0; i < n; i++) matrix.set(vectors[i]!, (done + i) * dim);
  memories.push(...batch);
  done += n;
  if (done % 20000 < 64) log(`filled ${done}/${N}`);
}
const queryRng = prng(Number(args.seed) + 1);
const { vectors: queries } = await embedder.embed(Array.from({ length: Q }, () => syntheticQuery(queryRng)));
await embedder.close();

/** rowids are 1..N in insertion order (a fresh database). */
function exactTop(q: Float32Array, accept: (i: number) => boolean = () => true): number[] {
  const scores: [number, number][] = [];
  for (let i = 0; i < N; i++) {
    if (!accept(i)) continue;
    let dot = 0;
    for (let j = 0; j < dim; j++) dot += q[j]! * matrix[i * dim + j]!;
    scores.push([dot, i + 1]);
  }
  return scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, K).map((s) => s[1]);
}
log("ground truth…");
const truth = queries.map((q) => exactTop(q));
const nsTruth = queries.map((q) => exactTop(q, (i) => memories[i]!.namespace === "work"));

interface Row {
  option: string;
  build: string;
  p50: number;
  p95: number;
  p99: number;
  recall: number;
  note: string;
}
const rows: Row[] = [];
async function measure(option: string, build: string, search: (q: Float32Array, i: number) => number[] | Promise<number[]>, expected = truth, note = "", reps = Q): Promise<void> {
  for (let i = 0; i < Math.min(20, reps); i++) await search(queries[i]!, i);
  const times: number[] = [];
  let hits = 0;
  let wanted = 0;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    const got = await search(queries[i]!, i);
    times.push(performance.now() - t);
    const want = new Set(expected[i]);
    wanted += want.size;
    hits += got.filter((r) => want.has(r)).length;
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  rows.push({ option, build, p50: at(0.5), p95: at(0.95), p99: at(0.99), recall: hits / Math.max(1, wanted), note });
  log(`${option}: p50 ${at(0.5).toFixed(2)} ms, recall@${K} ${(hits / Math.max(1, wanted)).toFixed(3)}`);
}

// --- the current index -------------------------------------------------------------------------
const index = (store as unknown as { vectors: VectorIndex }).vectors;
let t = performance.now();
await index.nearest(userId, queries[0]!, {}, K, now);
const loadMs = performance.now() - t;
const before = vectorIndexCounters.secondPasses;
await measure("VectorIndex.nearest (int8 WASM SIMD scan + 16-bit rescoring)", `lazy load ${loadMs.toFixed(0)} ms`, async (q) => (await index.nearest(userId, q, {}, K, now)).map((r) => r.rowid));
const second = vectorIndexCounters.secondPasses - before;
rows.at(-1)!.note = `exact (certified); second pass in ${second}/${Q} queries`;
const filters: [string, MemoryFilter, (i: number) => boolean][] = [
  ["namespace = work", { namespace: "work" }, (i) => memories[i]!.namespace === "work"],
  ["tags any of [decision, ops]", { tags: ["decision", "ops"] }, (i) => (memories[i]!.metadata.tags ?? []).some((tag) => tag === "decision" || tag === "ops")],
  ["session_id = session-7 (~0.1% of rows)", { session_id: "session-7" }, (i) => memories[i]!.session_id === "session-7"],
];
for (const [label, filter, accept] of filters) {
  const expected = label.startsWith("namespace") ? nsTruth : queries.map((q) => exactTop(q, accept));
  await measure(`VectorIndex.nearest, ${label}`, "", async (q) => (await index.nearest(userId, q, filter, K, now)).map((r) => r.rowid), expected, "filter applied in the scan");
}
// SqliteStore.nearest awaited: the index's work plus the refs of the 40 rows
await measure("SqliteStore.nearest (index + fetch of the 40 rows)", "", async (q) => (await store.nearest(userId, q, {}, K, now), []), truth, "includes the SELECT of the 40 rows and JSON.parse", 100);
rows.at(-1)!.recall = NaN;

// --- plain JS f32 scan ---------------------------------------------------------------------------
/** One pass over the Float32Array matrix, 4-way unrolled dot, keeping the best K in a small sorted buffer. */
function jsScan(q: Float32Array): number[] {
  const best: [number, number][] = [];
  let floor = -Infinity;
  for (let i = 0, base = 0; i < N; i++, base += dim) {
    let a = 0, b = 0, c = 0, d = 0;
    let j = 0;
    for (; j + 3 < dim; j += 4) {
      a += q[j]! * matrix[base + j]!;
      b += q[j + 1]! * matrix[base + j + 1]!;
      c += q[j + 2]! * matrix[base + j + 2]!;
      d += q[j + 3]! * matrix[base + j + 3]!;
    }
    for (; j < dim; j++) a += q[j]! * matrix[base + j]!;
    const s = a + b + c + d;
    if (s <= floor) continue;
    best.push([s, i + 1]);
    if (best.length >= 2 * K) {
      best.sort((x, y) => y[0] - x[0] || x[1] - y[1]);
      best.length = K;
      floor = best[K - 1]![0];
    }
  }
  return best.sort((x, y) => y[0] - x[0] || x[1] - y[1]).slice(0, K).map((x) => x[1]);
}
await measure("JS f32 brute force (Float32Array, unrolled dot, running top-k)", "none", jsScan, truth, "no filter", 100);

// --- sqlite-vec ----------------------------------------------------------------------------------
let sqliteVec: { load(db: Database): void } | null = null;
try {
  const name: string = "sqlite-vec";
  sqliteVec = (await import(name)) as { load(db: Database): void };
} catch {
  log("sqlite-vec not installed: its lines are skipped");
}
if (sqliteVec) {
  const db = new Database(":memory:");
  sqliteVec.load(db);
  t = performance.now();
  db.exec(`create virtual table v using vec0 (user_id text partition key, embedding float[${dim}] distance_metric=cosine,
    namespace text, session_id text, agent_id text, memory_type text, created_at integer, expires_at integer)`);
  const insert = db.query("insert into v (rowid, user_id, embedding, namespace, session_id, agent_id, memory_type, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const m = memories[i]!;
      insert.run(i + 1, userId, matrix.subarray(i * dim, (i + 1) * dim), m.namespace, m.session_id ?? "", m.agent_id ?? "", m.memory_type, Date.parse(m.created_at), Number.MAX_SAFE_INTEGER);
    }
  })();
  const buildMs = performance.now() - t;
  const knn = db.query("select rowid, distance from v where embedding match ? and k = ? and user_id = ? and expires_at > ?");
  await measure("sqlite-vec vec0 KNN (previous index)", `insert ${(buildMs / 1000).toFixed(1)} s`, (q) => (knn.all(q, K, userId, now) as { rowid: number }[]).map((r) => r.rowid), truth, "", 50);
  const knnNs = db.query("select rowid, distance from v where embedding match ? and k = ? and user_id = ? and expires_at > ? and namespace = ?");
  await measure("sqlite-vec vec0 KNN, namespace = work", "", (q) => (knnNs.all(q, K, userId, now, "work") as { rowid: number }[]).map((r) => r.rowid), nsTruth, "", 50);
  db.exec("create table plain (rowid integer primary key, embedding blob)");
  const ins = db.query("insert into plain values (?, ?)");
  db.transaction(() => {
    for (let i = 0; i < N; i++) ins.run(i + 1, matrix.subarray(i * dim, (i + 1) * dim));
  })();
  const scan = db.query("select rowid, vec_distance_cosine(embedding, ?) as d from plain order by d limit ?");
  await measure("SQL exact scan with vec_distance_cosine (previous fallback)", "none", (q) => (scan.all(q, K) as { rowid: number }[]).map((r) => r.rowid), truth, "", 30);
  db.close();
}

// --- usearch HNSW ----------------------------------------------------------------------------------
if (args.usearch) {
  type Index = { add(keys: BigUint64Array, v: Float32Array, threads: number): void; search(v: Float32Array, k: number, threads: number): { keys: BigUint64Array } };
  const usearch = (await import(resolve(args.usearch))) as { default?: unknown; Index?: unknown };
  const Ctor = ((usearch.default as { Index?: unknown } | undefined)?.Index ?? usearch.Index) as new (o: object) => Index;
  for (const [quantization, expansion] of [["f32", 0], ["i8", 0], ["i8", 256]] as const) {
    const hnsw = new Ctor({ dimensions: dim, metric: "cos", quantization, connectivity: 16, expansion_search: expansion });
    const keys = BigUint64Array.from({ length: N }, (_, i) => BigInt(i + 1));
    t = performance.now();
    hnsw.add(keys, matrix, 1);
    const buildS = (performance.now() - t) / 1000;
    const setting = expansion ? `M=16, ef=${expansion}` : "M=16, defaults";
    await measure(`usearch HNSW ${quantization} (${setting})`, `build ${buildS.toFixed(1)} s (1 thread)`, (q) => Array.from(hnsw.search(q, K, 1).keys, Number), truth, "no filter support in the JS API");
    const accept = (i: number) => memories[i - 1]!.namespace === "work";
    await measure(`usearch HNSW ${quantization} (${setting}), namespace = work by post-filter of top 160`, "", (q) => Array.from(hnsw.search(q, 4 * K, 1).keys, Number).filter(accept).slice(0, K), nsTruth, "fewer than k when the filter is selective");
  }
}

await store.close();
rmSync(dir, { recursive: true, force: true });

console.log(`\n## vector search options: ${N.toLocaleString("en-US")} × ${dim}-d (${BENCH_MODEL}), one wallet, k = ${K}, ${Q} queries (bun ${Bun.version}, ${navigator.hardwareConcurrency} cores)\n`);
console.log("| option | build / load | p50 ms | p95 ms | p99 ms | recall@40 | note |");
console.log("|---|---|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.option} | ${r.build} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.p99.toFixed(2)} | ${Number.isNaN(r.recall) ? "—" : r.recall.toFixed(3)} | ${r.note} |`);
process.exit(0);
