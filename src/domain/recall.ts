import type { MemoryFilter, MemoryRef, MemoryStore, QueryVector, TermStatistics, TextHit } from "./store-port";
import type { Memory } from "./memory";
import type { Relation } from "./relation";
import { untimed, type Clock, type StageTimer, type TextEmbedder } from "./ports";
import { cosineBackground, keywordMatch, keywordTrust, queryMatch, relativeRelevance, score, scoreSimilarity, termCoverage, vectorSimilarity, type Evidence, type Signals } from "./scoring";
import { cosine, queryTerms, stem, words } from "./text";
import { settleReplacements, meetsFilter, relationCounts, replacements } from "./supersession";

export interface RecallRequest {
  query: string;
  limit: number;
  min_similarity: number;
  filter: MemoryFilter;
  include_relations: boolean;
  /** recall counts as an access; context assembly does not */
  record_access: boolean;
  /** a condition the engines cannot filter on (e.g. metadata values), applied to the ranked candidates */
  accept?: (memory: Memory) => boolean;
}

/** A candidate as ranked: what ranking read of it, its score and the signals behind it. */
export interface RankedMemory {
  memory: MemoryRef;
  similarity: number;
  signals: Signals;
  /** the newer memory that replaces this one (supersession.ts), when there is one */
  superseded_by?: string;
}

export interface RecalledMemory extends RankedMemory {
  memory: Memory;
  relations?: Relation[];
}

/** How many candidates each retriever contributes per requested result. */
const CANDIDATES_PER_RESULT = 4;
const MIN_CANDIDATES = 40;
const MAX_CANDIDATES = 400;
/** Best keyword hits read for keywordTrust when several tie. */
const MAX_TIED = 8;

/**
 * Hybrid recall: the engine supplies vector neighbours and BM25 hits under the same filters;
 * the union is scored here with the spec's formula, so every engine ranks identically.
 */
export class Recall {
  constructor(
    private readonly store: MemoryStore,
    private readonly embedder: TextEmbedder,
    private readonly clock: Clock,
    private readonly timer: StageTimer = untimed,
  ) {}

  async run(userId: string, request: RecallRequest): Promise<{ results: RecalledMemory[]; query_tokens: number }> {
    const now = this.clock();
    const embedded = this.timer.time("embed", () => this.embedder.embed([request.query]));
    const candidates = await this.candidates(userId, request, embedded.then(({ vectors }) => vectors[0]!), now);
    // Candidates rarely have relations: the records of the best ones as ranked without relation counts
    // are read together with the counts (one engine round trip instead of two). Only when some count
    // is not zero is the ranking redone with them, and its records read unless they are those already read.
    // Ranked without relations, only the results get their signals (Ranking.entry).
    const guess = this.timer.time("scoring", () => candidates.order(request.min_similarity));
    const guessIds: string[] = [];
    for (let i = 0; i < guess.length && i < request.limit; i++) guessIds.push(guess.id(i));
    const results = await this.timer.time("records", async () => {
      const [relations, guessRecords] = await Promise.all([this.related(userId, candidates, request, now), this.store.getMemories(userId, guessIds, now)]);
      const ranked = relations.length > 0 ? listed(candidates.rank(relations).filter((r) => r.similarity >= request.min_similarity)) : guess;
      const read = new Map<string, Memory>();
      for (const m of guessRecords) read.set(m.id, m);
      return this.materialize(userId, ranked, request.limit, now, request.accept, read);
    });
    if (request.record_access) await this.store.recordAccess(userId, results.map((r) => r.memory.id), now);
    if (request.include_relations) {
      for (const r of results) r.relations = await this.store.relationsOf(userId, r.memory.id, now);
    }
    return { results, query_tokens: (await embedded).tokens[0]! };
  }

