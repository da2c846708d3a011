/**
 * Retrieval quality: the labelled targets of quality-set.ts mixed into synthetic distractors in one
 * wallet, one query per target. Prints recall@1/@5/@10 and MRR for
 *
 *  - vector-only: the engine's nearest neighbours by cosine (k = 100);
 *  - BM25-only:   the engine's keyword search (k = 100), terms as the domain extracts them;
 *  - hybrid:      the real `Recall.rank` (limit 10, so 40 candidates from each retriever).
 *
 *   bun scripts/bench/quality.ts [--distractors 2000] [--seed 1] [--engine sqlite|redis] [--misses]
 *
 * Every memory is created "now" with importance 0.5 and no accesses, so recency, importance,
 * access and type decay are the same for all and the ranking is the text match alone.
 * --misses lists the queries whose target hybrid does not put in its top 5.
 *
 * A last table re-scores hybrid's own candidates with variants of the keyword normalization
 * (scoring.ts `keywordMatch`), everything else as in `score`; "current" must equal hybrid.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startEmbedder } from "../../src/embed/embedder.ts";
import { ensureGloveModel, GLOVE_MODEL_ID } from "../../src/embed/glove-model.ts";
import { Recall } from "../../src/domain/recall.ts";
import { keywordMatch, score } from "../../src/domain/scoring.ts";
import { contentHash, cosine, queryTerms, termCoverage, words } from "../../src/domain/text.ts";
import type { Memory, MemoryType } from "../../src/domain/memory.ts";
import type { MemoryStore, StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { QUALITY_SET, type QueryKind } from "./quality-set.ts";
import { prng, syntheticMemory } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    distractors: { type: "string", default: "2000" },
    seed: { type: "string", default: "1" },
    engine: { type: "string", default: "sqlite" },
    misses: { type: "boolean", default: false },
    "cache-dir": { type: "string" },
  },
});
const cacheDir = resolve(args["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
const log = (m: string) => console.error(`[quality] ${m}`);

// Labels must match the actual overlap of query terms with the target's words.
const labelProblems = QUALITY_SET.flatMap((c) => {
  const present = new Set(words(c.content));
  const shared = queryTerms(c.query).filter((t) => present.has(t));
  const wrong = (c.kind === "semantic" && shared.length > 0) || (c.kind !== "semantic" && shared.length === 0);
  return wrong ? [`${c.id} (${c.kind}): shares [${shared.join(", ")}]`] : [];
});
if (labelProblems.length) log(`label check: ${labelProblems.length} label(s) disagree with the term overlap:\n  ${labelProblems.join("\n  ")}`);

async function openStore(dir: string): Promise<MemoryStore> {
  if (args.engine === "sqlite") return new SqliteStore(dir);
  if (args.engine !== "redis") throw new Error("--engine must be sqlite or redis");
  if (!process.env.REDIS_URL) throw new Error("--engine redis: set REDIS_URL to a Redis Stack server");
  const modulePath: string = "../../src/store/redis/redis-store.ts";
  const mod = (await import(modulePath)) as { RedisStore: { connect(url: string, o: { keyPrefix: string }): Promise<MemoryStore> } };
  return mod.RedisStore.connect(process.env.REDIS_URL, { keyPrefix: `engram-quality-${Date.now()}:` });
}

await ensureGloveModel({ cacheDir });
const embedder = await startEmbedder({ model: GLOVE_MODEL_ID, cacheDir });
const dir = mkdtempSync(join(tmpdir(), "engram-quality-"));
const store = await openStore(dir);
await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
const userId = crypto.randomUUID();
const now = Date.now();
const at = new Date(now).toISOString();

function memory(content: string, memory_type: MemoryType): Memory {
  return {
    id: crypto.randomUUID(), user_id: userId, namespace: "default", content, metadata: {}, importance: 0.5, memory_type,
    session_id: null, agent_id: null, pinned: false, immutable: false, expires_at: null,
    created_at: at, updated_at: at, accessed_at: at, access_count: 0, deleted_at: null,
  };
}

const rng = prng(Number(args.seed));
const distractors = Array.from({ length: Number(args.distractors) }, () => {
  const s = syntheticMemory(rng);
  return memory(s.content, s.memory_type);
});
const targets = QUALITY_SET.map((c) => memory(c.content, c.memory_type));
const targetOf = new Map(QUALITY_SET.map((c, i) => [c.id, targets[i]!.id]));
// targets interleaved at fixed pseudo-random places, so insertion order says nothing
const all = [...distractors];
for (const t of targets) all.splice(Math.floor(rng() * (all.length + 1)), 0, t);
for (let i = 0; i < all.length; i += 64) {
  const batch = all.slice(i, i + 64);
  const { vectors } = await embedder.embed(batch.map((m) => m.content));
  await store.insertMemories(batch.map((m, j): StoredMemory => ({ memory: m, embedding: vectors[j]!, content_hash: contentHash(m.content) })));
}
log(`stored ${targets.length} targets + ${distractors.length} distractors`);

const recall = new Recall(store, embedder, () => now);
type Method = "vector" | "bm25" | "hybrid";
const METHODS: Method[] = ["vector", "bm25", "hybrid"];
/** 1-based rank of the target per method and query (0 = not returned). */
const ranks: Record<Method, number[]> = { vector: [], bm25: [], hybrid: [] };

