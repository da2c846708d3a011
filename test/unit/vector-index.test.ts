/**
 * The embedded engine's vector index (src/store/sqlite/vector-index.ts) against a brute-force
 * reference computed here: plain f64 cosine over the vectors this file inserted, with the filter
 * semantics of the MemoryFilter port (namespace, session, agent, type, tags any-match, strict
 * created_after/before, pinned, expiry at `now`, soft-deleted excluded), nearest first, ties by rowid.
 *
 * Everything goes through SqliteStore on a temp dir with seeded random vectors of a small dimension
 * (no embedding model). Users below KERNEL_MIN_ROWS rows are answered by the exact JS scan, users from
 * it on by the int8 WASM kernel with exact rescoring; both are exercised, including the second pass.
 *
 * The index ranks by the cosine with each row's 16-bit fixed-point direction (fixed-point.ts: x_i =
 * round(v_i · 32767 / max|v|), direction x / ‖x‖). The reference models that representation here, from
 * its documented definition, and ranks by it in f64; returned ids must equal its ranking exactly.
 * Float rounding still separates the two computations by ~1e-15, and the int8 rounding slack by less
 * than 1e-5 of bound: a query whose reference ranking (up to k) has two distinct distances closer than
 * SEPARATION is redrawn. Exact ties (identical or power-of-two-scaled embeddings, zero vectors) are
 * kept: the index must break them by rowid, as the reference does. Every returned similarity is also
 * checked against the true f64 cosine, within the bound fixed-point.ts documents.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { prng } from "../../scripts/bench/synthetic";
import { dbOf, matchesFilter } from "../helpers/store-reference";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newMemory, type Memory, type MemoryType } from "../../src/domain/memory";
import { cosine } from "../../src/domain/text";
import type { MemoryFilter, StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { VectorIndex, vectorIndexCounters } from "../../src/store/sqlite/vector-index";
import { KERNEL_MAX_PAGES, kernelFor, referenceGather, referenceScores } from "../../src/store/sqlite/vector-kernel";
import { LAYOUT_WORDS, scanThread, withLayoutLock } from "../../src/store/sqlite/scan-thread";
import { fixedPointCosine, toFixedPoint } from "../../src/store/sqlite/fixed-point";
import type { FilterIds } from "../../src/store/sqlite/slot-filter";
import { CREATED, EXPIRES, FACTOR, HAS_VECTOR, NAMESPACE, PINNED, ROWID, SESSION, slotColumns, TAG_SET } from "../../src/store/sqlite/slot-columns";

const D = 20; // not a multiple of 8: the kernel's zero padding is exercised too
const MODEL = { id: "test-random-vectors", dimension: D };
/** vector-index.ts: users with at least this many cached rows are scanned by the int8 kernel. */
const KERNEL_MIN_ROWS = 2048;
/** vector-index.ts: a user whose pending changes exceed this many rows (at < 4096 rows) is reloaded, not patched. */
const RELOAD_AT = 0.25 * 4096;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.parse("2025-06-01T00:00:00.000Z");
/** Reference distances closer than this (but not equal) are float near-ties: such queries are redrawn. */
const SEPARATION = 2.5e-7;
/** Returned similarity vs the reference's fixed-point cosine. */
const TOLERANCE = 1e-6;
/** fixed-point.ts: components are rounded at this full scale. */
const FULL_SCALE = 32767;
const KS = [1, 3, 10, 50, 200, 5000] as const;

const SMALL = "user-small"; // ~400 rows: exact scan
const BIG = "user-big"; // ~2600 rows: int8 kernel
const NAMESPACES = ["a", "b", "c"] as const;
const TYPES: MemoryType[] = ["general", "decision", "preference"];
const TAGS = ["x", "y", "z", "w"] as const;

// ---------------------------------------------------------------------------------------------
// seeded randomness

const rng = prng(20250601);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const gauss = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const iso = (ms: number) => new Date(ms).toISOString();

function gaussVector(dim = D): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = gauss();
  return v;
}
function unitVector(): Float32Array {
  const v = gaussVector();
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}
function around(center: Float32Array, sigma: number): Float32Array {
  return center.map((x) => x + sigma * gauss());
}
const CENTERS = Array.from({ length: 6 }, unitVector);
/** A tight cluster (BIG and GROW users): many candidates within the int8 error bound, forcing the second pass. */
const TIGHT = unitVector();

/** A stored row's embedding: clustered, 1% all zeros. */
function rowVector(): Float32Array {
  if (rng() < 0.01) return new Float32Array(D);
  return around(pick(CENTERS), 0.2);
}

// ---------------------------------------------------------------------------------------------
// the model: what the test inserted, and the reference search over it

interface Row {
  memory: Memory;
  rowid: number;
  vector: Float32Array;
}
type Model = Map<string, Row>;
const model: Model = new Map();

let seq = 0;
function makeMemory(userId: string, over: Partial<Memory> = {}): Memory {
  const created = iso(NOW - Math.floor(rng() * 100) * DAY);
  const roll = rng();
  const metadata = roll < 0.4 ? {} : roll < 0.5 ? { tags: [] } : { tags: [pick(TAGS), pick(["x", "w", "v"])] };
  seq++;
  return newMemory(
    {
      id: `mem-${String(seq).padStart(6, "0")}`,
      user_id: userId,
      namespace: pick(NAMESPACES),
      content: `memory ${seq}`,
      metadata,
      memory_type: pick(TYPES),
      session_id: rng() < 0.5 ? null : pick(["s1", "s2"]),
      agent_id: rng() < 0.5 ? null : pick(["g1", "g2"]),
      pinned: rng() < 0.2,
      expires_at: rng() < 0.15 ? iso(NOW + pick([-1, 1, 3]) * DAY) : null,
      ...over,
    },
    created,
  );
}

interface Expected {
  id: string;
  rowid: number;
  /** 1 − the cosine with the row's fixed-point direction (what the index ranks by) */
  distance: number;
  /** 1 − the f64 cosine with the row's own vector */
  trueDistance: number;
  /** how far the two may be apart: √dim · max|v_i| / (32767 ‖v‖) */
  bound: number;
}

/** The row's direction in the index's 16-bit fixed point: round(v_i · 32767 / max|v|) (zero stays zero). */
function fixedPoint(vector: Float32Array): number[] {
  const max = Math.max(...Array.from(vector, Math.abs));
  return Array.from(vector, (x) => (max > 0 ? Math.round((x * FULL_SCALE) / max) : 0));
}

const matches = matchesFilter;

/** Every matching row of the user, nearest first (ties by rowid). Rows of another dimension never match. */
function reference(rows: Model, userId: string, query: Float32Array, filter: MemoryFilter, now: number): Expected[] {
  const out: Expected[] = [];
  for (const { memory, rowid, vector } of rows.values()) {
    if (memory.user_id !== userId || vector.length !== query.length || !matches(memory, filter, now)) continue;
    const norm = Math.hypot(...vector);
    const bound = norm === 0 ? 0 : (Math.sqrt(vector.length) * Math.max(...Array.from(vector, Math.abs))) / (FULL_SCALE * norm);
    out.push({ id: memory.id, rowid, distance: 1 - cosine(query, fixedPoint(vector)), trueDistance: 1 - cosine(query, vector), bound });
  }
  return out.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
}

/** Position of a float32 near-tie within the first k (+ the boundary), or -1. Exact ties are fine. */
function nearTieAt(full: Expected[], k: number): number {
  for (let i = 0; i < Math.min(k, full.length - 1); i++) {
    const gap = full[i + 1]!.distance - full[i]!.distance;
    if (gap !== 0 && gap < SEPARATION) return i;
  }
  return -1;
}