  /**
   * The whole records of the best `limit` ranked candidates that `accept` takes, best first. Ranking
   * reads only what scoring needs (MemoryRef); records are read here, for the results alone, in
   * batches of `limit` until enough are accepted (a candidate deleted since it was ranked is skipped).
   * `read`: records read already (getMemories); only the others are read here (and added to it).
   */
  async materialize(
    userId: string,
    ranked: RankedMemory[] | Ranking,
    limit: number,
    now: number,
    accept?: (memory: Memory) => boolean,
    read: Map<string, Memory> = new Map(),
  ): Promise<RecalledMemory[]> {
    const ranking = Array.isArray(ranked) ? listed(ranked) : ranked;
    const results: RecalledMemory[] = [];
    for (let from = 0; from < ranking.length && results.length < limit; from += limit) {
      const to = Math.min(ranking.length, from + limit);
      const unread: string[] = [];
      for (let i = from; i < to; i++) if (!read.has(ranking.id(i))) unread.push(ranking.id(i));
      if (unread.length > 0) for (const m of await this.store.getMemories(userId, unread, now)) read.set(m.id, m);
      for (let i = from; i < to && results.length < limit; i++) {
        const memory = read.get(ranking.id(i));
        if (memory && (accept?.(memory) ?? true)) results.push(withRecord(ranking.entry(i), memory));
      }
    }
    return results;
  }

  /** All candidates, scored and sorted best first. */
  async rank(userId: string, request: Pick<RecallRequest, "query" | "limit" | "filter">, vector: QueryVector, now: number): Promise<RankedMemory[]> {
    const candidates = await this.candidates(userId, request, vector, now);
    return candidates.rank(await this.related(userId, candidates, request, now));
  }

  /**
   * The relations among the candidates. A memory that replaces a candidate (supersession.ts) joins
   * the candidates when it meets the request's filter, so that recall answers with the current
   * value even when the question's words and vector found only the former one.
   */
  private async related(userId: string, candidates: Candidates, request: Pick<RecallRequest, "filter" | "accept">, now: number): Promise<Relation[]> {
    const relations = await this.store.relationsAmong(userId, candidates.ids, now);
    if (relations.length === 0) return relations;
    const replacing = relations.filter((r) => (r.relation_type === "supersedes" || r.relation_type === "contradicts") && candidates.has(r.target_id));
    const missing = [...new Set(replacing.map((r) => r.source_id).filter((id) => !candidates.has(id)))];
    if (missing.length === 0) return relations;
    const [records, vectors] = await Promise.all([this.store.getMemories(userId, missing, now), this.store.embeddings(userId, missing)]);
    candidates.add(records.filter((m) => meetsFilter(m, request.filter) && (request.accept?.(m) ?? true)), vectors);
    return relations;
  }

