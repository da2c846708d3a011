/**
 * Recall's fusion of the vector and keyword signals against its parts, offline: every recall
 * candidate's raw signals are captured once per question, then ranked under each variant of the
 * fusion with the product's own scoring functions. The calibration of VECTOR_CEILING and
 * FULL_TRUST_COVERAGE (src/domain/scoring.ts) comes from this table (docs/retrieval.md › Calibrating
 * the fusion).
 *
 *   bun scripts/bench/fusion.ts [--datasets realmem,facts,paraphrase] [--scales 1k,10k] [--personas 10]
 *                               [--seed 1] [--cache DIR]
 *
 * Data: built as quality.ts builds it (see there), stored through the domain (Memories.storeMany,
 * no HTTP) into an embedded SQLite store: RealMem turns stored in order at their session's date,
 * each question asked before the later turns are stored, other personas' turns as distractors up to
 * the scale; facts and paraphrase among synthetic distractors (synthetic.ts, `--seed`).
 *
 * Capture: for each question, what recall reads at limit 10 (40 candidates per retriever): the
 * vector neighbours' and keyword hits' cosines and BM25 scores, the neighbours' cosines for the
 * background, and the coverage of the query's IDF mass by the best keyword hit (the most covering of
 * those tied with the best), from the wallet's term statistics as recall reads them. Recalls are
 * not counted as accesses (access count 0 everywhere), and no relations are read. `--cache DIR`
 * keeps each capture as JSON and reuses it (delete it after changing the data, the store or the
 * model); without it, captures live in memory only.
 *
 * Methods: `vector only` (candidates by cosine), `keyword only` (BM25 hits by score), and recall's
 * ranking (scoring.ts `score`, access count 0, no relations) with keyword trust off (trust 1) or at
 * each full-trust coverage, each with each vector ceiling share; at the adopted settings, fusions
 * that lean on the vector and were not adopted (max fusion; the keyword signal faded below the vector
 * background, or below the query's best cosine); and reciprocal rank fusion of the two lists. Prints
 * one table per scale: R@1 / R@5 / R@10 in percent per data set and hit level (a hit at rank > 10 or
 * none counts as a miss); then, for the questions only one signal answers within the top 5, what
 * recall could read of it beforehand (evidenceRows).
 */
import { parseArgs } from "node:util";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { buildDeps } from "../../src/http/deps.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import type { MemoryRef } from "../../src/domain/store-port.ts";
import { LIMITS } from "../../src/domain/memory.ts";
import { cosine, queryTerms } from "../../src/domain/text.ts";
import { bestKeywordCoverage, candidatesPerRetriever } from "../../src/domain/recall.ts";
import { cosineBackground, FULL_TRUST_COVERAGE, keywordMatch, keywordTrust, queryMatch, relativeRelevance, score, VECTOR_CEILING, vectorSimilarity } from "../../src/domain/scoring.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { loadRealMem } from "./realmem.ts";
import { QUALITY_SET } from "./quality-set.ts";
import { PARAPHRASE_SET } from "./paraphrase-set.ts";
import { prng, syntheticMemory } from "./synthetic.ts";
import { BENCH_MODEL, printTable, startBenchEmbedder } from "./bench-util.ts";

const { values: args } = parseArgs({
  options: {
    datasets: { type: "string", default: "realmem,facts,paraphrase" },
    scales: { type: "string", default: "1k,10k" },
    personas: { type: "string", default: "10" },
    seed: { type: "string", default: "1" },
    cache: { type: "string" },
  },
});
const log = (m: string) => console.error(`[fusion] ${m}`);
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
/** Results asked for, and the candidates per retriever recall reads for them. */
const LIMIT = 10;
const K = candidatesPerRetriever(LIMIT);

/** One candidate of one question: recall's raw signals and which hit levels it satisfies. */
interface Candidate {
  memory: MemoryRef;
  cosine: number;
  /** 0 when the keyword search did not return it */
  bm25: number;
  /** bit i set: a hit at the data set's level i */
  hits: number;
}
interface Question {
  now: number;
  /** the vector neighbours' cosines (cosineBackground) */
  near: number[];
  /** the best keyword hit's coverage of the query's IDF mass; null when recall trusts the keyword signal fully (no hits, no terms) */
  bestCoverage: number | null;
  /** bit i set: the question counts at level i */
  asks: number;
  candidates: Candidate[];
}
interface Capture {
  model: string;
  levels: string[];
  questions: Question[];
}

// ---------------------------------------------------------------------------------------------------
// capture

