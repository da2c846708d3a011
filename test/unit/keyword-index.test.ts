/**
 * The embedded engine's in-memory keyword index (src/store/sqlite/keyword-index.ts, held by the
 * per-user cache of vector-index.ts) against a brute-force BM25 reference computed here:
 * FTS5's bm25() formula (k1 = 1.2, b = 0.75, idf = log((N - n + 0.5) / (n + 0.5)), 1e-6 when ≤ 0)
 * with N, n and the mean length over the WALLET's non-deleted rows (expired ones included, as in
 * the FTS table), tokens from indexTerms() (stemmed words), every MemoryFilter field applied, best first, ties by rowid.
 * The reference sums the terms in query order with the same expression, so scores agree to the bit
 * in practice; they are compared to 1e-9 relative and ids exactly.
 *
 * Everything goes through SqliteStore on a temp dir with seeded random corpora (small vocabulary
 * with accents, case and punctuation, common words in most rows, a few rows repeating a word more
 * than 255 times). Covered: filters, limits, updates (content and filter columns), soft deletes and
 * restores, expiry, dead-posting compaction, other connections' writes, rolled-back transactions,
 * the FTS5 fallback (inside a transaction, include_deleted, a multi-word term), rows whose
 * embedding has another dimension, eviction, and FTS5's own bm25() on a one-wallet store (where
 * per-wallet and whole-table statistics coincide).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { prng } from "../../scripts/bench/synthetic";
import { dbOf, matchesFilter } from "../helpers/store-reference";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newMemory, type Memory, type MemoryType } from "../../src/domain/memory";
import { indexTerms, stem, words } from "../../src/domain/text";
import type { MemoryFilter, TextHit } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { keywordIndexCounters, WalletKeywords } from "../../src/store/sqlite/keyword-index";
import { VectorIndex, vectorIndexCounters } from "../../src/store/sqlite/vector-index";

const D = 4;
const MODEL = { id: "test-keywords", dimension: D };
const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.parse("2025-06-01T00:00:00.000Z");
const K1 = 1.2;
const B = 0.75;
const LIMITS = [1, 3, 10, 40, 1000] as const;

const A = "user-a"; // ~400 rows
const C = "user-c"; // ~150 rows
const NOISE = "user-noise"; // other wallet: must never leak into A's or C's results or statistics
const NAMESPACES = ["a", "b", "c"] as const;
const TYPES: MemoryType[] = ["general", "decision", "preference"];
const TAGS = ["x", "y", "z", "w"] as const;
/** Zipf-ish: the first words are common ("the" ends up in most rows: idf clamped). */
const VOCAB = ["the", "and", "alpha", "Beta", "gamma", "café", "CAFE", "naïve", "Über", "delta", "x1", "42", "epsilon", "zeta", "theta", "iota", "kappa", "lambda", "mu", "nu"];

const rng = prng(20251121);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const zipf = () => VOCAB[Math.floor(VOCAB.length * rng() ** 2)]!;
const iso = (ms: number) => new Date(ms).toISOString();

function randomContent(): string {
  const roll = rng();
  if (roll < 0.02) return "!!! ??? …"; // no words at all
  if (roll < 0.04) return `${pick(VOCAB)} ${Array.from({ length: 256 + Math.floor(rng() * 80) }, () => "spam").join(" ")} ${zipf()}`; // tf > 255
  const n = 1 + Math.floor(rng() * 14);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const word = rng() < 0.15 ? `w${Math.floor(rng() * 200)}` : zipf();
    parts.push(rng() < 0.1 ? word.toUpperCase() : word);
  }
  return parts.map((p, i) => (i === 0 ? p : pick([" ", ", ", ". ", " - ", "\n"]) + p)).join("");
}

// ---------------------------------------------------------------------------------------------
// the model: what the test wrote, and the reference search over it

interface Row {
  memory: Memory;
  rowid: number;
}
const model = new Map<string, Row>();