  /**
   * The candidates of `rank` with everything scoring reads but their relations; `rank(relations)`
   * scores and sorts them. The keyword search needs no vector to start: it is sent first, while the
   * query vector may still be on its way (the embedder runs in a worker), and gets the vector for
   * its hits' cosines once it is there; the vector search follows it.
   * A recall scores up to 800 candidates to answer a few: their signals are held in parallel arrays
   * by position (`at`) rather than in objects per candidate, and only results get a Signals object.
   */
  private async candidates(userId: string, request: Pick<RecallRequest, "query" | "limit" | "filter">, vector: QueryVector, now: number): Promise<Candidates> {
    const k = candidatesPerRetriever(request.limit);
    const terms = queryTerms(request.query);
    const [textHits, near, queryVector, statistics] = await Promise.all([
      this.timer.time("keyword_search", () => this.store.searchText(userId, terms, request.filter, k, now, vector)),
      // A query of words the model does not know embeds to zeros: no direction, so no neighbours (a
      // cosine engine would answer NaN distances, another arbitrary rows at similarity 0).
      Promise.resolve(vector).then((v) => (isZero(v) ? [] : this.timer.time("vector_search", () => this.store.nearest(userId, v, request.filter, k, now)))),
      vector,
      terms.length > 0 ? this.store.termStatistics(userId, terms, now) : null,
    ]);
    // per candidate, by position: the memory as ranking reads it, its cosine (undefined: none known), its BM25 (undefined: not a keyword hit)
    const at = new Map<string, number>();
    const refs: MemoryRef[] = [];
    const cosines: (number | undefined)[] = [];
    const bm25: (number | undefined)[] = [];
    const position = (memory: MemoryRef) => {
      let i = at.get(memory.id);
      if (i === undefined) {
        at.set(memory.id, (i = refs.length));
        refs.push(memory);
        cosines.push(undefined);
        bm25.push(undefined);
      } else refs[i] = memory; // a keyword hit's ref replaces the vector hit's, as it always has
      return i;
    };
    for (const h of near) cosines[position(h.memory)] = h.similarity;
    const textOnly: string[] = [];
    for (const h of textHits) {
      const i = position(h.memory);
      bm25[i] = h.bm25;
      if (h.similarity !== undefined && cosines[i] === undefined) cosines[i] = h.similarity;
      if (cosines[i] === undefined) textOnly.push(h.memory.id);
    }
    let bestBm25 = 0;
    for (const b of bm25) if (b !== undefined) bestBm25 = Math.max(bestBm25, b);
    const [textVectors, coverage] = await Promise.all([this.store.embeddings(userId, textOnly), bestKeywordCoverage(this.store, userId, terms, textHits, statistics, now)]);
    const trust = coverage === null ? 1 : keywordTrust(coverage);
    for (const [id, vector] of textVectors) cosines[at.get(id)!] = cosine(queryVector, vector);
    const background = cosineBackground(near.map((h) => h.similarity), k);
    // Each candidate's query match, by position, computed by the first ranking (scoring is a stage the caller times) and again after `add`.
    let matched: { vector: number[]; keyword: number[]; match: number[]; best: number } | null = null;
    const matchAll = () => {
      let bestCosine = 0;
      for (const c of cosines) if (c !== undefined) bestCosine = Math.max(bestCosine, c);
      const all = { vector: [] as number[], keyword: [] as number[], match: [] as number[], best: 0 };
      for (let i = 0; i < refs.length; i++) {
        const vector = vectorSimilarity(cosines[i] ?? 0, background, bestCosine);
        const keyword = keywordMatch(bm25[i] ?? 0, bestBm25, trust);
        const match = queryMatch(vector, keyword);
        all.vector.push(vector);
        all.keyword.push(keyword);
        all.match.push(match);
        all.best = Math.max(all.best, match);
      }
      return all;
    };
    // one Evidence object, refilled per candidate
    const evidence: Evidence = { memory: refs[0]!, vector: 0, keyword: 0, relevance: 0, relationCount: 0 };
    const evidenceAt = (i: number, relationCount: number): Evidence => {
      const m = (matched ??= matchAll());
      evidence.memory = refs[i]!;
      evidence.vector = m.vector[i]!;
      evidence.keyword = m.keyword[i]!;
      evidence.relevance = relativeRelevance(m.match[i]!, m.best);
      evidence.relationCount = relationCount;
      return evidence;
    };
    const byScore = (a: RankedMemory, b: RankedMemory) => b.similarity - a.similarity || a.memory.id.localeCompare(b.memory.id);
    return {
      get ids() {
        return refs.map((m) => m.id);
      },
      has: (id) => at.has(id),
      add(memories, vectors) {
        for (const memory of memories) {
          const i = position(memory);
          const v = vectors.get(memory.id);
          if (v) cosines[i] = cosine(queryVector, v);
        }
        matched = null;
      },
      rank(relations) {
        const counts = relations.length > 0 ? relationCounts(relations, refs.map((m) => m.id)) : null;
        const ranked: RankedMemory[] = [];
        for (let i = 0; i < refs.length; i++) {
          const { similarity, signals } = score(evidenceAt(i, counts?.get(refs[i]!.id) ?? 0), now);
          ranked.push({ memory: refs[i]!, similarity, signals });
        }
        if (relations.length > 0) settleReplacements(ranked, replacements(relations, (id) => refs[at.get(id) ?? -1]?.created_at));
        return ranked.sort(byScore);
      },
      order(minSimilarity) {
        // the similarity alone per candidate (scoreSimilarity: score's without its signals), sorted as rank sorts
        const similarity: number[] = [];
        const kept: number[] = [];
        for (let i = 0; i < refs.length; i++) {
          similarity.push(scoreSimilarity(evidenceAt(i, 0), now));
          if (similarity[i]! >= minSimilarity) kept.push(i);
        }
        kept.sort((a, b) => similarity[b]! - similarity[a]! || refs[a]!.id.localeCompare(refs[b]!.id));
        return {
          length: kept.length,
          id: (n) => refs[kept[n]!]!.id,
          entry: (n) => {
            const i = kept[n]!;
            const { similarity, signals } = score(evidenceAt(i, 0), now);
            return { memory: refs[i]!, similarity, signals };
          },
        };
      },
    };
  }
}

