import { describe, expect, test } from "bun:test";
import { newMemory, type Memory } from "../../src/domain/memory";
import type { Relation } from "../../src/domain/relation";
import type { MemoryStore, TextHit, VectorHit } from "../../src/domain/store-port";
import { bestKeywordCoverage, Recall, type RecallRequest } from "../../src/domain/recall";
import { termCoverage } from "../../src/domain/scoring";
import { cosine, indexTerms, queryTerms } from "../../src/domain/text";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { conversations, holdout, holdout2 } from "../fixtures/conversations";

const NOW = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;
const DIM = 6;
const WORDS = ["coffee", "morning", "running", "runs", "berlin", "moved", "apartment", "dog", "walks", "prefers", "tea", "office", "likes", "cycling", "paris"];

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/**
 * A wallet the fake engine answers from: coarse vectors and few words (many equal scores, so ties
 * are ranked by id), some memories accessed and pinned, some replaced by others.
 */
function wallet(n: number, seed: number) {
  const rnd = random(seed);
  const vector = () => Float32Array.from({ length: DIM }, () => Math.round(rnd() * 4) - 1);
  const memories: Memory[] = Array.from({ length: n }, (_, i) => {
    const content = Array.from({ length: 3 + Math.floor(rnd() * 8) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
    const memory = newMemory({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, user_id: "u1", content, importance: Math.round(rnd() * 4) / 4 }, new Date(NOW - Math.floor(rnd() * 90) * DAY).toISOString());
    return { ...memory, pinned: rnd() < 0.1, access_count: rnd() < 0.5 ? 0 : Math.floor(rnd() * 5) };
  });
  const vectors = new Map(memories.map((m) => [m.id, vector()]));
  const relations: Relation[] = Array.from({ length: Math.floor(n / 4) }, (_, i) => ({
    id: `10000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    source_id: memories[Math.floor(rnd() * n)]!.id,
    target_id: memories[Math.floor(rnd() * n)]!.id,
    relation_type: (["supersedes", "contradicts", "related_to"] as const)[i % 3]!,
    metadata: {},
    created_at: new Date(NOW).toISOString(),
  }));
  return { memories, vectors, relations, vector };
}

/** An engine over `wallet` (filters ignored): exact vector neighbours, BM25 as the number of query terms a memory holds. */
function engine(w: ReturnType<typeof wallet>, withRelations: boolean, deleted: Set<string>): MemoryStore {
  const byId = new Map(w.memories.map((m) => [m.id, m]));
  const ref = (m: Memory) => ({ id: m.id, created_at: m.created_at, memory_type: m.memory_type, pinned: m.pinned, importance: m.importance, access_count: m.access_count });
  return {
    async searchText(_u: string, terms: string[], _f: object, limit: number, _now: number, vector?: Float32Array | PromiseLike<Float32Array>): Promise<TextHit[]> {
      const q = await vector;
      return w.memories
        .map((m) => ({ m, bm25: terms.filter((t) => indexTerms(m.content).includes(t)).length }))
        .filter(({ bm25 }) => bm25 > 0)
        .sort((a, b) => b.bm25 - a.bm25 || a.m.id.localeCompare(b.m.id))
        .slice(0, limit)
        .map(({ m, bm25 }, i) => ({ memory: ref(m), bm25, ...(q && i % 2 === 0 ? { similarity: cosine(q, w.vectors.get(m.id)!) } : {}) }));
    },
    async termStatistics(_u: string, terms: string[]) {
      return { documents: w.memories.length, frequencies: terms.map((t) => w.memories.filter((m) => indexTerms(m.content).includes(t)).length) };
    },
    async nearest(_u: string, vector: Float32Array, _f: object, k: number): Promise<VectorHit[]> {
      return w.memories
        .map((m) => ({ memory: ref(m), similarity: cosine(vector, w.vectors.get(m.id)!) }))
        .sort((a, b) => b.similarity - a.similarity || a.memory.id.localeCompare(b.memory.id))
        .slice(0, k);
    },
    async embeddings(_u: string, ids: string[]) {
      return new Map(ids.map((id) => [id, w.vectors.get(id)!]));
    },
    async getMemories(_u: string, ids: string[]) {
      return ids.flatMap((id) => (deleted.has(id) ? [] : [byId.get(id)!]));
    },
    async relationsAmong(_u: string, ids: string[]) {
      const among = new Set(ids);
      return withRelations ? w.relations.filter((r) => among.has(r.source_id) && among.has(r.target_id)) : [];
    },
    async recordAccess() {},
    async relationsOf() {
      return [];
    },
  } as unknown as MemoryStore;
}

describe("recall ranks as the full scoring of every candidate does", () => {
  for (const [size, seed] of [[30, 1], [200, 2], [400, 3]] as const) {
    test(`run's results equal the best of rank() over ${size} memories, with and without relations, filters and deleted records`, async () => {
      const w = wallet(size, seed);
      const rnd = random(seed + 100);
      let compared = 0;
      for (const withRelations of [false, true]) {
        for (let q = 0; q < 12; q++) {
          const vector = w.vector();
          const query = Array.from({ length: 1 + (q % 3) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
          const deleted = new Set(q % 4 === 0 ? w.memories.filter(() => rnd() < 0.1).map((m) => m.id) : []);
          const store = engine(w, withRelations, deleted);
          const recall = new Recall(store, { modelId: "test", dimension: DIM, embed: async () => ({ vectors: [vector], tokens: [3] }) }, () => NOW);
          const accept = q % 3 === 0 ? (m: Memory) => m.importance >= 0.5 : undefined;
          for (const [limit, min_similarity] of [[1, 0], [5, 0], [10, 0.05]] as const) {
            const request: RecallRequest = { query, limit, min_similarity, filter: {}, include_relations: false, record_access: true, accept };
            const { results } = await recall.run("u1", request);
            const ranked = (await recall.rank("u1", request, vector, NOW)).filter((r) => r.similarity >= min_similarity);
            const expected = await recall.materialize("u1", ranked, limit, NOW, accept);
            expect(results).toEqual(expected);
            // the same keys in the same order as `{ ...ranked, memory }` (the JSON answer's order)
            expect(results.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r)));
            compared += results.length;
          }
        }
      }
      expect(compared).toBeGreaterThan(100);
    });
  }

  test("a replaced candidate carries superseded_by and ranks below its replacement", async () => {
    const w = wallet(40, 7);
    const [a, b] = [w.memories[0]!, w.memories[1]!];
    w.relations.splice(0, w.relations.length, { id: "20000000-0000-4000-8000-000000000000", source_id: b.id, target_id: a.id, relation_type: "supersedes", metadata: {}, created_at: new Date(NOW).toISOString() });
    w.vectors.set(a.id, Float32Array.from({ length: DIM }, () => 1));
    const recall = new Recall(engine(w, true, new Set()), { modelId: "test", dimension: DIM, embed: async () => ({ vectors: [Float32Array.from({ length: DIM }, () => 1)], tokens: [1] }) }, () => NOW);
    const { results } = await recall.run("u1", { query: "zzz", limit: 40, min_similarity: 0, filter: {}, include_relations: false, record_access: false });
    const ids = results.map((r) => r.memory.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(results.find((r) => r.memory.id === a.id)!.superseded_by).toBe(b.id);
    expect(results.filter((r) => "superseded_by" in r).length).toBe(1);
  });
});

describe("keyword coverage of the best hit", () => {
  test("equals the coverage of the terms among its content's stemmed words", async () => {
    const w = wallet(300, 11);
    const rnd = random(12);
    const store = engine(w, false, new Set());
    for (let q = 0; q < 40; q++) {
      const terms = queryTerms(Array.from({ length: 1 + (q % 4) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" "));
      const hits = await store.searchText("u1", terms, {}, 40, NOW);
      const statistics = await store.termStatistics("u1", terms, NOW);
      // the reference: every tied best hit's content stemmed whole
      const best = hits[0]?.bm25 ?? 0;
      const tied = hits.filter((h) => h.bm25 >= best).slice(0, 8);
      const expected = hits.length === 0 ? null : Math.max(0, ...tied.map((h) => termCoverage(statistics, terms.map((t) => new Set(indexTerms(w.memories.find((m) => m.id === h.memory.id)!.content)).has(t)))));
      expect(await bestKeywordCoverage(store, "u1", terms, hits, statistics, NOW)).toBe(expected);
    }
  });

  test("the sqlite engine's held terms give the coverage its hits' contents give", async () => {
    // every message and expected fact of the fixtures a memory (their sentences, names, digits, accents),
    // every message a query; some with terms in another form than the index's tokens (capitals: FTS5 matches them, recall does not count them held)
    const texts = [...conversations, ...holdout, ...holdout2].flatMap((c) => [...(c.input.messages?.map((m) => m.content) ?? []), c.input.text ?? "", ...c.expected].filter((t) => t.length > 0));
    const dir = mkdtempSync(join(tmpdir(), "engram-coverage-"));
    const store = new SqliteStore(dir);
    try {
      await store.bindEmbeddingModel({ id: "test-coverage", dimension: DIM });
      const memories = texts.map((content, i) => newMemory({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, user_id: "u1", content }, new Date(NOW - i * DAY).toISOString()));
      await store.insertMemories(memories.map((memory) => ({ memory, embedding: Float32Array.from({ length: DIM }, (_, j) => (j === 0 ? 1 : 0)), content_hash: memory.id })));
      const contentOf = new Map(memories.map((m) => [m.id, new Set(indexTerms(m.content))]));
      let told = 0;
      let ties = 0;
      for (const [q, text] of texts.entries()) {
        const terms = q % 7 === 0 ? [...queryTerms(text), "Priya", "Tab"] : queryTerms(text);
        if (terms.length === 0) continue;
        const hits = await store.searchText("u1", terms, {}, 40, NOW);
        const statistics = await store.termStatistics("u1", terms, NOW);
        for (const hit of hits) {
          if (terms.length > 32) {
            expect(hit.held).toBeUndefined();
            continue;
          }
          const held = contentOf.get(hit.memory.id)!;
          expect({ id: hit.memory.id, held: terms.map((_, j) => (hit.held! & (1 << j)) !== 0) }).toEqual({ id: hit.memory.id, held: terms.map((t) => held.has(t)) });
          told++;
        }
        if (hits.length > 1 && hits[1]!.bm25 === hits[0]!.bm25) ties++;
        const fromContent = hits.map(({ held: _, ...hit }) => hit);
        expect({ q, coverage: await bestKeywordCoverage(store, "u1", terms, hits, statistics, NOW) }).toEqual({ q, coverage: await bestKeywordCoverage(store, "u1", terms, fromContent, statistics, NOW) });
      }
      expect(told).toBeGreaterThan(1000);
      expect(ties).toBeGreaterThan(0);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
