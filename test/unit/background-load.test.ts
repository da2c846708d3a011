/**
 * Background loading of large wallets into the per-wallet cache (src/store/sqlite/vector-index.ts).
 *
 * The store under test (`store`) loads wallets above a tiny syncLoadMaxRows in the background, in
 * small chunks that yield to the event loop; while a wallet loads its keyword searches are answered
 * by FTS5 (and read a chunk each), while a vector search or a list waits for the load (their SQL
 * answers read every row of the wallet), other requests being served meanwhile. The reference is a second
 * connection on the same file (`ref`) with the default options, whose cache loads these wallets
 * synchronously; it notices every write through data_version and reloads, so it always answers from
 * the committed rows. Writes made while a load is under way (this connection's, recorded as pending;
 * another connection's, read from the memory_changes log) must be reflected once the cache is used.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng } from "../../scripts/bench/synthetic";
import { newMemory, type Memory } from "../../src/domain/memory";
import type { MemoryFilter, MemoryRef, StoredMemory } from "../../src/domain/store-port";
import type { AccessLog } from "../../src/store/access-log";
import { keywordIndexCounters } from "../../src/store/sqlite/keyword-index";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { VectorIndex, vectorIndexCounters } from "../../src/store/sqlite/vector-index";
import { dbOf } from "../helpers/store-reference";
import { queryTerms } from "../../src/domain/text";

const D = 12;
const MODEL = { id: "test-random-vectors", dimension: D };
const NOW = Date.parse("2025-06-01T00:00:00.000Z");
const DAY = 86_400_000;
const BIG = "user-big"; // loaded in the background
const SMALL = "user-small"; // loaded synchronously
const CHUNK = 17;
/** BIG's rows: enough chunks that the ticks and keyword searches below do not complete a load early */
const BIG_ROWS = 3000;
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
const FILTERS: MemoryFilter[] = [{}, { namespace: "a" }, { pinned: true }, { tags: ["x"] }, { memory_type: "decision", created_after: new Date(NOW - 50 * DAY).toISOString() }];
const TERMS = [["alpha"], ["bravo", "hotel"], ["golf", "nothing"]];

const rng = prng(7);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const iso = (ms: number) => new Date(ms).toISOString();
const gaussVector = () => Float32Array.from({ length: D }, () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng()));
const sentence = () => Array.from({ length: 1 + Math.floor(rng() * 6) }, () => pick(WORDS)).join(" ");

let seq = 0;
function memory(userId: string, over: Partial<Memory> = {}): Memory {
  const created = iso(NOW - Math.floor(rng() * 100) * DAY - Math.floor(rng() * DAY));
  seq++;
  return newMemory(
    {
      id: `bg-${String(seq).padStart(6, "0")}`,
      user_id: userId,
      namespace: pick(["a", "b"]),
      content: sentence(),
      metadata: rng() < 0.5 ? {} : { tags: [pick(["x", "y"])] },
      memory_type: pick(["general", "decision"] as const),
      pinned: rng() < 0.3,
      expires_at: rng() < 0.1 ? iso(NOW + pick([-1, 1]) * DAY) : null,
      ...over,
    },
    created,
  );
}

const items = (userId: string, n: number, over: () => Partial<Memory> = () => ({})): StoredMemory[] =>
  Array.from({ length: n }, () => ({ memory: memory(userId, over()), embedding: gaussVector(), content_hash: `h${seq}` }));

let dir: string;
let store: SqliteStore;
let ref: SqliteStore;
const live = new Map<string, Memory>(); // BIG's memories by id, as last written

const indexOf = (s: SqliteStore) => (s as unknown as { vectors: VectorIndex }).vectors;
/** Start afresh: the store's cache forgets every wallet. */
const dropCache = () => indexOf(store).clear();
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const counters = () => ({ ...vectorIndexCounters, keyword: { ...keywordIndexCounters } });

async function insert(s: SqliteStore, list: StoredMemory[]): Promise<void> {
  await s.insertMemories(list);
  for (const { memory: m } of list) if (m.user_id === BIG) live.set(m.id, m);
}

