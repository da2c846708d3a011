import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { newMemory } from "../../src/domain/memory";
import { cosine } from "../../src/domain/text";

/**
 * Given the query vector, the sqlite engine's keyword hits carry their cosine from the cached
 * vectors (recall then reads no embeddings for them); the value is the one `embeddings` + cosine
 * would give, within the cache's 16-bit fixed-point bound (fixed-point.ts: √dim / 32767 at most).
 */
const FIXED_POINT_BOUND = Math.sqrt(4) / 32767;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const at = "2026-01-01T00:00:00.000Z";
const now = Date.parse("2026-01-02T00:00:00.000Z");

test("keyword hits carry the cosine to the query vector, equal to the stored embedding's", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-text-sim-"));
  dirs.push(dir);
  const store = new SqliteStore(dir);
  await store.bindEmbeddingModel({ id: "test", dimension: 4 });
  const user = crypto.randomUUID();
  const rows = [
    { content: "the deploy runs on friday", embedding: new Float32Array([3, 1, 0, 0]) },
    { content: "friday lunch with the team", embedding: new Float32Array([0, 2, 5, 1]) },
    { content: "nothing in common", embedding: new Float32Array([1, 1, 1, 1]) },
  ].map(({ content, embedding }) => ({ memory: newMemory({ user_id: user, content }, at), embedding, content_hash: content }));
  await store.insertMemories(rows);
  const query = new Float32Array([1, 2, 0.5, -1]);

  const hits = await store.searchText(user, ["friday"], {}, 10, now, query);
  expect(hits.map((h) => h.memory.id).sort()).toEqual([rows[0]!.memory.id, rows[1]!.memory.id].sort());
  const stored = await store.embeddings(user, hits.map((h) => h.memory.id));
  for (const hit of hits) {
    expect(hit.similarity).toBeDefined();
    expect(Math.abs(hit.similarity! - cosine(query, stored.get(hit.memory.id)!))).toBeLessThanOrEqual(FIXED_POINT_BOUND);
  }
  // the vector still on its way (recall's query in the embedder): the search runs at once, the cosines follow
  let deliver: (v: Float32Array) => void = () => {};
  const later = store.searchText(user, ["friday"], {}, 10, now, new Promise<Float32Array>((resolve) => (deliver = resolve)));
  await store.softDelete(user, [hits[0]!.memory.id], now); // after the search, before the vector: the hit stays, as searched
  deliver(query);
  expect((await later).map((h) => [h.memory.id, h.similarity])).toEqual(hits.map((h) => [h.memory.id, h.similarity]));
  // without a vector (keyword search), or with one of another dimension, no cosine is made up
  expect((await store.searchText(user, ["friday"], {}, 10, now)).every((h) => h.similarity === undefined)).toBe(true);
  expect((await store.searchText(user, ["friday"], {}, 10, now, new Float32Array([1, 2]))).every((h) => h.similarity === undefined)).toBe(true);
  await store.close();
});