let seq = 0;
function makeMemory(userId: string, over: Partial<Memory> = {}): Memory {
  const created = iso(NOW - Math.floor(rng() * 100) * DAY);
  const roll = rng();
  const metadata = roll < 0.4 ? {} : roll < 0.5 ? { tags: [] } : { tags: [pick(TAGS), pick(["x", "w", "v"])] };
  seq++;
  return newMemory(
    {
      id: `kw-${String(seq).padStart(6, "0")}`,
      user_id: userId,
      namespace: pick(NAMESPACES),
      content: randomContent(),
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

const matches = matchesFilter;

interface Expected {
  id: string;
  rowid: number;
  score: number;
}

/** Every matching row of the user with its BM25 score, best first (ties by rowid). */
function reference(rows: Map<string, Row>, userId: string, terms: string[], filter: MemoryFilter, now: number): Expected[] {
  const active = [...rows.values()].filter((r) => r.memory.user_id === userId && r.memory.deleted_at === null);
  const docs = active.map((r) => {
    const tokens = indexTerms(r.memory.content);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { row: r, length: tokens.length, tf };
  });
  const N = docs.length;
  if (N === 0) return [];
  const avgdl = docs.reduce((sum, d) => sum + d.length, 0) / N;
  const tokens = terms.map((t) => words(t)[0]!);
  const scores = new Map<Row, number>();
  for (const token of tokens) {
    const n = docs.filter((d) => d.tf.has(token)).length;
    if (n === 0) continue;
    let idf = Math.log((N - n + 0.5) / (n + 0.5));
    if (idf <= 0) idf = 1e-6;
    for (const d of docs) {
      const tf = d.tf.get(token);
      if (tf === undefined || !matches(d.row.memory, filter, now)) continue;
      scores.set(d.row, (scores.get(d.row) ?? 0) + idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / avgdl))));
    }
  }
  return [...scores].map(([r, score]) => ({ id: r.memory.id, rowid: r.rowid, score })).sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}

function randomFilter(): MemoryFilter {
  const filter: MemoryFilter = {};
  const roll = rng();
  if (roll < 0.3) return filter;
  if (rng() < 0.4) filter.namespace = pick([...NAMESPACES, "none"]);
  if (rng() < 0.2) filter.session_id = pick(["s1", "s2"]);
  if (rng() < 0.2) filter.agent_id = pick(["g1", "g2", "g9"]);
  if (rng() < 0.2) filter.memory_type = pick(TYPES);
  if (rng() < 0.2) filter.pinned = rng() < 0.5;
  if (rng() < 0.2) filter.tags = [pick(TAGS), ...(rng() < 0.5 ? [pick(["v", "nope"])] : [])];
  if (rng() < 0.2) filter.created_after = iso(NOW - Math.floor(rng() * 100) * DAY);
  if (rng() < 0.2) filter.created_before = iso(NOW - Math.floor(rng() * 100) * DAY);
  return filter;
}

function randomTerms(): string[] {
  const n = 1 + Math.floor(rng() * 3);
  const terms = Array.from({ length: n }, () => (rng() < 0.1 ? pick(["spam", "missing", "w7", "NAIVE", "uber"]) : zipf()));
  if (rng() < 0.05) terms.push(terms[0]!); // a duplicate term counts twice, as an FTS5 OR of two equal phrases does
  return terms;
}


function record(db: Database, memories: Memory[]): void {
  const rowidOf = db.query("select rowid from memories where id = ?");
  for (const memory of memories) {
    const found = rowidOf.get(memory.id) as { rowid: number } | null;
    if (!found) throw new Error(`not stored: ${memory.id}`);
    model.set(memory.id, { memory, rowid: found.rowid });
  }
}

const embedding = (dim = D) => Float32Array.from({ length: dim }, () => rng() - 0.5);

async function insert(store: SqliteStore, memories: Memory[], dim = D): Promise<void> {
  await store.insertMemories(memories.map((memory) => ({ memory, embedding: embedding(dim), content_hash: `hash-${memory.id}` })));
  record(dbOf(store), memories);
}