/** Keyword-normalization variants: (bm25, best bm25 of the query, term coverage, IDF-weighted coverage) → 0..1, optionally with the cosine rescaled too. */
type Rescale = (cos: number, min: number, max: number) => number;
const minMax: Rescale = (cos, min, max) => (max > min ? (cos - min) / (max - min) : cos);
const VARIANTS: [string, (bm25: number, best: number, coverage: number, idfCoverage: number) => number, Rescale?][] = [
  ["current: min(1, bm25/best) × coverage", (b, best, cov) => keywordMatch(b, best, cov)],
  ["min(1, bm25/best) × coverage²", (b, best, cov) => keywordMatch(b, best, cov) * cov],
  ["min(1, bm25/best) × IDF-weighted coverage", (b, best, _cov, idf) => keywordMatch(b, best, idf)],
  ["IDF-weighted coverage alone", (b, _best, _cov, idf) => (b > 0 ? idf : 0)],
  ["min(1, bm25/best) × IDF-weighted coverage²", (b, best, _cov, idf) => keywordMatch(b, best, idf) * idf],
  ["current keyword, cosine min-max scaled over the candidates", (b, best, cov) => keywordMatch(b, best, cov), minMax],
  ["IDF-weighted coverage, cosine min-max scaled", (b, _best, _cov, idf) => (b > 0 ? idf : 0), minMax],
];
const variantRanks: number[][] = VARIANTS.map(() => []);
const totalMemories = distractors.length + targets.length;
const idfCache = new Map<string, number>();
async function idf(term: string): Promise<number> {
  let value = idfCache.get(term);
  if (value === undefined) {
    const df = await store.countText(userId, [term], {}, now);
    value = Math.log(1 + (totalMemories - df + 0.5) / (df + 0.5));
    idfCache.set(term, value);
  }
  return value;
}

/** Recall.rank's candidates and signals, re-scored with each keyword variant. */
async function rescoreVariants(query: string, qv: Float32Array, target: string): Promise<void> {
  const terms = queryTerms(query);
  const k = 40;
  const [near, text] = await Promise.all([store.nearest(userId, qv, {}, k, now), store.searchText(userId, terms, {}, k, now)]);
  const cosines = new Map(near.map((h) => [h.memory.id, h.similarity]));
  const candidates = new Map<string, Memory>([...near, ...text].map((h) => [h.memory.id, h.memory]));
  const textOnly = text.map((h) => h.memory.id).filter((id) => !cosines.has(id));
  for (const [id, vector] of await store.embeddings(userId, textOnly)) cosines.set(id, cosine(qv, vector));
  const bm25 = new Map(text.map((h) => [h.memory.id, h.bm25]));
  const best = Math.max(0, ...bm25.values());
  const weights = await Promise.all(terms.map(idf));
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const cosValues = [...candidates.keys()].map((id) => cosines.get(id) ?? 0);
  const [minCos, maxCos] = [Math.min(...cosValues), Math.max(...cosValues)];
  for (const [v, [, keyword, rescale]] of VARIANTS.entries()) {
    const ranked = [...candidates.values()]
      .map((memory) => {
        const present = new Set(words(memory.content));
        const idfCoverage = weightSum > 0 ? terms.reduce((sum, t, i) => sum + (present.has(t) ? weights[i]! : 0), 0) / weightSum : 0;
        const kw = keyword(bm25.get(memory.id) ?? 0, best, termCoverage(terms, memory.content), idfCoverage);
        const cos = cosines.get(memory.id) ?? 0;
        return { memory, similarity: score({ memory, cosine: rescale ? rescale(cos, minCos, maxCos) : cos, keyword: kw, relationCount: 0 }, now).similarity };
      })
      .sort((a, b) => b.similarity - a.similarity || a.memory.id.localeCompare(b.memory.id));
    variantRanks[v]!.push(ranked.findIndex((r) => r.memory.id === target) + 1);
  }
}
const misses: string[] = [];
for (const c of QUALITY_SET) {
  const target = targetOf.get(c.id)!;
  const { vectors } = await embedder.embed([c.query]);
  const qv = vectors[0]!;
  const near = await store.nearest(userId, qv, {}, 100, now);
  const text = await store.searchText(userId, queryTerms(c.query), {}, 100, now);
  const hybrid = await recall.rank(userId, { query: c.query, limit: 10, filter: {} }, qv, now);
  const rankOf = (ids: string[]) => ids.indexOf(target) + 1;
  ranks.vector.push(rankOf(near.map((h) => h.memory.id)));
  ranks.bm25.push(rankOf(text.map((h) => h.memory.id)));
  const r = rankOf(hybrid.map((h) => h.memory.id));
  ranks.hybrid.push(r);
  await rescoreVariants(c.query, qv, target);
  if (args.misses && (r === 0 || r > 5)) {
    const top = hybrid[0];
    misses.push(`${c.id} [${c.kind}] "${c.query}" → rank ${r || "none"} (vector ${ranks.vector.at(-1) || "-"}, bm25 ${ranks.bm25.at(-1) || "-"}); top: "${top?.memory.content}"`);
  }
}
await embedder.close();
await store.close();
rmSync(dir, { recursive: true, force: true });