/** Every search of the store equals the reference's, for a few queries, filters and terms. */
async function expectSameAsReference(userId: string, label: string, now = NOW): Promise<void> {
  for (const filter of FILTERS) {
    for (let q = 0; q < 3; q++) {
      const query = gaussVector();
      const want = await ref.nearest(userId, query, filter, 25, now);
      const got = await store.nearest(userId, query, filter, 25, now);
      expect({ label, filter, ids: got.map((h) => h.memory.id) }).toEqual({ label, filter, ids: want.map((h) => h.memory.id) });
      got.forEach((h, i) => expect(Math.abs(h.similarity - want[i]!.similarity)).toBeLessThan(1e-6));
      await expectRefsOfRows(userId, got.map((h) => h.memory), label);
    }
    for (const terms of TERMS) {
      const want = await ref.searchText(userId, terms, filter, 30, now);
      const got = await store.searchText(userId, terms, filter, 30, now);
      expect({ label, filter, terms, ids: got.map((h) => h.memory.id) }).toEqual({ label, filter, terms, ids: want.map((h) => h.memory.id) });
      got.forEach((h, i) => expect(Math.abs(h.bm25 - want[i]!.bm25)).toBeLessThan(1e-9));
      await expectRefsOfRows(userId, got.map((h) => h.memory), label);
      expect(await store.countText(userId, terms, filter, now)).toBe(await ref.countText(userId, terms, filter, now));
    }
  }
}

/** What the searches answered of each memory (MemoryRef) is what its row holds now, pending access bumps included. */
async function expectRefsOfRows(userId: string, refs: MemoryRef[], label: string): Promise<void> {
  const rows = await store.getMemories(userId, refs.map((r) => r.id), NOW - 1000 * DAY); // expired ones too
  const fields = (m: MemoryRef): MemoryRef => ({ id: m.id, created_at: m.created_at, memory_type: m.memory_type, pinned: m.pinned, importance: m.importance, access_count: m.access_count });
  expect({ label, refs: refs.map(fields) }).toEqual({ label, refs: rows.map(fields) });
}

const accessLogOf = (s: SqliteStore) => (s as unknown as { accesses: AccessLog }).accesses;

/** While BIG loads, keyword searches and counts are answered by FTS5, exactly (each reads a chunk of the load). */
async function expectFtsAnswers(label: string): Promise<void> {
  for (const filter of FILTERS) {
    for (const terms of TERMS) {
      const fts = store.searchTextFts(BIG, terms, filter, 30, NOW);
      const text = await store.searchText(BIG, terms, filter, 30, NOW);
      expect({ label, ids: text.map((h) => [h.memory.id, h.bm25]) }).toEqual({ label, ids: fts.map((h) => [h.memory.id, h.bm25]) });
      expect(await store.countText(BIG, terms, filter, NOW)).toBe(store.countTextFts(BIG, terms, filter, NOW));
    }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "engram-background-load-"));
  store = new SqliteStore(dir, { vectorIndex: { syncLoadMaxRows: 200, loadChunkRows: CHUNK } });
  await store.bindEmbeddingModel(MODEL);
  ref = new SqliteStore(dir);
  await ref.bindEmbeddingModel(MODEL);
  await insert(store, items(BIG, BIG_ROWS));
  await insert(store, items(SMALL, 150));
});

