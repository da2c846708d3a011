/**
 * Coarse cells of large wallets (src/store/sqlite/vector-cells.ts): from `cellsMinRows` rows on, a
 * wallet's top-k vector searches read the rows of the cells nearest the query. The store under test
 * builds them from 2,500 rows; the reference is a second connection on the same file with the
 * default options, which scans every row exactly. The vectors are clustered (as embeddings of real
 * text are), so the nearest cells hold nearly all of a query's nearest rows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng } from "../../scripts/bench/synthetic";
import { newMemory } from "../../src/domain/memory";
import { cosine } from "../../src/domain/text";
import type { StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { VectorIndex, vectorIndexCounters, type VectorIndexOptions } from "../../src/store/sqlite/vector-index";
import type { UserVectors } from "../../src/store/sqlite/wallet-cache";
import { Quantized } from "../../src/store/sqlite/quantized";
import { VectorCells } from "../../src/store/sqlite/vector-cells";
import { kernelFor } from "../../src/store/sqlite/vector-kernel";

const D = 16;
const MODEL = { id: "test-clustered-vectors", dimension: D };
const NOW = Date.parse("2025-06-01T00:00:00.000Z");
const USER = "user-cells";
const ROWS = 3000;
const CELLS_FROM = 2500;

const rng = prng(11);
const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const centers = Array.from({ length: 40 }, () => Float32Array.from({ length: D }, gauss));
/** A vector near one of the cluster centers. */
const clustered = () => {
  const center = centers[Math.floor(rng() * centers.length)]!;
  return Float32Array.from(center, (x) => x + 0.35 * gauss());
};

let seq = 0;
const vectors = new Map<string, Float32Array>(); // the wallet's live rows by id
const item = (namespace = "main"): StoredMemory => {
  const id = `cell-${String(++seq).padStart(6, "0")}`;
  const embedding = clustered();
  vectors.set(id, embedding);
  return { memory: newMemory({ id, user_id: USER, namespace, content: `memory ${seq}`, metadata: {} }, new Date(NOW - seq * 1000).toISOString()), embedding, content_hash: `h${seq}` };
};

const unitOf = (v: Float32Array) => {
  const norm = Math.hypot(...v);
  return Float64Array.from(v, (x) => x / norm);
};


let dir: string;
let store: SqliteStore;
let ref: SqliteStore;
/** the store's vector index options: cells from CELLS_FROM rows, the scan thread off or on */
let options: VectorIndexOptions = {};
const walletOf = (s: SqliteStore) => (s as unknown as { vectors: { users: Map<string, UserVectors> } }).vectors.users.get(USER);
const indexOf = (s: SqliteStore) => (s as unknown as { vectors: VectorIndex }).vectors;
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function openStore(): Promise<SqliteStore> {
  const opened = new SqliteStore(dir, { vectorIndex: options });
  await opened.bindEmbeddingModel(MODEL);
  return opened;
}

async function closeStore(): Promise<void> {
  await walletOf(store)?.cellsBuilt();
  await indexOf(store)?.settled();
  await store.close();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "engram-vector-cells-"));
  ref = new SqliteStore(dir);
  await ref.bindEmbeddingModel(MODEL);
  await ref.insertMemories(Array.from({ length: ROWS }, () => item()));
});