/** Synchronous inside (no awaits), so it also works inside a db.transaction callback. */
function updateSync(store: SqliteStore, rows: Map<string, Row>, id: string, patch: Partial<Memory>): void {
  const row = rows.get(id)!;
  const memory: Memory = { ...row.memory, ...patch, updated_at: iso(NOW) };
  void store.updateMemory(memory.user_id, { memory });
  rows.set(id, { ...row, memory });
}

function softDeleteSync(store: SqliteStore, rows: Map<string, Row>, userId: string, ids: string[]): void {
  void store.softDelete(userId, ids, NOW);
  for (const id of ids) {
    const row = rows.get(id)!;
    if (row.memory.deleted_at === null) rows.set(id, { ...row, memory: { ...row.memory, deleted_at: iso(NOW), updated_at: iso(NOW) } });
  }
}

function randomUpdate(store: SqliteStore, rows: Map<string, Row>, row: Row): void {
  const patch: Partial<Memory> = {};
  const roll = rng();
  if (roll < 0.4) patch.content = randomContent();
  else if (roll < 0.55) patch.namespace = pick(["a", "b", "c", "moved"]);
  else if (roll < 0.65) patch.pinned = !row.memory.pinned;
  else if (roll < 0.75) patch.metadata = rng() < 0.3 ? {} : { tags: [pick(TAGS)] };
  else if (roll < 0.85) Object.assign(patch, { memory_type: pick<MemoryType>(["general", "decision", "correction"]), session_id: pick([null, "s1"]) });
  else patch.expires_at = pick([null, iso(NOW - HOUR), iso(NOW + DAY)]);
  updateSync(store, rows, row.memory.id, patch);
}

const liveRows = (userId: string) => [...model.values()].filter((r) => r.memory.user_id === userId && r.memory.deleted_at === null);

function expectHits(got: TextHit[], want: Expected[], label: string): void {
  expect({ label, ids: got.map((h) => h.memory.id) }).toEqual({ label, ids: want.map((e) => e.id) });
  for (let i = 0; i < got.length; i++) {
    const error = Math.abs(got[i]!.bm25 - want[i]!.score) / Math.max(1, Math.abs(want[i]!.score));
    if (error > 1e-9) expect({ label, i, got: got[i]!.bm25 }).toEqual({ label, i, got: want[i]!.score });
  }
}

/** Terms as the domain hands them to the engine: one-word terms stemmed (queryTerms), others as they are. */
const domainTerms = (terms: string[]) => terms.map((t) => (words(t).length === 1 ? stem(words(t)[0]!) : t));

async function check(store: SqliteStore, userId: string, rawTerms: string[], filter: MemoryFilter, limit: number, now = NOW): Promise<number> {
  const terms = domainTerms(rawTerms);
  const label = `${userId} ${JSON.stringify(terms)} limit=${limit} now=${iso(now)} filter=${JSON.stringify(filter)}`;
  const want = reference(model, userId, terms, filter, now);
  const searches = keywordIndexCounters.searches;
  expectHits(await store.searchText(userId, terms, filter, limit, now), want.slice(0, limit), label);
  expect({ label, count: await store.countText(userId, terms, filter, now) }).toEqual({ label, count: want.length });
  expect(keywordIndexCounters.searches).toBe(searches + 2); // answered from memory, not FTS5
  return want.length;
}

async function randomChecks(store: SqliteStore, users: string[], n: number, now = NOW): Promise<void> {
  let nonEmpty = 0;
  for (let i = 0; i < n; i++) if ((await check(store, pick(users), randomTerms(), randomFilter(), pick(LIMITS), now)) > 0) nonEmpty++;
  expect(nonEmpty).toBeGreaterThan(n / 4); // the cases are not vacuous
}

// ---------------------------------------------------------------------------------------------

