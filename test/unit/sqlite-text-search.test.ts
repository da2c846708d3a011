import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { newMemory, type Memory } from "../../src/domain/memory";

const dir = mkdtempSync(join(tmpdir(), "engram-fts-"));
const store = new SqliteStore(dir);
await store.bindEmbeddingModel({ id: "test", dimension: 4 });
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = "2026-01-01T00:00:00.000Z";
const memory = (user_id: string, content: string, namespace = "default"): Memory => newMemory({ user_id, content, namespace }, at);
const insert = (memories: Memory[]) => store.insertMemories(memories.map((m) => ({ memory: m, embedding: new Float32Array([1, 0, 0, 0]), content_hash: m.id })));
const now = Date.parse("2026-02-01T00:00:00.000Z");

/**
 * searchText/countText are answered by the in-memory keyword index (keyword-index.ts) outside
 * transactions, and by FTS5 (searchTextFts/countTextFts: fast path, then slow path) inside them.
 * Both answers are checked here; keyword-index.test.ts compares the in-memory one with a reference.
 */
const paths = {
  memory: { search: store.searchText.bind(store), count: store.countText.bind(store) },
  fts5: { search: async (...a: Parameters<SqliteStore["searchTextFts"]>) => store.searchTextFts(...a), count: async (...a: Parameters<SqliteStore["countTextFts"]>) => store.countTextFts(...a) },
};

for (const [name, path] of Object.entries(paths)) {
  test(`${name}: filtered BM25 search is exact when other wallets own all the best matches (FTS5: slow path)`, async () => {
    const loud = crypto.randomUUID();
    const quiet = crypto.randomUUID();
    const loudOnes = Array.from({ length: 60 }, (_, i) => memory(loud, `alpha alpha alpha beta ${i}`));
    await insert(loudOnes);
    const mine = [memory(quiet, "one alpha among many other words in a long sentence"), memory(quiet, "alpha again, also diluted by plenty of unrelated words"), memory(quiet, "no match here")];
    await insert(mine);
    const hits = await path.search(quiet, ["alpha"], {}, 2, now);
    expect(hits.map((h) => h.memory.id).sort()).toEqual([mine[0]!.id, mine[1]!.id].sort());
    expect(await path.count(quiet, ["alpha"], {}, now)).toBe(2);
    // the loud wallet's own top hits (FTS5: from the fast path) are ordered by BM25
    const loudHits = await path.search(loud, ["alpha", "beta"], {}, 5, now);
    expect(loudHits).toHaveLength(5);
    const loudIds = new Set(loudOnes.map((m) => m.id));
    expect(loudHits.every((h) => loudIds.has(h.memory.id))).toBe(true);
    for (let i = 1; i < loudHits.length; i++) expect(loudHits[i - 1]!.bm25).toBeGreaterThanOrEqual(loudHits[i]!.bm25);
  });

  test(`${name}: a filter that removes most top matches (FTS5: fast and slow paths agree)`, async () => {
    const user = crypto.randomUUID();
    const work = Array.from({ length: 3 }, (_, i) => memory(user, `gamma report ${i} for the quarterly review`, "work"));
    await insert([...Array.from({ length: 40 }, (_, i) => memory(user, `gamma gamma gamma ${i}`, "home")), ...work]);
    const hits = await path.search(user, ["gamma"], { namespace: "work" }, 3, now);
    expect(hits.map((h) => h.memory.id).sort()).toEqual(work.map((m) => m.id).sort());
    const home = await path.search(user, ["gamma"], { namespace: "home" }, 10, now);
    expect(home).toHaveLength(10);
    expect((await store.getMemories(user, home.map((h) => h.memory.id), now)).every((m) => m.namespace === "home")).toBe(true);
  });
}

test("the count a search remembers is used only for the same wallet state, terms, filter and instant", async () => {
  const user = crypto.randomUUID();
  await insert(Array.from({ length: 6 }, (_, i) => memory(user, `kilo report ${i}`, i < 4 ? "work" : "home")));
  const count = (filter: { namespace?: string }, at = now) => store.countText(user, ["kilo"], filter, at);
  await store.searchText(user, ["kilo"], { namespace: "work" }, 2, now);
  expect(await count({ namespace: "work" })).toBe(4);
  expect(await count({})).toBe(6); // another filter
  await store.searchText(user, ["kilo"], { namespace: "work" }, 2, now);
  await insert([memory(user, "kilo again", "work")]);
  expect(await count({ namespace: "work" })).toBe(5); // a write in between
  await store.searchText(user, ["kilo"], {}, 2, now);
  await store.softDelete(user, [(await store.searchText(user, ["again"], {}, 1, now))[0]!.memory.id], now);
  expect(await count({})).toBe(6);
  expect(store.countTextFts(user, ["kilo"], {}, now)).toBe(6);
});