afterAll(async () => {
  await ref?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Mean share of the reference's k nearest that the store's k nearest hold, over `queries`. */
async function overlapWithExact(queries: Float32Array[], k: number): Promise<number> {
  let share = 0;
  for (const query of queries) {
    const want = new Set((await ref.nearest(USER, query, {}, k, NOW)).map((h) => h.memory.id));
    const got = await store.nearest(USER, query, {}, k, NOW);
    share += got.filter((h) => want.has(h.memory.id)).length / k;
  }
  return share / queries.length;
}

describe.each([
  ["the scan thread off", { cellsMinRows: CELLS_FROM }],
  ["the scan thread on (a cells search stays on the main thread)", { cellsMinRows: CELLS_FROM, offloadMinRows: 2000 }],
] as [string, VectorIndexOptions][])("coarse cells, %s", (_, vectorIndex) => {
  beforeAll(async () => {
    options = vectorIndex;
    store = await openStore();
  });
  afterAll(closeStore);

  test("a wallet from cellsMinRows rows on is searched through its cells, ranked by exact cosine", async () => {
    await store.nearest(USER, clustered(), {}, 1, NOW); // loads the wallet (synchronously: 3,000 rows)
    await walletOf(store)!.cellsBuilt();
    const before = { ...vectorIndexCounters };
    const queries = Array.from({ length: 60 }, clustered);
    expect(await overlapWithExact(queries, 10)).toBeGreaterThanOrEqual(0.9);
    expect(vectorIndexCounters.cellSearches - before.cellSearches).toBe(60);
    expect(vectorIndexCounters.offloadedScans - before.offloadedScans).toBe(0);
    for (const query of queries.slice(0, 10)) {
      const got = await store.nearest(USER, query, {}, 20, NOW);
      expect(new Set(got.map((h) => h.memory.id)).size).toBe(20);
      for (const hit of got) expect(Math.abs(hit.similarity - cosine(query, vectors.get(hit.memory.id)!))).toBeLessThan(1e-3);
      for (let i = 1; i < got.length; i++) expect(got[i]!.similarity).toBeLessThanOrEqual(got[i - 1]!.similarity);
    }
  });

  test("a search with a minimum (dedup's) is answered exactly, by the whole scan", async () => {
    const before = vectorIndexCounters.cellSearches;
    const query = clustered();
    const want = await ref.nearest(USER, query, {}, 30, NOW, 0.5);
    const got = await store.nearest(USER, query, {}, 30, NOW, 0.5);
    expect(got.map((h) => h.memory.id)).toEqual(want.map((h) => h.memory.id));
    expect(vectorIndexCounters.cellSearches).toBe(before);
  });

  test("a filter whose rows the nearest cells hold fewer than k of is answered by the whole scan", async () => {
    await store.insertMemories(Array.from({ length: 12 }, () => item("rare")));
    const query = clustered();
    const want = await ref.nearest(USER, query, { namespace: "rare" }, 10, NOW);
    const got = await store.nearest(USER, query, { namespace: "rare" }, 10, NOW);
    expect(got.map((h) => h.memory.id)).toEqual(want.map((h) => h.memory.id));
  });

  test("every row stays in one cell through inserts, replacements and deletes during and after the build", async () => {
    await closeStore();
    store = await openStore();
    await store.nearest(USER, clustered(), {}, 1, NOW);
    const wallet = walletOf(store)!;
    let steps = 0;
    let building = true;
    void wallet.cellsBuilt().then(() => (building = false));
    // writes between the build's steps, then as many after it
    for (let round = 0; round < 60; round++) {
      if (!building) steps++;
      if (steps > 30) break;
      await store.insertMemories([item(), item()]);
      const ids = [...vectors.keys()];
      const gone = ids[Math.floor(rng() * ids.length)]!;
      await store.softDelete(USER, [gone], NOW);
      vectors.delete(gone);
      const changed = ids[Math.floor(rng() * ids.length)]!;
      if (vectors.has(changed)) {
        const [memory] = await store.getMemories(USER, [changed], NOW);
        const embedding = clustered();
        vectors.set(changed, embedding);
        await store.updateMemory(USER, { memory: { ...memory!, content: `${memory!.content} changed` }, embedding });
      }
      await store.nearest(USER, clustered(), {}, 5, NOW); // applies the writes to the cache
      await tick();
    }
    await wallet.cellsBuilt();
    expect(walletOf(store)).toBe(wallet);
    // each row is found by its own vector (a row in no cell would not be; one in two would repeat)
    const before = vectorIndexCounters.cellSearches;
    for (const [id, vector] of vectors) {
      const got = await store.nearest(USER, vector, {}, 3, NOW);
      expect(got[0]?.memory.id).toBe(id);
      expect(new Set(got.map((h) => h.memory.id)).size).toBe(got.length);
    }
    expect(vectorIndexCounters.cellSearches - before).toBe(vectors.size);
  });
});

describe("VectorCells bookkeeping", () => {
  test("the cells' members are exactly the assigned slots through every change of the slots, assignment in chunks included", () => {
    const dim = 16;
    const cellCount = 9;
    let capacity = 64;
    const quantized = new Quantized(kernelFor(dim), dim, capacity);
    const centroids = new Float64Array(cellCount * dim);
    for (let c = 0; c < cellCount; c++) centroids.set(unitOf(centers[c]!), c * dim);
    // every cell probed: probe lists every member
    const fresh = () => new VectorCells(centroids, dim, quantized, capacity, rows.length, () => 0, cellCount);
    const rows: Float32Array[] = []; // slot → unit vector, as the wallet keeps them
    let cells: VectorCells | null = null;
    const put = (slot: number, vector: Float32Array, replacing: boolean) => {
      rows[slot] = vector;
      quantized.set(slot, vector);
      cells?.put(slot, vector, replacing);
    };
    // a wallet with rows when its cells are made (as when they are built, or built again), assigned in small chunks
    for (let slot = 0; slot < 40; slot++) put(slot, Float32Array.from(unitOf(clustered())), false);
    cells = fresh();
    let partial = 0;
    // every member listed once, with its own row's int8 score (the cells' copy of its row is current)
    const check = (label: string) => {
      const query = unitOf(clustered());
      const found = cells!.search(query);
      const members = [...found.slots].sort((a, b) => a - b);
      const assigned = Array.from({ length: Math.min(cells!.assignedTo, rows.length) }, (_, slot) => slot);
      expect({ label, members }).toEqual({ label, members: assigned });
      const own = quantized.scan(query, { from: 0, to: rows.length }).scores;
      const wrong = [...found.slots].filter((slot, i) => found.scores[i] !== own[slot]);
      expect({ label, wrong }).toEqual({ label, wrong: [] });
    };
    for (let step = 0; step < 3000; step++) {
      if (step === 1500) cells = fresh();
      if (cells.assignedTo < rows.length) partial++;
      const op = rng();
      if (rows.length === capacity) {
        capacity *= 2;
        quantized.reserve(capacity, rows.length);
        cells.reserve(capacity);
      }
      if (op < 0.45 || rows.length < 4) put(rows.length, Float32Array.from(unitOf(clustered())), false);
      else if (op < 0.6) put(Math.floor(rng() * rows.length), Float32Array.from(unitOf(clustered())), true);
      else if (op < 0.9) {
        const slot = Math.floor(rng() * rows.length);
        const last = rows.length - 1;
        if (slot !== last) {
          rows[slot] = rows[last]!;
          quantized.move(last, slot);
        }
        rows.pop();
        cells.delete(slot, last, () => rows[slot]!);
      } else cells.assignRange(Math.min(rows.length, cells.assignedTo + 1 + Math.floor(rng() * 12)));
      check(`step ${step}`);
    }
    expect(cells.assignedTo).toBeGreaterThan(100);
    expect(partial).toBeGreaterThan(200); // most changes above met cells still being assigned
  });
});