let dir: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "engram-keywords-"));
  store = new SqliteStore(dir);
  await store.bindEmbeddingModel(MODEL);
  await insert(store, Array.from({ length: 400 }, () => makeMemory(A)));
  await insert(store, Array.from({ length: 150 }, () => makeMemory(C)));
  await insert(store, Array.from({ length: 300 }, () => makeMemory(NOISE, { content: `alpha alpha gamma ${randomContent()}` })));
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("keyword index: SqliteStore.searchText/countText equal a brute-force BM25 with per-wallet statistics", () => {
  test("random terms, filters and limits", async () => {
    const loads = vectorIndexCounters.loads;
    await randomChecks(store, [A, C], 300);
    expect(vectorIndexCounters.loads).toBe(loads + 2); // each wallet loaded once
    // every limit returns `limit` results whenever that many rows match (pre-filtering)
    for (const filter of [{ namespace: "a" }, { tags: ["z"] }, { pinned: true }, { namespace: "b", memory_type: "decision" as MemoryType }]) {
      for (const limit of LIMITS) await check(store, A, ["the"], filter, limit);
      await check(store, A, ["alpha", "Beta", "café"], filter, 5);
    }
  });

  test("accents, case and tf above 255 score like FTS5 would tokenize", async () => {
    for (const terms of [["Café"], ["cafe"], ["NAÏVE"], ["uber"], ["spam"], ["spam", "the"], ["42", "x1"], ["w7", "missing"]]) {
      for (const limit of [1, 10, 1000]) await check(store, A, terms, {}, limit);
    }
  });

  test("expiry is applied at `now`", async () => {
    for (const now of [NOW - 2 * DAY, NOW, NOW + 2 * DAY, NOW + 4 * DAY]) await randomChecks(store, [A, C], 20, now);
  });

  test("updates (content and filter columns), deletes and restores are patched in", async () => {
    const loads = vectorIndexCounters.loads;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 60; i++) randomUpdate(store, model, pick(liveRows(pick([A, C]))));
      await randomChecks(store, [A, C], 30);
    }
    softDeleteSync(store, model, A, liveRows(A).slice(0, 40).map((r) => r.memory.id));
    await randomChecks(store, [A, C], 30);
    const restored = [...model.values()].filter((r) => r.memory.user_id === A && r.memory.deleted_at !== null).slice(0, 10);
    for (const row of restored) updateSync(store, model, row.memory.id, { deleted_at: null, content: `restored ${randomContent()}` });
    await check(store, A, ["restored"], {}, 20);
    await insert(store, Array.from({ length: 30 }, () => makeMemory(A, { content: `fresh ${randomContent()}` })));
    await check(store, A, ["fresh"], {}, 50);
    await randomChecks(store, [A, C], 40);
    expect(vectorIndexCounters.loads).toBe(loads); // all patched, no reload
  });

  test("many content updates compact dead postings, with the same answers", async () => {
    const compactions = keywordIndexCounters.compactions;
    const loads = vectorIndexCounters.loads;
    for (let round = 0; round < 8; round++) {
      for (const row of liveRows(A).slice(0, 200)) updateSync(store, model, row.memory.id, { content: `${randomContent()} ${randomContent()}` });
      await check(store, A, ["the"], {}, 10);
    }
    expect(keywordIndexCounters.compactions).toBeGreaterThan(compactions);
    expect(vectorIndexCounters.loads).toBe(loads);
    await randomChecks(store, [A, C], 60);
  });

  test("a rolled-back transaction leaves the index at the committed state; inside it FTS5 answers", async () => {
    await randomChecks(store, [A, C], 5); // loaded: writes mark rows pending
    const db = dbOf(store);
    // a batch insert failing part-way rolls back
    const clash = makeMemory(A, { id: liveRows(A)[0]!.memory.id });
    await expect(store.insertMemories([makeMemory(A, { content: "rolledback" }), clash].map((memory) => ({ memory, embedding: embedding(), content_hash: "h" })))).rejects.toThrow();
    await check(store, A, ["rolledback"], {}, 10);

    const staged = new Map(model);
    const fallbacks = keywordIndexCounters.sqlFallbacks;
    const expected = 5 + liveRows(A).slice(0, 30).filter((r) => matches(r.memory, {}, NOW)).length;
    const inside: { hits?: Promise<TextHit[]>; count?: Promise<number>; fts?: TextHit[] } = {};
    expect(() =>
      db.transaction(() => {
        const fresh = Array.from({ length: 5 }, () => makeMemory(A, { content: "transient transient words", namespace: "tx", expires_at: null }));
        void store.insertMemories(fresh.map((memory) => ({ memory, embedding: embedding(), content_hash: `h-${memory.id}` })));
        for (const row of liveRows(A).slice(0, 30)) updateSync(store, staged, row.memory.id, { content: "transient", namespace: "tx" });
        softDeleteSync(store, staged, A, liveRows(A).slice(30, 60).map((r) => r.memory.id));
        // the store's calls run synchronously up to their result, so they see the transaction
        inside.hits = store.searchText(A, ["transient"], {}, 100, NOW);
        inside.count = store.countText(A, ["transient"], {}, NOW);
        inside.fts = store.searchTextFts(A, ["transient"], {}, 100, NOW);
        throw new Error("roll back");
      })(),
    ).toThrow("roll back");
    expect(keywordIndexCounters.sqlFallbacks).toBe(fallbacks + 2);
    expect(inside.fts).toHaveLength(expected); // the transaction's own writes, seen through FTS5
    expect((await inside.hits!).map((h) => h.memory.id)).toEqual(inside.fts!.map((h) => h.memory.id));
    expect(await inside.count!).toBe(expected);
    // committed state: nothing of the above
    await check(store, A, ["transient"], {}, 100);
    await check(store, A, ["words"], { namespace: "tx" }, 100);
    await randomChecks(store, [A, C], 40);
  });

  test("the FTS5 fallback answers include_deleted and multi-word terms", async () => {
    const fallbacks = keywordIndexCounters.sqlFallbacks;
    const deleted = await store.searchText(A, ["the"], { include_deleted: true }, 1000, NOW);
    expect(deleted.length).toBeGreaterThan(0);
    const phrase = await store.searchText(A, ["alpha gamma"], {}, 10, NOW);
    expect(phrase).toEqual(store.searchTextFts(A, ["alpha gamma"], {}, 10, NOW));
    expect(keywordIndexCounters.sqlFallbacks).toBe(fallbacks + 2);
  });

  test("writes by another connection are noticed (pragma data_version)", async () => {
    await randomChecks(store, [A, C], 5);
    const second = new SqliteStore(dir);
    try {
      await second.bindEmbeddingModel(MODEL);
      const fresh = Array.from({ length: 20 }, () => makeMemory(C, { content: `elsewhere ${randomContent()}` }));
      await insert(second, fresh);
      for (let i = 0; i < 30; i++) randomUpdate(second, model, pick(liveRows(pick([A, C]))));
      softDeleteSync(second, model, C, liveRows(C).slice(0, 10).map((r) => r.memory.id));
      await check(store, C, ["elsewhere"], {}, 40);
      await randomChecks(store, [A, C], 40);
      for (let i = 0; i < 30; i++) randomUpdate(store, model, pick(liveRows(pick([A, C]))));
      await randomChecks(second, [A, C], 30);
    } finally {
      await second.close();
    }
    // raw content rewrite behind the store's back (the FTS table is not touched: the cache reads `memories`)
    const other = new Database(join(dir, "engram.sqlite"));
    other.exec("pragma busy_timeout = 5000");
    const target = liveRows(C)[0]!;
    other.query("update memories set content = 'rewritten by hand' where rowid = ?").run(target.rowid);
    model.set(target.memory.id, { ...target, memory: { ...target.memory, content: "rewritten by hand" } });
    other.close();
    await check(store, C, ["rewritten"], {}, 5);
    await randomChecks(store, [A, C], 20);
  });

  test("rows whose embedding has another dimension are found by keyword, not by vector", async () => {
    const odd = [makeMemory(C, { content: "oddly shaped vector", expires_at: null })];
    await insert(store, odd, D + 3);
    await check(store, C, ["oddly"], {}, 5);
    const near = await store.nearest(C, embedding(), {}, 10_000, NOW);
    expect(near.some((h) => h.memory.id === odd[0]!.id)).toBe(false);
  });

  test("a VectorIndex with a small byte budget evicts users and its keyword answers stay exact", async () => {
    const db = new Database(join(dir, "engram.sqlite"));
    try {
      // A's and C's bytes, as an unbounded cache counts them: the budget holds either, not both
      const sizes = new VectorIndex(db);
      sizes.create(D);
      sizes.keywordSearch(A, ["the"], {}, 1, NOW);
      const a = sizes.cached().bytes;
      sizes.keywordSearch(C, ["the"], {}, 1, NOW);
      const c = sizes.cached().bytes - a;
      const budget = Math.max(a, c) + Math.floor(Math.min(a, c) / 2);
      const index = new VectorIndex(db, { maxCachedBytes: budget });
      index.create(D);
      const evictions = vectorIndexCounters.evictions;
      for (let i = 0; i < 30; i++) {
        const userId = pick([A, C, NOISE]);
        const terms = randomTerms();
        const filter = randomFilter();
        const want = reference(model, userId, terms, filter, NOW).slice(0, 10);
        if (userId === NOISE) continue; // not in the model
        expect(index.keywordSearch(userId, terms, filter, 10, NOW)!.map((h) => h.rowid)).toEqual(want.map((e) => e.rowid));
        expect(index.cached().bytes).toBeLessThanOrEqual(budget);
        expect(index.cached().users).toBe(1);
      }
      expect(vectorIndexCounters.evictions).toBeGreaterThan(evictions);
    } finally {
      db.close();
    }
  });
});