function describeCase(userId: string, filter: MemoryFilter, k: number, now: number, extra = ""): string {
  return `${userId} k=${k} now=${now === NOW ? "NOW" : iso(now)} filter=${JSON.stringify(filter)}${extra ? ` ${extra}` : ""}`;
}

/** Asserts one search: exact ids in order, similarities within TOLERANCE. Returns how many rows matched. */
async function expectNearest(
  store: SqliteStore,
  rows: Model,
  userId: string,
  query: Float32Array,
  filter: MemoryFilter,
  k: number,
  now = NOW,
  label = describeCase(userId, filter, k, now),
): Promise<number> {
  const full = reference(rows, userId, query, filter, now);
  expect({ label, nearTieAt: nearTieAt(full, k) }).toEqual({ label, nearTieAt: -1 });
  const want = full.slice(0, k);
  const got = await store.nearest(userId, query, filter, k, now);
  expect({ label, ids: got.map((h) => h.memory.id) }).toEqual({ label, ids: want.map((e) => e.id) });
  let worst = 0;
  let beyondBound = 0;
  got.forEach((hit, i) => {
    worst = Math.max(worst, Math.abs(hit.similarity - (1 - want[i]!.distance)));
    beyondBound = Math.max(beyondBound, Math.abs(hit.similarity - (1 - want[i]!.trueDistance)) - want[i]!.bound - TOLERANCE);
  });
  expect({ label, worst: worst < TOLERANCE, beyondBound: beyondBound <= 0 }).toEqual({ label, worst: true, beyondBound: true });
  return full.length;
}

function liveRows(rows: Model, userId: string): Row[] {
  return [...rows.values()].filter((r) => r.memory.user_id === userId && r.memory.deleted_at === null && r.vector.length === D);
}

/** A query: near a cluster, a stored row's own vector, its opposite, the tight cluster, or anywhere. */
function queryVector(rows: Model, userId: string): Float32Array {
  const roll = rng();
  if (roll < 0.4) return around(pick(CENTERS), 0.1);
  if (roll < 0.6) {
    const live = liveRows(rows, userId);
    if (live.length > 0) return pick(live).vector.slice();
  }
  if (roll < 0.7) {
    const live = liveRows(rows, userId);
    if (live.length > 0) return pick(live).vector.map((x) => -x);
  }
  if (roll < 0.8) return around(TIGHT, 0.02);
  return gaussVector();
}

function randomFilter(): MemoryFilter {
  const f: MemoryFilter = {};
  if (rng() < 0.3) f.namespace = pick(["a", "b", "c", "moved", "nope"]);
  if (rng() < 0.25) f.session_id = pick(["s1", "s2", "nope"]);
  if (rng() < 0.25) f.agent_id = pick(["g1", "g2"]);
  if (rng() < 0.25) f.memory_type = pick<MemoryType>(["general", "decision", "preference", "correction"]);
  if (rng() < 0.25) f.tags = pick([["x"], ["y", "z"], ["w", "nope"], ["v"], ["nope"], []]);
  if (rng() < 0.2) f.pinned = rng() < 0.5;
  if (rng() < 0.2) f.created_after = iso(NOW - pick([30, 50, 99]) * DAY);
  if (rng() < 0.2) f.created_before = iso(NOW - pick([0, 20, 60]) * DAY);
  return f;
}

interface Case {
  userId: string;
  filter: MemoryFilter;
  k: number;
  now: number;
}

/** Draws a query for the case (redrawing near-ties), asserts it; returns how many rows matched. */
async function checkCase(
  store: SqliteStore,
  rows: Model,
  c: Case,
  extra = "",
  draw: () => Float32Array = () => queryVector(rows, c.userId),
): Promise<{ matched: number; redrawn: number }> {
  let redrawn = 0;
  for (;;) {
    const query = draw();
    const full = reference(rows, c.userId, query, c.filter, c.now);
    if (nearTieAt(full, c.k) >= 0 && redrawn < 50) {
      redrawn++;
      continue;
    }
    const matched = await expectNearest(store, rows, c.userId, query, c.filter, c.k, c.now, describeCase(c.userId, c.filter, c.k, c.now, extra));
    return { matched, redrawn };
  }
}

/** `n` seeded random cases over the users; returns how often k exceeded the matching set. */
async function randomChecks(store: SqliteStore, rows: Model, users: string[], n: number, label: string): Promise<{ kOverMatched: number; checks: number }> {
  let kOverMatched = 0;
  for (let i = 0; i < n; i++) {
    const c: Case = { userId: pick(users), filter: randomFilter(), k: pick(KS), now: rng() < 0.8 ? NOW : NOW + 2 * DAY };
    const { matched } = await checkCase(store, rows, c, `${label} #${i}`);
    if (c.k > matched) kOverMatched++;
  }
  return { kOverMatched, checks: n };
}

// ---------------------------------------------------------------------------------------------
// writes: through a store, mirrored into a model


/** Reads the rowids the store assigned (through the given connection, so it sees its own transaction). */
function record(db: Database, rows: Model, items: { memory: Memory; vector: Float32Array }[]): void {
  const rowidOf = db.query("select rowid from memories where id = ?");
  for (const { memory, vector } of items) {
    const found = rowidOf.get(memory.id) as { rowid: number } | null;
    if (!found) throw new Error(`not stored: ${memory.id}`);
    rows.set(memory.id, { memory, vector, rowid: found.rowid });
  }
}

const stored = (items: { memory: Memory; vector: Float32Array }[]): StoredMemory[] =>
  items.map(({ memory, vector }) => ({ memory, embedding: vector, content_hash: `hash-${memory.id}` }));

async function insert(store: SqliteStore, rows: Model, items: { memory: Memory; vector: Float32Array }[]): Promise<void> {
  await store.insertMemories(stored(items));
  record(dbOf(store), rows, items);
}

function randomItems(userId: string, n: number, vector: () => Float32Array = rowVector, over: () => Partial<Memory> = () => ({})) {
  return Array.from({ length: n }, () => ({ memory: makeMemory(userId, over()), vector: vector() }));
}

/** The store call runs synchronously (no awaits inside), so this also works inside a db.transaction callback. */
function updateSync(store: SqliteStore, rows: Model, id: string, patch: Partial<Memory>, vector?: Float32Array): void {
  const row = rows.get(id)!;
  const memory: Memory = { ...row.memory, ...patch, updated_at: iso(NOW) };
  void store.updateMemory(memory.user_id, { memory, embedding: vector });
  rows.set(id, { ...row, memory, vector: vector ?? row.vector });
}

function softDeleteSync(store: SqliteStore, rows: Model, userId: string, ids: string[], now = NOW): void {
  void store.softDelete(userId, ids, now);
  for (const id of ids) {
    const row = rows.get(id);
    if (row && row.memory.user_id === userId && row.memory.deleted_at === null) {
      rows.set(id, { ...row, memory: { ...row.memory, deleted_at: iso(now), updated_at: iso(now) } });
    }
  }
}