/** Ranked candidates read by position: their ids, and each one's RankedMemory when it is wanted (a result). */
export interface Ranking {
  readonly length: number;
  id(n: number): string;
  entry(n: number): RankedMemory;
}

const listed = (ranked: RankedMemory[]): Ranking => ({ length: ranked.length, id: (n) => ranked[n]!.memory.id, entry: (n) => ranked[n]! });

/** A ranked candidate with its record (the same keys in the same order as `{ ...ranked, memory }`). */
function withRecord(ranked: RankedMemory, memory: Memory): RecalledMemory {
  const result: RecalledMemory = { memory, similarity: ranked.similarity, signals: ranked.signals };
  if ("superseded_by" in ranked) result.superseded_by = ranked.superseded_by;
  return result;
}

/** The candidates of one query: everything scoring reads but the relations, which `rank` is given. */
interface Candidates {
  readonly ids: string[];
  has(id: string): boolean;
  /** memories that were not found by either search (replacements), with their embeddings; their keyword signal is 0 */
  add(memories: MemoryRef[], vectors: Map<string, Float32Array>): void;
  /** scored and sorted best first; a replaced memory below its replacement */
  rank(relations: Relation[]): RankedMemory[];
  /** as `rank([])` ranks them (no relations), those of at least `minSimilarity`; signals only for the entries read */
  order(minSimilarity: number): Ranking;
}

const isZero = (vector: Float32Array) => vector.every((x) => x === 0);
/** How many candidates each retriever (vector, keyword) contributes for `limit` results. */
export const candidatesPerRetriever = (limit: number) => Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, limit * CANDIDATES_PER_RESULT));

/**
 * The share of the query's IDF mass held by its best keyword hit (termCoverage); among hits tied
 * with the best, the most covering. Which terms a hit holds the engine says (TextHit.held), or else
 * its content does (read here). Null without hits or statistics: the keyword signal is then trusted as is.
 */
export async function bestKeywordCoverage(store: MemoryStore, userId: string, terms: string[], hits: TextHit[], statistics: TermStatistics | null, now: number): Promise<number | null> {
  if (hits.length === 0 || statistics === null) return null;
  const best = hits[0]!.bm25;
  const tied: TextHit[] = [];
  for (const h of hits) if (h.bm25 >= best && tied.length < MAX_TIED) tied.push(h);
  let coverage = 0;
  if (tied.every((h) => h.held !== undefined)) {
    for (const h of tied) coverage = Math.max(coverage, termCoverage(statistics, terms.map((_, j) => j < 32 && (h.held! & (1 << j)) !== 0)));
    return coverage;
  }
  for (const m of await store.getMemories(userId, tied.map((h) => h.memory.id), now)) coverage = Math.max(coverage, termCoverage(statistics, heldTerms(m.content, terms)));
  return coverage;
}

/**
 * Which of the query's terms (stemmed words) a memory's content holds: those among its words'
 * stems (indexTerms). Read word by word until every term is found.
 */
function heldTerms(content: string, terms: string[]): boolean[] {
  const held = terms.map(() => false);
  let missing = terms.length;
  for (const word of words(content)) {
    if (missing === 0) break;
    const term = stem(word);
    for (let j = 0; j < terms.length; j++) {
      if (!held[j] && terms[j] === term) {
        held[j] = true;
        missing--;
      }
    }
  }
  return held;
}