/** A store on a temporary dir and the domain over it, with a clock the bench sets. */
async function openService(embedder: Embedder) {
  const dir = mkdtempSync(join(tmpdir(), "engram-fusion-"));
  const store = new SqliteStore(dir);
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  let clock = 0;
  const deps = buildDeps(await withSessionSecret(loadConfig({ DATA_DIR: dir, MODEL_CACHE_DIR: cacheDir }), store), store, embedder, () => clock);
  return {
    store,
    setClock: (ms: number) => void (clock = ms),
    now: () => clock,
    userOf: (n: number) => store.userIdForWallet("0x" + String(n).padStart(40, "0")),
    /** Stores contents in batches of the spec's maximum; returns the id each content ended up under. */
    async storeAll(userId: string, items: { content: string; session_id?: string }[]): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < items.length; i += LIMITS.batch) ids.push(...(await deps.memories.storeMany(userId, items.slice(i, i + LIMITS.batch))).ids);
      return ids;
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
type Service = Awaited<ReturnType<typeof openService>>;

/** What recall reads for `query` at the service's clock, without ranking it (recall.ts `candidates`). */
async function capture(service: Service, embedder: Embedder, userId: string, query: string, hits: (id: string) => number, asks: number): Promise<Question> {
  const { store } = service;
  const now = service.now();
  const vector = (await embedder.embed([query])).vectors[0]!;
  const terms = queryTerms(query);
  const [textHits, near, statistics] = await Promise.all([
    store.searchText(userId, terms, {}, K, now, vector),
    vector.every((x) => x === 0) ? [] : store.nearest(userId, vector, {}, K, now),
    terms.length > 0 ? store.termStatistics(userId, terms, now) : null,
  ]);
  const cosines = new Map(near.map((h) => [h.memory.id, h.similarity]));
  for (const h of textHits) if (h.similarity !== undefined && !cosines.has(h.memory.id)) cosines.set(h.memory.id, h.similarity);
  const textOnly = textHits.map((h) => h.memory.id).filter((id) => !cosines.has(id));
  for (const [id, v] of await store.embeddings(userId, textOnly)) cosines.set(id, cosine(vector, v));
  const bestCoverage = await bestKeywordCoverage(store, userId, terms, textHits, statistics, now);
  const bm25 = new Map(textHits.map((h) => [h.memory.id, h.bm25]));
  const refs = new Map<string, MemoryRef>([...near, ...textHits].map((h) => [h.memory.id, h.memory]));
  const candidates = [...refs.values()].map((memory) => ({ memory, cosine: cosines.get(memory.id) ?? 0, bm25: bm25.get(memory.id) ?? 0, hits: hits(memory.id) }));
  return { now, near: near.map((h) => h.similarity), bestCoverage, asks, candidates };
}

/** RealMem, as quality.ts runs it: one wallet per persona, distractors first, then its turns and questions in order. */
async function captureRealMem(embedder: Embedder, scale: number): Promise<Question[]> {
  const all = loadRealMem(LIMITS.content);
  const personas = all.slice(0, Number(args.personas));
  const service = await openService(embedder);
  const questions: Question[] = [];
  for (const [p, persona] of personas.entries()) {
    const started = performance.now();
    const userId = await service.userOf(p);
    const own = persona.events.reduce((n, e) => n + (e.kind === "turn" ? e.chunks.length : 0), 0);
    const distractors = all
      .filter((q) => q !== persona)
      .flatMap((q) => q.events.flatMap((e) => (e.kind === "turn" ? e.chunks : [])))
      .slice(0, Math.max(0, scale - own));
    service.setClock(persona.events[0]!.at);
    await service.storeAll(userId, distractors.map((content) => ({ content })));
    const turnsOf = new Map<string, string[]>(); // memory id → turn keys
    const sessionsOf = new Map<string, Set<string>>(); // memory id → sessions
    let pending: { content: string; session_id: string; key: string }[] = [];
    const flush = async () => {
      const ids = await service.storeAll(userId, pending.map(({ content, session_id }) => ({ content, session_id })));
      ids.forEach((id, i) => {
        turnsOf.set(id, [...(turnsOf.get(id) ?? []), pending[i]!.key]);
        sessionsOf.set(id, (sessionsOf.get(id) ?? new Set()).add(pending[i]!.session_id));
      });
      pending = [];
    };
    let asked = 0;
    for (const event of persona.events) {
      service.setClock(event.at);
      if (event.kind === "turn") {
        for (const content of event.chunks) pending.push({ content, session_id: event.session, key: event.key });
        continue;
      }
      await flush();
      const turnHit = (id: string) => (turnsOf.get(id) ?? []).some((k) => event.evidenceTurns.has(k));
      const sessionHit = (id: string) => [...(sessionsOf.get(id) ?? [])].some((s) => event.evidenceSessions.has(s));
      const hits = (id: string) => (turnHit(id) ? 1 : 0) | (sessionHit(id) ? 2 : 0);
      questions.push(await capture(service, embedder, userId, event.text, hits, (event.evidenceTurns.size > 0 ? 1 : 0) | 2));
      asked++;
    }
    log(`realmem ${scale}: ${p + 1}/${personas.length} ${persona.name}: ${own} turns + ${distractors.length} distractors, ${asked} questions, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  await service.close();
  return questions;
}

/** Facts or paraphrase, as quality.ts runs them: the targets and hard distractors at pseudo-random places among synthetic memories, then one question per target. */
async function captureLabelled(embedder: Embedder, dataset: string, targets: { memory: string; question: string }[], hard: string[], scale: number): Promise<Question[]> {
  const service = await openService(embedder);
  service.setClock(Date.now());
  const userId = await service.userOf(1);
  const rng = prng(Number(args.seed));
  const contents = Array.from({ length: Math.max(0, scale - targets.length - hard.length) }, () => syntheticMemory(rng).content);
  for (const content of [...hard, ...targets.map((t) => t.memory)]) contents.splice(Math.floor(rng() * (contents.length + 1)), 0, content);
  log(`${dataset} ${scale}: storing ${contents.length} memories…`);
  const ids = await service.storeAll(userId, contents.map((content) => ({ content })));
  const idOf = new Map(contents.map((c, i) => [c, ids[i]!]));
  const stored = new Map<string, number>();
  for (const id of ids) stored.set(id, (stored.get(id) ?? 0) + 1);
  const merged = targets.filter((t) => stored.get(idOf.get(t.memory)!)! > 1);
  if (merged.length > 0) throw new Error(`${dataset}: targets merged with other memories as duplicates: ${merged.map((t) => JSON.stringify(t.memory)).join(", ")}`);
  const questions: Question[] = [];
  for (const t of targets) {
    const target = idOf.get(t.memory)!;
    questions.push(await capture(service, embedder, userId, t.question, (id) => (id === target ? 1 : 0), 1));
  }
  log(`${dataset} ${scale}: ${targets.length} questions`);
  await service.close();
  return questions;
}

const LEVELS: Record<string, string[]> = { realmem: ["turn", "session"], facts: ["fact"], paraphrase: ["memory"] };

let embedder: Embedder | undefined;
/** The data set's capture at `scale`: from the cache when it holds it, else captured (and cached). */
async function captureOf(dataset: string, scale: number, label: string): Promise<Capture> {
  const levels = LEVELS[dataset];
  if (!levels) throw new Error(`unknown data set "${dataset}": use realmem, facts and/or paraphrase`);
  const key = dataset === "realmem" ? `${dataset}-${label}-personas${args.personas}` : `${dataset}-${label}-seed${args.seed}`;
  const file = args.cache ? join(args.cache, `${key}-${BENCH_MODEL.replace(/[^\w.-]+/g, "_")}.json`) : null;
  if (file && existsSync(file)) {
    log(`${key}: from ${file}`);
    return JSON.parse(readFileSync(file, "utf8")) as Capture;
  }
  embedder ??= await startBenchEmbedder(cacheDir);
  const started = performance.now();
  const questions =
    dataset === "realmem"
      ? await captureRealMem(embedder, scale)
      : dataset === "facts"
        ? await captureLabelled(embedder, dataset, QUALITY_SET.map((c) => ({ memory: c.content, question: c.query })), [], scale)
        : await captureLabelled(embedder, dataset, PARAPHRASE_SET, PARAPHRASE_SET.flatMap((c) => c.distractors), scale);
  log(`${key}: captured in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const result: Capture = { model: embedder.modelId, levels, questions };
  if (file) {
    mkdirSync(args.cache!, { recursive: true });
    writeFileSync(file, JSON.stringify(result));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// evaluation

/** Candidates best first under one method; ties by id, as recall breaks them. */
type Ranking = (q: Question) => Candidate[];
const byScore = (scored: { c: Candidate; s: number }[]) => scored.sort((a, b) => b.s - a.s || a.c.memory.id.localeCompare(b.c.memory.id)).map((x) => x.c);

const vectorOnly: Ranking = (q) => byScore(q.candidates.map((c) => ({ c, s: c.cosine })));
const keywordOnly: Ranking = (q) => byScore(q.candidates.filter((c) => c.bm25 > 0).map((c) => ({ c, s: c.bm25 })));

/** Variants measured beside the adopted fusion and not adopted (docs/retrieval.md › Calibrating the fusion). */
interface Variant {
  /** keyword signal faded for candidates whose cosine lies below the query's background, to 0 at this many standard deviations of its neighbourhood */
  fadeBelowBackground?: number;
  /** relative relevance from the larger of the two weighted terms (max fusion) instead of their sum */
  maxFusion?: boolean;
  /** keyword signal faded for candidates whose cosine lies below the query's best cosine, to 0 at this many standard deviations of its neighbourhood */
  fadeBelowBest?: number;
}

/** The standard deviation of the neighbours' cosines around their median (cosineBackground). */
function neighbourSpread(near: number[], background: number): number {
  if (near.length === 0) return 0;
  return Math.sqrt(near.reduce((sum, c) => sum + (c - background) ** 2, 0) / near.length);
}

/** Recall's ranking (recall.ts `candidates` and `rank`) with access count 0 and no relations; `fullTrust` null: keyword trust off. */
function recallRanking(ceilingShare: number, fullTrust: number | null, variant: Variant = {}): Ranking {
  return (q) => {
    const background = cosineBackground(q.near, K);
    const spread = neighbourSpread(q.near, background);
    const bestCosine = Math.max(0, ...q.candidates.map((c) => c.cosine));
    const bestBm25 = Math.max(0, ...q.candidates.map((c) => c.bm25));
    const trust = fullTrust === null || q.bestCoverage === null ? 1 : keywordTrust(q.bestCoverage, fullTrust);
    // the keyword signal kept in full at `from` and above, faded to 0 `sd` standard deviations below it
    const fade = (cosine: number, from: number, sd: number | undefined) => (sd === undefined || spread === 0 ? 1 : Math.min(1, Math.max(0, 1 + (cosine - from) / (sd * spread))));
    const faded = (c: Candidate) => fade(c.cosine, background, variant.fadeBelowBackground) * fade(c.cosine, bestCosine, variant.fadeBelowBest);
    const matched = q.candidates.map((c) => {
      const vector = vectorSimilarity(c.cosine, background, bestCosine, ceilingShare);
      const keyword = keywordMatch(c.bm25, bestBm25, trust) * faded(c);
      const match = variant.maxFusion ? Math.max(queryMatch(vector, 0), queryMatch(0, keyword)) : queryMatch(vector, keyword);
      return { c, vector, keyword, match };
    });
    const bestMatch = Math.max(0, ...matched.map((m) => m.match));
    return byScore(
      matched.map(({ c, vector, keyword, match }) => {
        const evidence = { memory: { ...c.memory, access_count: 0 }, vector, keyword, relevance: relativeRelevance(match, bestMatch), relationCount: 0 };
        return { c, s: score(evidence, q.now).similarity };
      }),
    );
  };
}

/** Reciprocal rank fusion of the two lists (k = 60, as its authors set it): ranks only, no scores. */
const reciprocalRankFusion: Ranking = (q) => {
  const fused = new Map<Candidate, number>();
  for (const list of [vectorOnly(q), keywordOnly(q)]) list.forEach((c, i) => fused.set(c, (fused.get(c) ?? 0) + 1 / (60 + i + 1)));
  return byScore([...fused].map(([c, s]) => ({ c, s })));
};

const FORMER = { ceiling: 0.5, trust: null };
const methods: { name: string; rank: Ranking }[] = [
  { name: "vector only", rank: vectorOnly },
  { name: "keyword only", rank: keywordOnly },
  ...[null, 0.3, 0.4, 0.5, 0.6].flatMap((trust) =>
    [0.4, 0.5].map((ceiling) => {
      const mark = trust === FULL_TRUST_COVERAGE && ceiling === VECTOR_CEILING ? " **(adopted)**" : trust === FORMER.trust && ceiling === FORMER.ceiling ? " (former rule)" : "";
      return { name: `recall, trust ${trust === null ? "off" : trust}, ceiling ${ceiling}${mark}`, rank: recallRanking(ceiling, trust) };
    }),
  ),
  { name: `recall, trust ${FULL_TRUST_COVERAGE}, relevance by the larger weighted term (max fusion)`, rank: recallRanking(VECTOR_CEILING, FULL_TRUST_COVERAGE, { maxFusion: true }) },
  ...[2, 4].map((sd) => ({
    name: `recall, trust ${FULL_TRUST_COVERAGE}, keyword faded below the vector background (to 0 at ${sd} sd)`,
    rank: recallRanking(VECTOR_CEILING, FULL_TRUST_COVERAGE, { fadeBelowBackground: sd }),
  })),
  ...[2, 8].map((sd) => ({
    name: `recall, trust ${FULL_TRUST_COVERAGE}, keyword faded below the query's best cosine (to 0 at ${sd} sd)`,
    rank: recallRanking(VECTOR_CEILING, FULL_TRUST_COVERAGE, { fadeBelowBest: sd }),
  })),
  { name: "reciprocal rank fusion of the two lists (k = 60)", rank: reciprocalRankFusion },
];

/** R@1 / R@5 / R@10 in percent at one level: the share of the questions asked at it with a hit in the top 1, 5, 10. */
function recallAt(captured: Capture, rank: Ranking, level: number): string {
  const bit = 1 << level;
  const firstHits = captured.questions.filter((q) => q.asks & bit).map((q) => rank(q).findIndex((c) => c.hits & bit) + 1);
  const at = (k: number) => ((100 * firstHits.filter((r) => r > 0 && r <= k).length) / Math.max(1, firstHits.length)).toFixed(1);
  return [1, 5, LIMIT].map(at).join(" / ");
}

/**
 * What each question tells recall about which signal to follow, for the questions that only one
 * signal answers within the top 5: the best cosine's distance above the background in standard
 * deviations of the neighbourhood (neighbourSpread), and the best keyword hit's coverage of the
 * query's IDF mass (the keyword trust's input). Quartiles (25th / 50th / 75th percentile).
 */
function evidenceRows(captured: Capture, dataset: string): string[][] {
  const quartiles = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    if (sorted.length === 0) return "—";
    return [0.25, 0.5, 0.75].map((p) => (sorted[Math.floor(p * (sorted.length - 1))] ?? NaN).toFixed(2)).join(" / ");
  };
  return captured.levels.flatMap((level, i) => {
    const bit = 1 << i;
    const groups = { "vector alone": [] as Question[], "keyword alone": [] as Question[] };
    for (const q of captured.questions) {
      if (!(q.asks & bit) || q.bestCoverage === null) continue;
      const within5 = (rank: Ranking) => rank(q).slice(0, 5).some((c) => c.hits & bit);
      const [byVector, byKeyword] = [within5(vectorOnly), within5(keywordOnly)];
      if (byVector !== byKeyword) groups[byVector ? "vector alone" : "keyword alone"].push(q);
    }
    return Object.entries(groups).map(([who, qs]) => {
      const standing = qs.map((q) => {
        const background = cosineBackground(q.near, K);
        return (Math.max(...q.candidates.map((c) => c.cosine)) - background) / (neighbourSpread(q.near, background) || 1);
      });
      return [`${dataset}${dataset === "realmem" ? ` ${level}` : ""}`, who, String(qs.length), quartiles(standing), quartiles(qs.map((q) => q.bestCoverage!))];
    });
  });
}

const started = performance.now();
const datasets = args.datasets.split(",");
for (const label of args.scales.split(",")) {
  const scale = Number(label.replace(/k$/i, "000"));
  const captures = new Map<string, Capture>();
  for (const dataset of datasets) captures.set(dataset, await captureOf(dataset, scale, label));
  const columns = [...captures].flatMap(([dataset, c]) => c.levels.map((level, i) => ({ dataset, level, i, n: c.questions.filter((q) => q.asks & (1 << i)).length })));
  const model = [...new Set([...captures.values()].map((c) => c.model))].join(", ");
  console.log(`\n## fusion: ${label} memories per wallet, model ${model}, limit ${LIMIT}; R@1 / R@5 / R@10 (%)\n`);
  printTable(
    ["method", ...columns.map((col) => `${col.dataset}${col.dataset === "realmem" ? ` ${col.level}` : ""} (${col.n})`)],
    methods.map((m) => [m.name, ...columns.map((col) => recallAt(captures.get(col.dataset)!, m.rank, col.i))]),
  );
  console.log(`\n## evidence: ${label}, questions answered in the top 5 by one signal only; quartiles\n`);
  printTable(
    ["set", "answered by", "questions", "best cosine above the background (sd)", "best keyword hit's coverage"],
    [...captures].flatMap(([dataset, c]) => evidenceRows(c, dataset)),
  );
}
console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
await embedder?.close();
process.exit(0);