/** A random filter-column change (namespace move, pin flip, tags, type, scope, expiry), sometimes a new embedding. */
function randomUpdate(store: SqliteStore, rows: Model, row: Row): void {
  const patch: Partial<Memory> = {};
  const roll = rng();
  if (roll < 0.3) patch.namespace = pick(["a", "b", "c", "moved"]);
  else if (roll < 0.45) patch.pinned = !row.memory.pinned;
  else if (roll < 0.6) patch.metadata = rng() < 0.3 ? {} : { tags: [pick(TAGS)] };
  else if (roll < 0.7) patch.memory_type = pick<MemoryType>(["general", "decision", "correction"]);
  else if (roll < 0.8) Object.assign(patch, { session_id: pick([null, "s1", "s2"]), agent_id: pick([null, "g1", "g2"]) });
  else patch.expires_at = pick([null, iso(NOW - HOUR), iso(NOW + DAY)]);
  updateSync(store, rows, row.memory.id, patch, rng() < 0.5 ? rowVector() : undefined);
}

// ---------------------------------------------------------------------------------------------

let dir: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "engram-vector-index-"));
  // BIG's unfiltered searches go to the scan thread (by default only wallets of 16,384 rows do)
  store = new SqliteStore(dir, { vectorIndex: { offloadMinRows: KERNEL_MIN_ROWS } });
  await store.bindEmbeddingModel(MODEL);
  // rows embedded at another dimension (a model change in progress) are never returned
  const otherDimension = () => gaussVector(D + 4);
  await insert(store, model, [...randomItems(SMALL, 400), ...randomItems(SMALL, 3, otherDimension)]);
  await insert(store, model, [...randomItems(BIG, 2300), ...randomItems(BIG, 300, () => around(TIGHT, 0.03)), ...randomItems(BIG, 3, otherDimension)]);
  expect(liveRows(model, SMALL).length).toBeLessThan(KERNEL_MIN_ROWS);
  expect(liveRows(model, BIG).length).toBeGreaterThan(KERNEL_MIN_ROWS);
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("vector index: SqliteStore.nearest equals a brute-force cosine scan", () => {
  test("no filter, every k, on the exact path (below KERNEL_MIN_ROWS) and the int8 kernel path", async () => {
    const before = { ...vectorIndexCounters };
    for (const userId of [SMALL, BIG]) {
      for (const k of KS) {
        for (let i = 0; i < 4; i++) await checkCase(store, model, { userId, filter: {}, k, now: NOW });
      }
    }
    // the tight cluster: more than k + 64 candidates inside the int8 error bound, so the second pass must run
    for (const k of [1, 10, 40]) {
      for (let i = 0; i < 3; i++) await checkCase(store, model, { userId: BIG, filter: {}, k, now: NOW }, "tight", () => around(TIGHT, 0.02));
    }
    expect(vectorIndexCounters.searches).toBeGreaterThan(before.searches);
    expect(vectorIndexCounters.secondPasses).toBeGreaterThan(before.secondPasses);
    expect(vectorIndexCounters.offloadedScans).toBeGreaterThan(before.offloadedScans); // BIG's, by the scan thread
    expect(vectorIndexCounters.sqlScans).toBe(before.sqlScans); // answered from the cache, not SQL
  });

  test("searches asked together: a search asked while the scan thread is idle splits the rows with the main thread, the ones asked while it is busy go to it whole; every answer is exact", async () => {
    const queries: Float32Array[] = [];
    while (queries.length < 12) {
      const q = queryVector(model, BIG);
      if (nearTieAt(reference(model, BIG, q, {}, NOW), 10) < 0) queries.push(q);
    }
    const offloaded = vectorIndexCounters.offloadedScans;
    const answers = await Promise.all(queries.map((q) => store.nearest(BIG, q, {}, 10, NOW)));
    expect(vectorIndexCounters.offloadedScans - offloaded).toBe(queries.length);
    queries.forEach((q, i) => expect(answers[i]!.map((h) => h.memory.id)).toEqual(reference(model, BIG, q, {}, NOW).slice(0, 10).map((e) => e.id)));
  });

  test("unfiltered searches skip the per-row filter only while no row has expired and every row has a vector", async () => {
    const user = "user-no-filter";
    const otherDimension = () => gaussVector(D + 4);
    const soon = randomItems(user, 1, rowVector, () => ({ expires_at: iso(NOW + DAY) }));
    const vectorless = randomItems(user, 2, otherDimension, () => ({ expires_at: null }));
    await insert(store, model, [...randomItems(user, 300, rowVector, () => ({ expires_at: null })), ...soon, ...vectorless]);
    const all = { userId: user, filter: {}, k: 5000 };
    await checkCase(store, model, { ...all, now: NOW }, "rows without a vector are left out");
    await checkCase(store, model, { ...all, now: NOW + 2 * DAY }, "the expired row is left out");
    updateSync(store, model, soon[0]!.memory.id, { expires_at: iso(NOW + 5 * DAY) });
    await checkCase(store, model, { ...all, now: NOW + 2 * DAY }, "its expiry moved later: back in");
    await checkCase(store, model, { ...all, now: NOW + 6 * DAY }, "and out again");
    softDeleteSync(store, model, user, vectorless.map((v) => v.memory.id));
    await checkCase(store, model, { ...all, now: NOW }, "no row without a vector left");
    const listed = await store.listMemories(user, {}, { limit: 100, offset: 0 }, NOW + 6 * DAY);
    expect(listed.total).toBe(300); // neither the expired row nor the deleted ones
  });

  test("degenerate calls: k = 0, a query of another dimension, an unknown user", async () => {
    const q = unitVector();
    expect(await store.nearest(SMALL, q, {}, 0, NOW)).toEqual([]);
    expect(await store.nearest(BIG, gaussVector(D + 4), {}, 10, NOW)).toEqual([]);
    expect(await store.nearest("user-nobody", q, {}, 10, NOW)).toEqual([]);
    await expectNearest(store, model, "user-nobody", q, { namespace: "a" }, 10);
  });

  test("each filter alone, with present and absent values", async () => {
    const filters: MemoryFilter[] = [
      { namespace: "a" },
      { namespace: "nope" },
      { session_id: "s1" },
      { session_id: "nope" },
      { agent_id: "g2" },
      { memory_type: "decision" },
      { memory_type: "correction" }, // no row has it
      { tags: ["x"] },
      { tags: ["v"] }, // only ever a second tag
      { tags: ["w", "nope"] }, // any-match
      { tags: ["nope"] },
      { tags: [] }, // no tag filter
      { pinned: true },
      { pinned: false },
      { created_after: iso(NOW - 50 * DAY) }, // strict: rows created exactly then are out
      { created_before: iso(NOW - 20 * DAY) },
      { created_after: iso(NOW - 30 * DAY), created_before: iso(NOW - 30 * DAY) }, // empty
      { created_after: iso(NOW + DAY) },
    ];
    const offloaded = vectorIndexCounters.offloadedScans;
    for (const userId of [SMALL, BIG]) {
      for (const filter of filters) {
        for (const k of [1, 10, 300]) {
          for (let i = 0; i < 2; i++) await checkCase(store, model, { userId, filter, k, now: NOW });
        }
      }
    }
    // BIG's searches ran on the scan thread (their filter evaluated there), but for the 4 filters with a
    // value no row has (answered at once)
    expect(vectorIndexCounters.offloadedScans - offloaded).toBe((filters.length - 4) * 3 * 2);
  });

  test("filters combined (seeded random), with k often larger than the matching set", async () => {
    const { kOverMatched, checks } = await randomChecks(store, model, [SMALL, BIG], 200, "combined");
    expect(kOverMatched).toBeGreaterThan(checks / 4);
    expect(kOverMatched).toBeLessThan(checks);
  });

  test("expiry is evaluated at each search's `now` (expired exactly at expires_at)", async () => {
    for (const userId of [SMALL, BIG]) {
      // 24 rows near one direction, expiring hourly from NOW + 1h
      const target = unitVector();
      const items = Array.from({ length: 24 }, (_, h) => ({
        memory: makeMemory(userId, { expires_at: iso(NOW + (h + 1) * HOUR) }),
        vector: around(target, 0.05),
      }));
      await insert(store, model, items);
      for (const now of [NOW - 5 * DAY, NOW, NOW + HOUR, NOW + HOUR + 1, NOW + 12 * HOUR - 1, NOW + 12 * HOUR, NOW + 24 * HOUR, NOW + 10 * DAY]) {
        for (const k of [1, 5, 30]) await expectNearest(store, model, userId, target, {}, k, now);
        await expectNearest(store, model, userId, target, { pinned: false }, 30, now);
      }
      for (let i = 0; i < 10; i++) await checkCase(store, model, { userId, filter: randomFilter(), k: pick(KS), now: NOW + pick([-2, 2, 4]) * DAY });
    }
  });

  test("a zero query is equally far from everything: the k matching rows with the lowest rowids", async () => {
    const zero = new Float32Array(D);
    for (const userId of [SMALL, BIG]) {
      for (const filter of [{}, { namespace: "b" }, { tags: ["y"], pinned: false }] as MemoryFilter[]) {
        for (const k of [1, 10, 100]) await expectNearest(store, model, userId, zero, filter, k);
      }
    }
    // zero rows are at distance 1 from any query, tied among themselves
    expect(liveRows(model, SMALL).some((r) => r.vector.every((x) => x === 0))).toBe(true);
  });

  /** 150 copies of one embedding (a third scaled by 2) among random rows, created_at running against rowid. */
  async function checkDuplicates(userId: string, filler: number): Promise<void> {
    const base = unitVector();
    // load order follows created_at, so slot order is the reverse of rowid order for the copies
    const copies = Array.from({ length: 150 }, (_, i) => ({
      memory: makeMemory(userId, { created_at: iso(NOW - DAY - i * HOUR), namespace: i % 2 === 0 ? "a" : "b" }),
      vector: i % 3 === 0 ? base.map((x) => x * 2) : base.slice(),
    }));
    await insert(store, model, [...randomItems(userId, filler / 2), ...copies, ...randomItems(userId, filler / 2)]);
    for (const query of [base, base.map((x) => x * 0.5)]) {
      for (const k of [1, 5, 64, 65, 100, 150, 151, 400]) {
        await expectNearest(store, model, userId, query, {}, k, NOW, `${userId} duplicates k=${k}`);
        await expectNearest(store, model, userId, query, { namespace: "b" }, k, NOW, `${userId} duplicates ns=b k=${k}`);
      }
    }
  }

  /**
   * Production-like: created_at rising with rowid, `ordinary` rows pointing away from the query and 100
   * all-zero embeddings after them (the embedder's vector for text of only unknown words), so the zero rows
   * are the nearest, all at distance 1. Deleting 70 ordinary rows while the user is cached moves the newest
   * rows into the freed slots (swap-remove).
   */
  async function checkZeroTies(userId: string, ordinary: number): Promise<void> {
    const query = unitVector();
    const start = NOW - 90 * DAY;
    let i = 0;
    const next = (vector: Float32Array) => ({ memory: makeMemory(userId, { created_at: iso(start + i++ * 1000), expires_at: null }), vector });
    const away = Array.from({ length: ordinary }, () => next(around(query.map((x) => -x), 0.2)));
    const zeros = Array.from({ length: 100 }, () => next(new Float32Array(D)));
    await insert(store, model, [...away, ...zeros]);
    for (const k of [1, 5, 100]) await expectNearest(store, model, userId, query, {}, k, NOW, `${userId} zero rows, fresh load, k=${k}`);
    softDeleteSync(store, model, userId, away.slice(0, 70).map((r) => r.memory.id));
    for (const k of [1, 5, 100]) await expectNearest(store, model, userId, query, {}, k, NOW, `${userId} zero rows, after deletes, k=${k}`);
  }

  test("exact ties (identical or power-of-two-scaled embeddings) are broken by rowid: int8 kernel path", async () => {
    await checkDuplicates("user-dup-big", KERNEL_MIN_ROWS + 100);
  });

  test("zero embeddings tie at distance 1, broken by rowid after deletes reorder the cache: int8 kernel path", async () => {
    await checkZeroTies("user-zero-big", KERNEL_MIN_ROWS + 100);
  });

  // Regression: with more than k + 64 rows tied at the k-th distance, the exact path used to return
  // the lowest rowids of an arbitrary subset of them (no second pass when its error bound was 0).
  test("exact ties (identical or power-of-two-scaled embeddings) are broken by rowid: exact path", async () => {
    await checkDuplicates("user-dup-small", 200);
  });

  test("zero embeddings tie at distance 1, broken by rowid after deletes reorder the cache: exact path", async () => {
    await checkZeroTies("user-zero-small", 200);
  });

  test("with a minimum similarity, the hits at or above it are those of the full search: same rows, order and cosines", async () => {
    // 150 copies of one embedding (exact ties, broken by rowid), and rows close to it
    const base = unitVector();
    for (const userId of ["user-min-small", "user-min-big"]) {
      const copies = randomItems(userId, 150, () => base.slice());
      const close = randomItems(userId, 200, () => around(base, 0.05));
      await insert(store, model, [...randomItems(userId, userId.endsWith("big") ? KERNEL_MIN_ROWS : 300), ...copies, ...close]);
    }
    let pruned = 0;
    let within = 0;
    const namespaceScans = vectorIndexCounters.namespaceScans;
    for (const userId of [SMALL, BIG, "user-min-small", "user-min-big"]) {
      for (let i = 0; i < 40; i++) {
        const live = liveRows(model, userId);
        const roll = rng();
        // a stored row's vector, nudged: a few rows are close to it, as for a new memory's near-duplicates
        const query = roll < 0.5 ? around(pick(live).vector, 0.02) : roll < 0.7 ? around(base, 0.01) : roll < 0.8 ? around(TIGHT, 0.02) : queryVector(model, userId);
        const roll2 = rng();
        const filter = roll2 < 0.3 ? {} : roll2 < 0.6 ? { namespace: pick([...NAMESPACES, "nope"]) } : randomFilter();
        const k = pick([1, 5, 10, 100]);
        const min = pick([0.95, 0.99, 0.9, 0.5, 0, -1]);
        const above = (hits: { memory: { id: string }; similarity: number }[]) => hits.filter((h) => h.similarity >= min).map((h) => [h.memory.id, h.similarity]);
        const full = await store.nearest(userId, query, filter, k, NOW);
        const counted = vectorIndexCounters.withinMinimum;
        const got = await store.nearest(userId, query, filter, k, NOW, min);
        within += vectorIndexCounters.withinMinimum - counted;
        const label = describeCase(userId, filter, k, NOW, `min ${min} #${i}`);
        expect({ label, hits: above(got) }).toEqual({ label, hits: above(full) });
        if (got.length < full.length) pruned++;
      }
    }
    expect(pruned).toBeGreaterThan(20); // rows below the minimum were left out…
    expect(within).toBeGreaterThan(40); // …by the pruned search
    expect(within).toBeLessThan(160); // and too many rows near a low minimum sent the others to the top-k search
    expect(vectorIndexCounters.namespaceScans - namespaceScans).toBeGreaterThan(10); // a namespace's rows scored alone
  });

  test("updates: namespace moves, pin flips, tag/type/scope/expiry changes, new embeddings (patched in place)", async () => {
    for (const userId of [SMALL, BIG]) await checkCase(store, model, { userId, filter: {}, k: 10, now: NOW }); // both loaded
    const loads = vectorIndexCounters.loads;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 60; i++) randomUpdate(store, model, pick(liveRows(model, pick([SMALL, BIG]))));
      await randomChecks(store, model, [SMALL, BIG], 30, `updates round ${round}`);
      // the moved rows are found under their new namespace, and by their new embedding
      for (const userId of [SMALL, BIG]) {
        const moved = liveRows(model, userId).filter((r) => r.memory.namespace === "moved");
        expect(moved.length).toBeGreaterThan(0);
        await expectNearest(store, model, userId, pick(moved).vector, { namespace: "moved" }, 500);
        await expectNearest(store, model, userId, pick(moved).vector, {}, 5);
      }
    }
    expect(vectorIndexCounters.loads).toBe(loads); // pending rows were patched, not reloaded
  });

  test("many updates at once reload the user instead of patching, with the same answers", async () => {
    const loads = vectorIndexCounters.loads;
    const rows = liveRows(model, BIG).slice(0, RELOAD_AT + 50);
    for (const row of rows) updateSync(store, model, row.memory.id, { namespace: pick(["a", "moved"]) }, rng() < 0.3 ? rowVector() : undefined);
    await randomChecks(store, model, [BIG], 30, "after mass update");
    expect(vectorIndexCounters.loads).toBe(loads + 1);
  });

  test("soft delete removes rows at once; updateMemory can delete and restore", async () => {
    for (const userId of [SMALL, BIG]) {
      const live = liveRows(model, userId);
      const victims = Array.from({ length: 40 }, () => pick(live).memory.id);
      softDeleteSync(store, model, userId, victims);
      // a deleted row's own vector finds the others, not it
      for (const id of victims.slice(0, 5)) await expectNearest(store, model, userId, model.get(id)!.vector, {}, 5);
      // soft delete of another user's memory is a no-op
      softDeleteSync(store, model, userId === SMALL ? BIG : SMALL, [pick(liveRows(model, userId)).memory.id]);
      // delete through updateMemory, and restore a soft-deleted row through it
      const dropped = pick(liveRows(model, userId));
      updateSync(store, model, dropped.memory.id, { deleted_at: iso(NOW) });
      const restored = model.get(victims[0]!)!;
      updateSync(store, model, restored.memory.id, { deleted_at: null });
      await expectNearest(store, model, userId, dropped.vector, {}, 3);
      await expectNearest(store, model, userId, restored.vector, {}, 3);
      expect(model.get(restored.memory.id)!.memory.deleted_at).toBeNull();
    }
    await randomChecks(store, model, [SMALL, BIG], 40, "after deletes");
  });

  test("a rolled-back transaction leaves the index at the committed state", async () => {
    for (const userId of [SMALL, BIG]) await checkCase(store, model, { userId, filter: {}, k: 10, now: NOW }); // loaded: writes mark rows pending
    const db = dbOf(store);

    // (a) a batch insert failing part-way (duplicate id) rolls back the rows it already inserted
    for (const userId of [SMALL, BIG]) {
      const fresh = randomItems(userId, 3, unitVector);
      const clash = { memory: makeMemory(userId, { id: pick(liveRows(model, userId)).memory.id }), vector: unitVector() };
      await expect(store.insertMemories(stored([...fresh, clash]))).rejects.toThrow();
      const present = db.query(`select count(*) as n from memories where id in (?, ?, ?)`).get(...fresh.map((f) => f.memory.id)) as { n: number };
      expect(present.n).toBe(0);
      for (const f of fresh) await expectNearest(store, model, userId, f.vector, {}, 5);
    }

    // (b) writes through the store inside an outer transaction, searched inside it (SQL path), then rolled back
    const staged: Model = new Map(model);
    const inside: { got: ReturnType<SqliteStore["nearest"]>; want: Expected[]; label: string }[] = [];
    const sqlScans = vectorIndexCounters.sqlScans;
    const probes: Float32Array[] = [];
    expect(() =>
      db.transaction(() => {
        for (const userId of [SMALL, BIG]) {
          const fresh = randomItems(userId, 5, unitVector, () => ({ namespace: "tx" }));
          void store.insertMemories(stored(fresh));
          record(db, staged, fresh);
          for (let i = 0; i < 20; i++) {
            const row = pick(liveRows(staged, userId));
            const vector = unitVector();
            probes.push(vector, row.vector);
            updateSync(store, staged, row.memory.id, { namespace: "tx", pinned: !row.memory.pinned }, vector);
          }
          const victims = liveRows(staged, userId).slice(0, 30).map((r) => r.memory.id);
          for (const id of victims) probes.push(staged.get(id)!.vector);
          softDeleteSync(store, staged, userId, victims);
          for (const [query, filter] of [
            [fresh[0]!.vector, {}],
            [probes.at(-1)!, {}],
            [probes[0]!, { namespace: "tx" }],
            [around(TIGHT, 0.02), {}],
          ] as [Float32Array, MemoryFilter][]) {
            const label = `inside transaction ${userId} ${JSON.stringify(filter)}`;
            inside.push({ got: store.nearest(userId, query, filter, 10, NOW), want: reference(staged, userId, query, filter, NOW).slice(0, 10), label });
          }
        }
        throw new Error("roll back");
      })(),
    ).toThrow("roll back");
    expect(vectorIndexCounters.sqlScans).toBe(sqlScans + inside.length);
    for (const { got, want, label } of inside) {
      expect({ label, ids: (await got).map((h) => h.memory.id) }).toEqual({ label, ids: want.map((e) => e.id) });
    }
    // committed state: nothing of the above
    for (const userId of [SMALL, BIG]) {
      await expectNearest(store, model, userId, unitVector(), { namespace: "tx" }, 50);
      for (const probe of probes.slice(0, 40)) await expectNearest(store, model, userId, probe, {}, 5);
    }
    await randomChecks(store, model, [SMALL, BIG], 40, "after rollback");
  });

  test("writes by another connection are noticed (pragma data_version), even with own writes pending", async () => {
    for (const userId of [SMALL, BIG]) await checkCase(store, model, { userId, filter: {}, k: 10, now: NOW });
    // an own write, not yet applied to the cache (it is applied at the next search)
    const own = pick(liveRows(model, SMALL));
    updateSync(store, model, own.memory.id, { namespace: "c" }, unitVector());

    // raw writes behind the store's back
    const other = new Database(join(dir, "engram.sqlite"));
    other.exec("pragma busy_timeout = 5000");
    other.query("update memories set namespace = 'b' where user_id = ? and rowid % 7 = 0").run(SMALL);
    for (const row of model.values()) {
      if (row.memory.user_id === SMALL && row.rowid % 7 === 0) model.set(row.memory.id, { ...row, memory: { ...row.memory, namespace: "b" } });
    }
    const reembedded: Float32Array[] = [];
    for (const userId of [SMALL, BIG]) {
      const live = liveRows(model, userId);
      for (let i = 0; i < 15; i++) {
        const row = pick(live);
        const vector = unitVector();
        other.query("update memories set embedding = ? where rowid = ?").run(vector, row.rowid);
        model.set(row.memory.id, { ...model.get(row.memory.id)!, vector });
        reembedded.push(vector);
      }
      for (let i = 0; i < 10; i++) {
        const row = model.get(pick(live).memory.id)!;
        other.query("update memories set deleted_at = ? where rowid = ?").run(iso(NOW), row.rowid);
        model.set(row.memory.id, { ...row, memory: { ...row.memory, deleted_at: iso(NOW) } });
      }
      for (let i = 0; i < 10; i++) {
        const row = model.get(pick(live).memory.id)!;
        other.query("update memories set expires_at = ? where rowid = ?").run(iso(NOW - HOUR), row.rowid);
        model.set(row.memory.id, { ...row, memory: { ...row.memory, expires_at: iso(NOW - HOUR) } });
      }
    }
    other.close();
    for (const [i, vector] of reembedded.entries()) await expectNearest(store, model, i < 15 ? SMALL : BIG, vector, {}, 3);
    await expectNearest(store, model, SMALL, own.vector, {}, 3);
    await expectNearest(store, model, SMALL, model.get(own.memory.id)!.vector, {}, 3);
    await randomChecks(store, model, [SMALL, BIG], 40, "after raw writes from another connection");

    // a second store on the same file: each one's writes are seen by the other
    const second = new SqliteStore(dir);
    try {
      await second.bindEmbeddingModel(MODEL);
      await randomChecks(second, model, [SMALL, BIG], 10, "second store, before writes");
      const fresh = randomItems(BIG, 20, unitVector);
      await insert(second, model, fresh);
      for (let i = 0; i < 30; i++) randomUpdate(second, model, pick(liveRows(model, pick([SMALL, BIG]))));
      softDeleteSync(second, model, SMALL, liveRows(model, SMALL).slice(0, 10).map((r) => r.memory.id));
      for (const f of fresh.slice(0, 5)) await expectNearest(store, model, BIG, f.vector, {}, 3, NOW, "first store sees the second's insert");
      await randomChecks(store, model, [SMALL, BIG], 30, "first store after the second's writes");
      for (let i = 0; i < 30; i++) randomUpdate(store, model, pick(liveRows(model, pick([SMALL, BIG]))));
      await randomChecks(second, model, [SMALL, BIG], 30, "second store after the first's writes");
      await randomChecks(store, model, [SMALL, BIG], 10, "first store after its own writes");
    } finally {
      await second.close();
    }
  });

  test("a user crossing KERNEL_MIN_ROWS through patched inserts, then growing, deleting and re-embedding while quantized", async () => {
    const GROW = "user-grow";
    const tight = () => around(TIGHT, 0.03);
    const tightQuery = async (label: string) => {
      for (const k of [1, 10, 30]) await checkCase(store, model, { userId: GROW, filter: {}, k, now: NOW }, label, () => around(TIGHT, 0.02));
    };
    await insert(store, model, [...randomItems(GROW, 1850), ...randomItems(GROW, 150, tight)]);
    let passes = vectorIndexCounters.secondPasses;
    await tightQuery("2000 rows"); // loads the user: exact scan, no second pass
    await randomChecks(store, model, [GROW], 10, "2000 rows");
    expect(vectorIndexCounters.secondPasses).toBe(passes);
    const loads = vectorIndexCounters.loads;

    await insert(store, model, [...randomItems(GROW, 50), ...randomItems(GROW, 50, tight)]); // 2100: quantized while patching
    await tightQuery("2100 rows");
    expect(vectorIndexCounters.secondPasses).toBeGreaterThan(passes);
    await randomChecks(store, model, [GROW], 20, "2100 rows");

    await insert(store, model, [...randomItems(GROW, 450), ...randomItems(GROW, 50, tight)]); // 2600: past the initial capacity (2100): the arrays grow
    passes = vectorIndexCounters.secondPasses;
    await tightQuery("2600 rows");
    expect(vectorIndexCounters.secondPasses).toBeGreaterThan(passes);
    await randomChecks(store, model, [GROW], 20, "2600 rows");

    softDeleteSync(store, model, GROW, Array.from({ length: 300 }, () => pick(liveRows(model, GROW)).memory.id)); // slots move
    await tightQuery("after deletes");
    await randomChecks(store, model, [GROW], 20, "after deletes while quantized");

    for (let i = 0; i < 200; i++) randomUpdate(store, model, pick(liveRows(model, GROW)));
    await tightQuery("after updates");
    await randomChecks(store, model, [GROW], 20, "after updates while quantized");
    expect(vectorIndexCounters.loads).toBe(loads); // every change above was patched in
  });

  test("a VectorIndex with a small byte budget (another connection) evicts least recently searched users and stays exact", async () => {
    const db = new Database(join(dir, "engram.sqlite"));
    try {
      const users = [SMALL, BIG, "user-grow", "user-dup-big", "user-zero-big"];
      // the largest wallet's bytes, as an unbounded cache counts them: the budget holds it, not all
      const sizes = new VectorIndex(db);
      sizes.create(D);
      let largest = 0;
      for (const userId of users) {
        const before = sizes.cached().bytes;
        sizes.nearest(userId, new Float32Array(D).fill(1), {}, 1, NOW); // not drawn: the seeded stream stays as the tests below expect
        largest = Math.max(largest, sizes.cached().bytes - before);
      }
      const budget = Math.round(largest * 1.3);
      expect(sizes.cached().bytes).toBeGreaterThan(budget);
      const index = new VectorIndex(db, { maxCachedBytes: budget });
      index.create(D);
      const byRowid = new Map([...model.values()].map((r) => [r.rowid, r.memory.id]));
      const loads = vectorIndexCounters.loads;
      for (let i = 0; i < 40; i++) {
        const c: Case = { userId: pick(users), filter: randomFilter(), k: pick(KS), now: NOW };
        let query = queryVector(model, c.userId);
        let full = reference(model, c.userId, query, c.filter, c.now);
        while (nearTieAt(full, c.k) >= 0) {
          query = queryVector(model, c.userId);
          full = reference(model, c.userId, query, c.filter, c.now);
        }
        const label = describeCase(c.userId, c.filter, c.k, c.now, `budget #${i}`);
        const got = await index.nearest(c.userId, query, c.filter, c.k, c.now);
        expect({ label, ids: got.map((n) => byRowid.get(n.rowid)) }).toEqual({ label, ids: full.slice(0, c.k).map((e) => e.id) });
        expect(index.cached().bytes).toBeLessThanOrEqual(budget);
      }
      expect(vectorIndexCounters.loads - loads).toBeGreaterThan(users.length); // users were evicted and loaded again
    } finally {
      db.close();
    }
  });

  // near the end: it draws from the shared seeded stream, and the tests above expect theirs unchanged
  test("the scan thread's answer is dropped when the wallet's rows change while it scans: the search answers for the rows as changed", async () => {
    const before = { ...vectorIndexCounters };
    for (let round = 0; round < 5; round++) {
      const query = queryVector(model, BIG);
      const first = store.nearest(BIG, query, {}, 10, NOW); // in flight on the scan thread
      // a write and a search that applies it to the cache (the first search's rows change under it)
      const row = pick(liveRows(model, BIG).filter((r) => matches(r.memory, {}, NOW))); // not expired at NOW
      updateSync(store, model, row.memory.id, {}, around(query, 0.001));
      const second = await store.nearest(BIG, query, {}, 10, NOW);
      const want = reference(model, BIG, query, {}, NOW).slice(0, 10).map((e) => e.id);
      expect((await first).map((h) => h.memory.id)).toEqual(want);
      expect(second.map((h) => h.memory.id)).toEqual(want);
      expect(want).toContain(row.memory.id); // the moved row is among the nearest now
    }
    expect(vectorIndexCounters.offloadDiscards - before.offloadDiscards).toBe(5);
    // rows added while the thread scans make the wallet's arrays grow: the kernel memory's areas move
    // (under its layout lock; the thread refuses a scan asked under the old layout, or its answer is dropped)
    for (let round = 0; round < 3; round++) {
      const query = queryVector(model, BIG);
      const first = store.nearest(BIG, query, {}, 10, NOW);
      const added = randomItems(BIG, 600, () => around(query, 0.002));
      void store.insertMemories(stored(added)); // committed before it returns its promise
      record(dbOf(store), model, added);
      const second = await store.nearest(BIG, query, {}, 10, NOW);
      const want = reference(model, BIG, query, {}, NOW).slice(0, 10).map((e) => e.id);
      expect((await first).map((h) => h.memory.id)).toEqual(want);
      expect(second.map((h) => h.memory.id)).toEqual(want);
      expect(want.filter((id) => added.some((a) => a.memory.id === id)).length).toBeGreaterThan(5); // the new rows are among the nearest
    }
  });

  test("a wallet loaded small grows past the scan thread's threshold: its searches go there and see later in-place writes (tags included)", async () => {
    const user = "user-crossing";
    const tagged = (tag: string) => () => ({ metadata: { tags: [tag] } });
    await insert(store, model, randomItems(user, 100));
    await randomChecks(store, model, [user], 5, "100 rows"); // loads it small: below the thread's threshold
    const loads = vectorIndexCounters.loads;
    // patched in, a batch at a time (a backlog past a quarter of the rows would reload the wallet)
    for (let i = 0; i < 3; i++) {
      await insert(store, model, randomItems(user, 900));
      await randomChecks(store, model, [user], 3, `${100 + 900 * (i + 1)} rows`);
    }
    expect(liveRows(model, user).length).toBeGreaterThan(KERNEL_MIN_ROWS);
    // writes that fit the arrays as they are (no growth): a new tag set, moved and re-tagged rows
    await insert(store, model, randomItems(user, 5, rowVector, tagged("fresh")));
    for (const row of liveRows(model, user).slice(0, 20)) updateSync(store, model, row.memory.id, { metadata: { tags: ["fresh", "x"] }, namespace: "moved" });
    const offloaded = vectorIndexCounters.offloadedScans;
    for (const filter of [{ tags: ["fresh"] }, { tags: ["x"] }, { namespace: "moved" }, {}]) {
      for (const k of [1, 10, 50]) await checkCase(store, model, { userId: user, filter, k, now: NOW }, "after in-place writes");
    }
    expect(vectorIndexCounters.offloadedScans).toBeGreaterThan(offloaded); // searched by the scan thread
    await randomChecks(store, model, [user], 30, "grown past the threshold");
    expect(vectorIndexCounters.loads).toBe(loads); // every change above was patched in
  });

  test("a wallet larger than the whole budget is answered by SQL, never cached, and not loaded again on each search", async () => {
    const db = new Database(join(dir, "engram.sqlite"));
    try {
      const sizes = new VectorIndex(db);
      sizes.create(D);
      sizes.nearest(SMALL, new Float32Array(D).fill(1), {}, 1, NOW);
      const small = sizes.cached().bytes;
      const byRowid = new Map([...model.values()].map((r) => [r.rowid, r.memory.id]));
      // 0.8: loaded once, found too large and dropped; 0.1: less than its vectors alone, never loaded
      for (const [share, loadsWanted] of [[0.8, 1], [0.1, 0]] as const) {
        const index = new VectorIndex(db, { maxCachedBytes: Math.round(small * share) });
        index.create(D);
        const loads = vectorIndexCounters.loads;
        const sqlScans = vectorIndexCounters.sqlScans;
        for (let i = 0; i < 10; i++) {
          const c: Case = { userId: SMALL, filter: randomFilter(), k: pick(KS), now: NOW };
          const query = queryVector(model, SMALL);
          const full = reference(model, SMALL, query, c.filter, NOW);
          if (nearTieAt(full, c.k) >= 0) continue;
          const got = await index.nearest(SMALL, query, c.filter, c.k, NOW);
          expect(got.map((n) => byRowid.get(n.rowid))).toEqual(full.slice(0, c.k).map((e) => e.id));
          expect(index.keywordSearch(SMALL, ["anything"], {}, 10, NOW)).toBeNull(); // FTS5 answers
          expect(index.list(SMALL, {}, 0, 10, NOW)).toBeNull(); // and SQL lists
          expect(index.cached()).toMatchObject({ users: 0, bytes: 0 });
        }
        expect(vectorIndexCounters.loads - loads).toBe(loadsWanted);
        expect(vectorIndexCounters.sqlScans - sqlScans).toBeGreaterThan(0);
      }
    } finally {
      db.close();
    }
  });
});