afterAll(async () => {
  await indexOf(store)?.settled();
  await store?.close();
  await ref?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("background load of large wallets", () => {
  test("a wallet at or below syncLoadMaxRows loads synchronously on its first search", async () => {
    const before = counters();
    await store.nearest(SMALL, gaussVector(), {}, 5, NOW);
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads);
    expect(vectorIndexCounters.searches).toBe(before.searches + 1);
    await expectSameAsReference(SMALL, "small");
  });

  test("while a large wallet loads, keyword searches are answered exactly by FTS5; afterwards by the cache", async () => {
    const before = counters();
    await expectFtsAnswers("first");
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1); // one load, however many searches
    expect(vectorIndexCounters.loads).toBe(before.loads);
    expect(keywordIndexCounters.searches).toBe(before.keyword.searches);
    await tick();
    await tick();
    await expectFtsAnswers("mid-load"); // a few chunks in
    expect(vectorIndexCounters.loads).toBe(before.loads);
    expect(vectorIndexCounters.sqlScans).toBe(before.sqlScans);
    await indexOf(store).settled();
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    await ref.nearest(BIG, gaussVector(), {}, 1, NOW); // the reference's own (synchronous) load, before the snapshot
    const cached = counters();
    await expectSameAsReference(BIG, "loaded");
    expect(vectorIndexCounters.sqlScans).toBe(cached.sqlScans);
    // (the counters are process-wide: the reference's cached searches count too)
    expect(vectorIndexCounters.searches).toBe(cached.searches + 2 * FILTERS.length * 3);
    expect(keywordIndexCounters.searches).toBe(cached.keyword.searches + 2 * FILTERS.length * TERMS.length * 2);
    expect(keywordIndexCounters.sqlFallbacks).toBe(cached.keyword.sqlFallbacks);
    expect(vectorIndexCounters.loads).toBe(cached.loads);
  });

  test("this connection's writes during a load (insert, update, delete, expiry, rollback) are reflected once it completes", async () => {
    dropCache();
    const before = counters();
    await store.searchText(BIG, ["alpha"], {}, 5, NOW); // starts the load (a vector search would complete it)
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    const ids = [...live.keys()];
    const chunks = Math.ceil(BIG_ROWS / CHUNK);
    for (let round = 0; round < 6; round++) {
      await tick();
      await tick();
      // inserts: old created_at (before the load's cursor) and new
      await insert(store, items(BIG, 3, () => ({ created_at: iso(NOW - pick([0, 50, 99]) * DAY) })));
      // updates: filter columns, content, embedding, expiry
      for (let i = 0; i < 4; i++) {
        const m = live.get(pick(ids))!;
        if (m.deleted_at !== null) continue;
        const roll = rng();
        const next: Memory = {
          ...m,
          namespace: roll < 0.3 ? "moved" : m.namespace,
          pinned: roll < 0.5 ? !m.pinned : m.pinned,
          content: roll < 0.7 ? `${sentence()} alpha` : m.content,
          expires_at: roll >= 0.7 ? pick([null, iso(NOW - DAY), iso(NOW + 2 * DAY)]) : m.expires_at,
          updated_at: iso(NOW),
        };
        await store.updateMemory(BIG, { memory: next, embedding: rng() < 0.5 ? gaussVector() : undefined });
        live.set(m.id, next);
      }
      // soft deletes, and a delete undone through updateMemory
      const gone = [pick(ids), pick(ids)].filter((id) => live.get(id)!.deleted_at === null);
      await store.softDelete(BIG, gone, NOW);
      for (const id of gone) live.set(id, { ...live.get(id)!, deleted_at: iso(NOW) });
      if (round === 2) {
        const back = live.get(gone[0] ?? ids[0]!)!;
        const restored = { ...back, deleted_at: null };
        await store.updateMemory(BIG, { memory: restored });
        live.set(back.id, restored);
      }
      // a rolled-back transaction changes nothing
      const victim = pick(ids);
      try {
        dbOf(store).transaction(() => {
          void store.softDelete(BIG, [victim], NOW);
          void store.insertMemories(items(BIG, 1));
          throw new Error("rollback");
        })();
      } catch {}
      expect(vectorIndexCounters.loads).toBe(before.loads); // still loading
    }
    expect(6 * 2 + 1 + 2 * FILTERS.length * TERMS.length).toBeLessThan(chunks); // ticks and keyword searches each read a chunk
    await expectFtsAnswers("writes during load");
    await indexOf(store).settled();
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundDiscards).toBe(before.backgroundDiscards);
    await ref.nearest(BIG, gaussVector(), {}, 1, NOW);
    const cached = counters();
    await expectSameAsReference(BIG, "after writes");
    await expectSameAsReference(BIG, "after writes, 2 days on", NOW + 2 * DAY);
    expect(vectorIndexCounters.sqlScans).toBe(cached.sqlScans);
    expect(vectorIndexCounters.loads).toBe(cached.loads);
  });

  test("another connection's writes during a load are read from the change log and applied when it completes", async () => {
    dropCache();
    const before = counters();
    await store.searchText(BIG, ["alpha"], {}, 5, NOW); // starts the load (a vector search would complete it)
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    await tick();
    await tick();
    await insert(ref, items(BIG, 5, () => ({ content: "alpha alpha zulu" })));
    await insert(ref, items(BIG, 3, () => ({ content: "zulu early", created_at: iso(NOW - 99 * DAY) }))); // behind the load's cursor
    const ids = [...live.keys()];
    const gone = [pick(ids), pick(ids)].filter((id) => live.get(id)!.deleted_at === null);
    await ref.softDelete(BIG, gone, NOW);
    for (const id of gone) live.set(id, { ...live.get(id)!, deleted_at: iso(NOW) });
    const moved = live.get(ids.find((id) => live.get(id)!.deleted_at === null)!)!;
    await ref.updateMemory(BIG, { memory: { ...moved, namespace: "moved", content: "zulu moved", updated_at: iso(NOW) }, embedding: gaussVector() });
    live.set(moved.id, { ...moved, namespace: "moved", content: "zulu moved" });
    await indexOf(store).settled();
    expect(vectorIndexCounters.loads).toBe(before.loads + 1); // completed, not discarded and started again
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    expect(vectorIndexCounters.backgroundDiscards).toBe(before.backgroundDiscards);
    expect(vectorIndexCounters.changesApplied).toBeGreaterThanOrEqual(before.changesApplied + 5 + 3 + gone.length + 1);
    await ref.nearest(BIG, gaussVector(), {}, 1, NOW);
    const cached = counters();
    await expectSameAsReference(BIG, "after the other connection's writes");
    expect(vectorIndexCounters.loads).toBe(cached.loads);
    expect(vectorIndexCounters.sqlScans).toBe(cached.sqlScans);
    expect((await store.searchText(BIG, queryTerms("zulu"), {}, 20, NOW)).length).toBe(9);
  });

  test("another connection's writes to a loaded wallet patch its cache (only the changed rows are read again)", async () => {
    await store.nearest(BIG, gaussVector(), {}, 5, NOW);
    await indexOf(store).settled();
    const before = counters();
    await insert(ref, items(BIG, 4, () => ({ content: "yankee one" })));
    const target = live.get([...live.keys()].find((id) => live.get(id)!.deleted_at === null)!)!;
    await ref.updateMemory(BIG, { memory: { ...target, content: "yankee two", pinned: !target.pinned, updated_at: iso(NOW) } });
    live.set(target.id, { ...target, content: "yankee two", pinned: !target.pinned });
    await ref.nearest(BIG, gaussVector(), {}, 1, NOW);
    const cached = counters();
    await expectSameAsReference(BIG, "patched");
    expect(vectorIndexCounters.loads).toBe(before.loads);
    expect(vectorIndexCounters.changeLogResets).toBe(before.changeLogResets);
    expect(vectorIndexCounters.changesApplied).toBe(before.changesApplied + 5);
    expect(vectorIndexCounters.sqlScans).toBe(cached.sqlScans);
    expect((await store.searchText(BIG, queryTerms("yankee"), {}, 10, NOW)).length).toBe(5);
  });

  test("access counts and importance another connection writes reach the cache's answers: bumps by re-reading the count alone", async () => {
    await store.nearest(BIG, gaussVector(), {}, 5, NOW);
    await indexOf(store).settled();
    const active = [...live.values()].filter((m) => m.deleted_at === null && (m.expires_at === null || Date.parse(m.expires_at) > NOW));
    const bumped = active.slice(0, 40).map((m) => m.id);
    const before = counters();
    ref.recordAccess(BIG, bumped, NOW);
    ref.recordAccess(BIG, bumped.slice(0, 10), NOW);
    await accessLogOf(ref).flush();
    await expectSameAsReference(BIG, "after another connection's access bumps");
    expect(vectorIndexCounters.accessCountsRead).toBe(before.accessCountsRead + 40);
    expect(vectorIndexCounters.loads).toBe(before.loads);
    expect(vectorIndexCounters.changeLogResets).toBe(before.changeLogResets);
    const [first] = await store.getMemories(BIG, [bumped[0]!], NOW);
    const hits = await store.searchText(BIG, queryTerms(first!.content), {}, 3000, NOW);
    expect(hits.find((h) => h.memory.id === first!.id)!.memory.access_count).toBe(first!.access_count);
    expect(first!.access_count).toBeGreaterThanOrEqual(2);
    // importance is mirrored too: another connection's PATCH of it alone is applied
    const target = live.get(bumped[1]!)!;
    await ref.updateMemory(BIG, { memory: { ...(await ref.getMemories(BIG, [target.id], NOW))[0]!, importance: 0.123, updated_at: iso(NOW) } });
    await expectSameAsReference(BIG, "after another connection's importance change");
    const again = await store.searchText(BIG, queryTerms(first!.content), {}, 3000, NOW);
    expect(again.length).toBeGreaterThan(0);
    const near = await store.nearest(BIG, gaussVector(), {}, 3000, NOW);
    expect(near.find((h) => h.memory.id === target.id)!.memory.importance).toBe(0.123);
  });

  test("this connection's access bumps count once in the cache's answers: pending, then written", async () => {
    await store.nearest(BIG, gaussVector(), {}, 5, NOW);
    await indexOf(store).settled();
    const near = await store.nearest(BIG, gaussVector(), {}, 10, NOW);
    const counts = new Map(near.map((h) => [h.memory.id, h.memory.access_count]));
    const ids = [...counts.keys()];
    const countsNow = async () => new Map((await store.nearest(BIG, gaussVector(), {}, 3000, NOW)).filter((h) => counts.has(h.memory.id)).map((h) => [h.memory.id, h.memory.access_count]));
    store.recordAccess(BIG, ids, NOW);
    store.recordAccess(BIG, ids.slice(0, 3), NOW);
    const want = new Map(ids.map((id, i) => [id, counts.get(id)! + (i < 3 ? 2 : 1)]));
    expect(await countsNow()).toEqual(want); // pending
    await accessLogOf(store).flush();
    expect(accessLogOf(store).size).toBe(0);
    expect(await countsNow()).toEqual(want); // written: the cache took the bumps
    await expectSameAsReference(BIG, "after this connection's access bumps");
  });

  test("a change log pruned past this connection's position drops the cache, which loads again from the rows", async () => {
    const user = "user-pruned";
    await insert(store, items(user, 20));
    await store.nearest(user, gaussVector(), {}, 5, NOW);
    const before = counters();
    await insert(ref, items(user, 6, () => ({ content: "xray pruned" })));
    ref.pruneChangeLog(2); // the first 4 of those 6 changes are forgotten
    expect((await store.searchText(user, queryTerms("xray"), {}, 10, NOW)).length).toBe(6);
    expect(vectorIndexCounters.changeLogResets).toBe(before.changeLogResets + 1);
    expect(vectorIndexCounters.loads).toBe(before.loads + 1); // loads again (synchronously)
    await expectSameAsReference(user, "after the reset");
  });

  test("keyword searches advance a load by a chunk each: a busy wallet loads without idle turns", async () => {
    dropCache();
    const before = counters();
    const active = [...live.values()].filter((m) => m.deleted_at === null).length;
    const chunks = Math.floor(active / CHUNK) + 1; // the last read returns less than a chunk
    for (let i = 0; i < chunks - 1; i++) await store.searchText(BIG, ["alpha"], {}, 5, NOW); // no tick between (awaits resolve as microtasks)
    expect(vectorIndexCounters.loads).toBe(before.loads); // not yet: one chunk each
    await store.searchText(BIG, ["alpha"], {}, 5, NOW);
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    await expectSameAsReference(BIG, "loaded by keyword searches");
  });

  test("a vector search waits for a large wallet's load (its exact scan reads every embedding), other wallets answering meanwhile, and answers from the cache", async () => {
    dropCache();
    await store.nearest(SMALL, gaussVector(), {}, 5, NOW); // cached again (synchronously)
    const before = counters();
    await store.searchText(BIG, ["alpha"], {}, 5, NOW); // a load under way
    const query = gaussVector();
    let waited = true;
    const pending = store.nearest(BIG, query, {}, 25, NOW).then((hits) => ((waited = false), hits));
    // the event loop turns while BIG loads: another wallet's search is answered first
    expect(await store.nearest(SMALL, gaussVector(), {}, 5, NOW)).toHaveLength(5);
    expect(waited).toBe(true);
    expect(vectorIndexCounters.loads).toBe(before.loads);
    const got = await pending;
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1); // the one load, not started again
    expect(vectorIndexCounters.sqlScans).toBe(before.sqlScans); // no exact scan
    const exact = indexOf(store).nearestExact(BIG, query, {}, 25, NOW).map((n) => n.rowid);
    const rowids = got.map((h) => (dbOf(store).query("select rowid from memories where id = ?").get(h.memory.id) as { rowid: number }).rowid);
    expect(rowids).toEqual(exact);
  });

  test("a recall's keyword search (a query vector given) waits for a large wallet's load instead of asking FTS5, and answers from the cache", async () => {
    dropCache();
    const before = counters();
    const query = gaussVector();
    const got = await store.searchText(BIG, ["alpha", "bravo"], {}, 30, NOW, query);
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    expect(keywordIndexCounters.sqlFallbacks).toBe(before.keyword.sqlFallbacks); // FTS5 was not asked
    const want = await ref.searchText(BIG, ["alpha", "bravo"], {}, 30, NOW, query);
    expect(got.map((h) => h.memory.id)).toEqual(want.map((h) => h.memory.id));
    expect(got.every((h) => h.similarity !== undefined)).toBe(true);
    // without a query vector (the search endpoint) FTS5 still answers while a load is under way
    dropCache();
    const fallbacks = keywordIndexCounters.sqlFallbacks;
    await store.searchText(BIG, ["alpha"], {}, 5, NOW);
    expect(keywordIndexCounters.sqlFallbacks).toBe(fallbacks + 1);
  });

  test("a list waits for a large wallet's load (its SQL answer costs as much), the event loop turning meanwhile, and answers from the cache", async () => {
    dropCache();
    const before = counters();
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const page = await store.listMemories(BIG, {}, { offset: 0, limit: 20 }, NOW);
    clearInterval(ticking);
    expect(turns).toBeGreaterThan(0);
    expect(vectorIndexCounters.loads).toBe(before.loads + 1);
    expect(vectorIndexCounters.backgroundLoads).toBe(before.backgroundLoads + 1);
    const sql = store.listMemoriesSql(BIG, {}, { offset: 0, limit: 20 }, NOW);
    expect(page.total).toBe(sql.total);
    expect(page.memories.map((m) => m.id)).toEqual(sql.memories.map((m) => m.id));
  });

  test("loads respect the byte budget: a background-loaded wallet evicts others as it grows and is evicted in turn, and answers stay exact", async () => {
    const MID = "user-mid"; // loaded in the background too
    await insert(store, items(MID, 1500));
    // each wallet's bytes, as an unbounded cache counts them once loaded
    const sizes = new SqliteStore(dir, { vectorIndex: { syncLoadMaxRows: 200, loadChunkRows: 500 } });
    await sizes.bindEmbeddingModel(MODEL);
    const bytesOf = async (userId: string) => {
      const before = indexOf(sizes).cached().bytes;
      await sizes.nearest(userId, gaussVector(), {}, 5, NOW);
      await indexOf(sizes).settled();
      return indexOf(sizes).cached().bytes - before;
    };
    const [small, mid, big] = [await bytesOf(SMALL), await bytesOf(MID), await bytesOf(BIG)];
    await sizes.close();
    expect(small).toBeLessThan(mid);
    expect(mid).toBeLessThan(big);

    const budget = big + Math.floor(mid / 2); // BIG fits alone (its load's spare room included), not with MID
    const tight = new SqliteStore(dir, { vectorIndex: { syncLoadMaxRows: 200, loadChunkRows: 500, maxCachedBytes: budget } });
    await tight.bindEmbeddingModel(MODEL); // same model: a no-op write the others notice
    const index = indexOf(tight);
    const cachedIds = () => {
      const { users, bytes } = index.cached();
      expect(bytes).toBeLessThanOrEqual(budget);
      return users;
    };
    const search = async (userId: string) => {
      const query = gaussVector();
      await tight.nearest(userId, query, {}, 5, NOW); // starts or completes its load
      await index.settled();
      const want = await ref.nearest(userId, query, { tags: ["x"] }, 25, NOW);
      const got = await tight.nearest(userId, query, { tags: ["x"] }, 25, NOW);
      expect(got.map((h) => h.memory.id)).toEqual(want.map((h) => h.memory.id));
      const terms = ["alpha", "hotel"];
      expect((await tight.searchText(userId, terms, {}, 30, NOW)).map((h) => h.memory.id)).toEqual((await ref.searchText(userId, terms, {}, 30, NOW)).map((h) => h.memory.id));
    };
    const evictions = vectorIndexCounters.evictions;
    await search(SMALL);
    await search(MID);
    expect(cachedIds()).toBe(2); // SMALL and MID fit together
    await search(BIG);
    expect(cachedIds()).toBe(1); // BIG's load evicted both
    expect(index.cached().rows).toBeGreaterThanOrEqual(BIG_ROWS);
    await search(MID);
    expect(cachedIds()).toBe(1); // MID's evicted BIG
    expect(index.cached().rows).toBe(1500);
    expect(vectorIndexCounters.evictions - evictions).toBe(3);
    await tight.close();
  });
});