function metrics(rs: number[]) {
  const at = (k: number) => rs.filter((r) => r > 0 && r <= k).length / rs.length;
  const mrr = rs.reduce((sum, r) => sum + (r > 0 ? 1 / r : 0), 0) / rs.length;
  return { r1: at(1), r5: at(5), r10: at(10), mrr };
}
const pct = (x: number) => (x * 100).toFixed(1);
const lines: string[] = [];
const out = (line: string) => void lines.push(line);
out(`## retrieval quality: ${args.engine}, ${GLOVE_MODEL_ID}, ${QUALITY_SET.length} queries, ${targets.length} targets in ${all.length} memories (seed ${args.seed})`);
out("");
out("| method | recall@1 | recall@5 | recall@10 | MRR |");
out("|---|---|---|---|---|");
for (const m of METHODS) {
  const s = metrics(ranks[m]);
  out(`| ${m === "vector" ? "vector-only (cosine)" : m === "bm25" ? "BM25-only" : "hybrid (Recall.rank)"} | ${pct(s.r1)}% | ${pct(s.r5)}% | ${pct(s.r10)}% | ${s.mrr.toFixed(3)} |`);
}
out("");
out("By query kind (recall@5 / MRR):");
out("");
out("| kind | queries | vector-only | BM25-only | hybrid |");
out("|---|---|---|---|---|");
for (const kind of ["overlap", "semantic", "keyword"] as QueryKind[]) {
  const idx = QUALITY_SET.flatMap((c, i) => (c.kind === kind ? [i] : []));
  const cell = (m: Method) => {
    const s = metrics(idx.map((i) => ranks[m][i]!));
    return `${pct(s.r5)}% / ${s.mrr.toFixed(3)}`;
  };
  out(`| ${kind} | ${idx.length} | ${cell("vector")} | ${cell("bm25")} | ${cell("hybrid")} |`);
}
out("");
out("Keyword-normalization variants, re-scoring hybrid's candidates (recall@1 / @5 / @10, MRR; semantic-only recall@5; keyword-only recall@5):");
out("");
out("| keyword signal | recall@1 | recall@5 | recall@10 | MRR | semantic r@5 | overlap r@5 | keyword r@5 |");
out("|---|---|---|---|---|---|---|---|");
for (const [v, [label]] of VARIANTS.entries()) {
  const rs = variantRanks[v]!;
  const s = metrics(rs);
  const kind = (k: QueryKind) => pct(metrics(QUALITY_SET.flatMap((c, i) => (c.kind === k ? [rs[i]!] : []))).r5);
  out(`| ${label} | ${pct(s.r1)}% | ${pct(s.r5)}% | ${pct(s.r10)}% | ${s.mrr.toFixed(3)} | ${kind("semantic")}% | ${kind("overlap")}% | ${kind("keyword")}% |`);
}
if (labelProblems.length) out(`\n(${labelProblems.length} label(s) disagree with the term overlap; see stderr)`);
if (misses.length) out(`\nHybrid misses (not in top 5):\n\n${misses.map((m) => `- ${m}`).join("\n")}`);
console.log(lines.join("\n"));
process.exit(0);