describe("vector kernel", () => {
  test("the WASM SIMD kernel matches its JS reference", () => {
    const local = prng(7);
    for (const [stride, n] of [[8, 257], [24, 257], [128, 257], [104, 1], [104, 2], [104, 3], [104, 4], [104, 7]] as const) {
      const kernel = kernelFor(stride);
      expect(kernel.simd).toBe(true);
      const queryMax = Math.min(32767, Math.floor((2 ** 31 - 1) / (stride * 127)));
      const queryBytes = Math.ceil((stride * 2) / 16) * 16;
      const scalesAt = queryBytes;
      const outAt = scalesAt + 4 * n;
      const refAt = outAt + 4 * n;
      const rowsAt = refAt + 4 * n;
      const memory = new WebAssembly.Memory({ initial: Math.ceil((rowsAt + n * stride) / 65536), maximum: KERNEL_MAX_PAGES, shared: true });
      const q = new Int16Array(memory.buffer, 0, stride);
      for (let i = 0; i < stride; i++) q[i] = Math.round((local() * 2 - 1) * queryMax);
      q[0] = queryMax; // extremes: the sum must stay inside int32
      const rows = new Int8Array(memory.buffer, rowsAt, n * stride);
      for (let i = 0; i < rows.length; i++) rows[i] = Math.round((local() * 2 - 1) * 127);
      rows.fill(127, 0, stride);
      rows.fill(-127, stride, 2 * stride);
      const scales = new Float32Array(memory.buffer, scalesAt, n);
      for (let i = 0; i < n; i++) scales[i] = local() / 127;
      kernel.bind(memory).scores(0, rowsAt, n, scalesAt, outAt);
      referenceScores(memory, stride)(0, rowsAt, n, scalesAt, refAt);
      const out = new Float32Array(memory.buffer, outAt, n);
      const ref = new Float32Array(memory.buffer, refAt, n);
      for (let i = 0; i < n; i++) expect(Math.abs(out[i]! - ref[i]!)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref[i]!)));
    }
    expect(() => kernelFor(12)).toThrow();
  });

  test("the WASM SIMD kernel scores a list of rows (gather) as its JS reference does", () => {
    const local = prng(8);
    for (const stride of [8, 104]) {
      const n = 300;
      const listed = Int32Array.from({ length: 120 }, () => Math.floor(local() * n));
      const queryBytes = Math.ceil((stride * 2) / 16) * 16;
      const [scalesAt, slotsAt, outAt, refAt] = [queryBytes, queryBytes + 4 * n, queryBytes + 8 * n, queryBytes + 12 * n];
      const rowsAt = refAt + 4 * n;
      const memory = new WebAssembly.Memory({ initial: Math.ceil((rowsAt + n * stride) / 65536), maximum: KERNEL_MAX_PAGES, shared: true });
      const q = new Int16Array(memory.buffer, 0, stride);
      for (let i = 0; i < stride; i++) q[i] = Math.round((local() * 2 - 1) * 1000);
      const rows = new Int8Array(memory.buffer, rowsAt, n * stride);
      for (let i = 0; i < rows.length; i++) rows[i] = Math.round((local() * 2 - 1) * 127);
      const scales = new Float32Array(memory.buffer, scalesAt, n);
      for (let i = 0; i < n; i++) scales[i] = local() / 127;
      new Int32Array(memory.buffer, slotsAt, listed.length).set(listed);
      const { scores, gather } = kernelFor(stride).bind(memory);
      gather(0, rowsAt, slotsAt, listed.length, scalesAt, outAt);
      referenceGather(memory, stride)(0, rowsAt, slotsAt, listed.length, scalesAt, refAt);
      const out = Array.from(new Float32Array(memory.buffer, outAt, listed.length));
      expect(out).toEqual(Array.from(new Float32Array(memory.buffer, refAt, listed.length)));
      scores(0, rowsAt, n, scalesAt, refAt); // every row in order: the listed ones score the same
      const all = new Float32Array(memory.buffer, refAt, n);
      expect(out).toEqual(Array.from(listed, (slot) => all[slot]!));
    }
  });

  test("the scan thread answers the k nearest of the shared columns under a filter, and refuses a scan asked under an older layout without writing", async () => {
    const local = prng(9);
    const [dim, stride, n, k, want] = [20, 24, 3000, 10, 74];
    const now = 1_000;
    const queryAt = LAYOUT_WORDS.bytes;
    const scalesAt = queryAt + 2 * 64;
    const scoresAt = scalesAt + 4 * n;
    const rowsAt = scoresAt + 4 * n;
    const memory = new WebAssembly.Memory({ initial: Math.ceil((rowsAt + n * stride) / 65536), maximum: KERNEL_MAX_PAGES, shared: true });
    const rows = new Int8Array(memory.buffer, rowsAt, n * stride);
    for (let i = 0; i < rows.length; i++) rows[i] = Math.round((local() * 2 - 1) * 127);
    new Float32Array(memory.buffer, scalesAt, n).fill(0); // every first-pass score 0: within the bound below of any cosine
    const sab = <T,>(Type: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number) => new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT));
    // the packed columns (slot-columns.ts), and each as a view of its own for the test's reading
    const packed = slotColumns(n, true);
    const view = <T extends Float64Array | Int32Array | Uint8Array>(array: T, c: number) => array.subarray(c * n, (c + 1) * n) as T;
    const byName = {
      factors: view(packed.num, FACTOR), rowids: view(packed.num, ROWID), expires: view(packed.num, EXPIRES), created: view(packed.num, CREATED),
      hasVector: view(packed.flags, HAS_VECTOR), pinned: view(packed.flags, PINNED),
      namespace: view(packed.ints, NAMESPACE), session: view(packed.ints, SESSION), tagSet: view(packed.ints, TAG_SET),
    };
    // tag sets: 1 = {3}, 2 = {4, 5}, 3 = {5}
    const columns = { ...packed, ...byName, vectors: sab(Int16Array, n * dim), tagStarts: Int32Array.from([0, 1, 3, 4]), tagList: Int32Array.from([3, 4, 5, 5]) };
    const setTags = [[], [3], [4, 5], [5]];
    const randomUnit = () => Float64Array.from({ length: dim }, () => local() * 2 - 1);
    for (let slot = 0; slot < n; slot++) {
      columns.factors[slot] = toFixedPoint(randomUnit(), columns.vectors, slot * dim);
      columns.rowids[slot] = 10 * (n - slot); // not the slot order: ties must break by rowid
      columns.expires[slot] = local() < 0.1 ? now : Infinity; // expired exactly at now
      columns.hasVector[slot] = local() < 0.05 ? 0 : 1;
      columns.namespace[slot] = Math.floor(local() * 3);
      columns.session[slot] = local() < 0.5 ? -1 : 7;
      columns.pinned[slot] = local() < 0.3 ? 1 : 0;
      columns.created[slot] = Math.floor(local() * 100);
      columns.tagSet[slot] = Math.floor(local() * 4);
    }
    const any = { namespace: -1, session: -1, agent: -1, type: -1, pinned: -1, after: -Infinity, before: Infinity, tags: null, vectors: true, now };
    const filters = [
      { label: "none (every row passes)", ids: null, pass: () => true },
      { label: "expiry and vectors only", ids: any, pass: (slot: number) => columns.expires[slot]! > now && columns.hasVector[slot] === 1 },
      {
        label: "namespace 1, pinned, created in (20, 80)",
        ids: { ...any, namespace: 1, pinned: 1, after: 20, before: 80 },
        pass: (slot: number) => columns.expires[slot]! > now && columns.hasVector[slot] === 1 && columns.namespace[slot] === 1 && columns.pinned[slot] === 1 && columns.created[slot]! > 20 && columns.created[slot]! < 80,
      },
      { label: "session 7", ids: { ...any, session: 7 }, pass: (slot: number) => columns.expires[slot]! > now && columns.hasVector[slot] === 1 && columns.session[slot] === 7 },
      {
        label: "tags any of 5, 9",
        ids: { ...any, tags: new Set([5, 9]) },
        pass: (slot: number) => columns.expires[slot]! > now && columns.hasVector[slot] === 1 && setTags[columns.tagSet[slot]!]!.some((t) => t === 5 || t === 9),
      },
    ];
    const unit = (() => {
      const v = randomUnit();
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    })();
    // bound 2: every accepted row can still beat the k-th, so the second pass rescores them all
    const request = (generation: number, filter: FilterIds | null, range = { from: 0, to: n }) => ({
      stride, query: new Int16Array(stride).fill(100), unit, unitScale: 1, bound: 2, range, k, want, filter,
      columns: { ...packed, vectors: columns.vectors, tagStarts: columns.tagStarts, tagList: columns.tagList },
      at: { generation, query: queryAt, scales: scalesAt, scores: scoresAt, rows: rowsAt },
    });
    const scores = new Float32Array(memory.buffer, scoresAt, n);
    scores.fill(-7);
    withLayoutLock(memory, () => {}); // the areas "moved" once: generation 1
    // a request that cannot be sent (not cloneable) is answered null, and the next one still carries the memory
    expect(await scanThread.scan(memory, { ...request(1, any), filter: (() => any) as unknown as FilterIds })).toBeNull();
    expect(await scanThread.scan(memory, request(0, any))).toBeNull();
    expect(scores.every((x) => x === -7)).toBe(true); // nothing written under the old layout
    // the whole wallet, and a range of it (a search split with the main thread scans one)
    for (const range of [{ from: 0, to: n }, { from: 37, to: n - 11 }]) {
      for (const { label, ids, pass } of filters) {
        const want = [...Array(n).keys()]
          .filter((slot) => slot >= range.from && slot < range.to && pass(slot))
          .map((slot) => ({ rowid: columns.rowids[slot]!, distance: 1 - fixedPointCosine(unit, columns.vectors, slot * dim, columns.factors[slot]!) }))
          .sort((a, b) => a.distance - b.distance || a.rowid - b.rowid)
          .slice(0, k);
        const got = await scanThread.scan(memory, request(1, ids, range));
        expect(got).not.toBeNull();
        expect({ label, range, found: Array.from(got!.rowids, (rowid, i) => ({ rowid, distance: got!.distances[i]! })) }).toEqual({ label, range, found: want });
      }
    }
  });
});