test("on a one-wallet store the in-memory scores equal FTS5's bm25()", async () => {
  const soloDir = mkdtempSync(join(tmpdir(), "engram-keywords-solo-"));
  const solo = new SqliteStore(soloDir);
  try {
    await solo.bindEmbeddingModel(MODEL);
    const memories = Array.from({ length: 300 }, () => makeMemory("solo", { expires_at: null }));
    await solo.insertMemories(memories.map((memory) => ({ memory, embedding: embedding(), content_hash: memory.id })));
    let compared = 0;
    for (let i = 0; i < 60; i++) {
      const terms = [...new Set(domainTerms(randomTerms()))];
      const mine = await solo.searchText("solo", terms, {}, 1000, NOW);
      const fts = solo.searchTextFts("solo", terms, {}, 1000, NOW);
      expect(mine.length).toBe(fts.length);
      const score = new Map(fts.map((h) => [h.memory.id, h.bm25]));
      for (const hit of mine) expect(Math.abs(hit.bm25 - score.get(hit.memory.id)!)).toBeLessThan(1e-9 * Math.max(1, hit.bm25));
      expect(await solo.countText("solo", terms, {}, NOW)).toBe(solo.countTextFts("solo", terms, {}, NOW));
      compared += mine.length;
    }
    expect(compared).toBeGreaterThan(1000);
  } finally {
    await solo.close();
    rmSync(soloDir, { recursive: true, force: true });
  }
});

test("a wallet with more terms than a 16-bit term table holds finds each of them, and only them", () => {
  // 70,000 distinct terms in 7,000 rows of 10: the term table turns 32-bit past 32,768 terms
  const rows = 7_000;
  const keywords = new WalletKeywords(4);
  for (let slot = 0; slot < rows; slot++) {
    keywords.reserve(slot + 1);
    keywords.put(slot, Array.from({ length: 10 }, (_, i) => `w${slot * 10 + i}`).join(" "), false, slot + 1);
  }
  for (let term = 0; term < rows * 10; term++) expect(keywords.frequency(`w${term}`)).toBe(1);
  expect(keywords.frequency("w70000")).toBe(0);
  const rowids = Float64Array.from({ length: rows }, (_, slot) => slot + 1);
  for (const slot of [0, 3_276, 3_277, 6_553, 6_554, rows - 1]) {
    const { hits, matched } = keywords.search([`w${slot * 10 + 7}`], rows, rowids, true, 5);
    expect(matched).toBe(1);
    expect(hits.map((h) => h.rowid)).toEqual([slot + 1]);
  }
});
