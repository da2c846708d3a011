import type { MemoryFilter, MemoryRef, MemoryStore, QueryVector, TermStatistics, TextHit } from "./store-port";
import type { Memory } from "./memory";
import type { Relation } from "./relation";
import { untimed, type Clock, type StageTimer, type TextEmbedder } from "./ports";
import { cosineBackground, keywordMatch, keywordTrust, queryMatch, relativeRelevance, score, termCoverage, vectorSimilarity, type Signals } from "./scoring";
import { cosine, indexTerms, queryTerms } from "./text";
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
    const kept = (ranked: RankedMemory[]) => ranked.filter((r) => r.similarity >= request.min_similarity);
    // Candidates rarely have relations: the records of the best ones as ranked without relation counts
    // are read together with the counts (one engine round trip instead of two). Only when some count
    // is not zero is the ranking redone with them, and its records read unless they are those already read.
    const guess = this.timer.time("scoring", () => kept(candidates.rank([])));
    const guessIds = guess.slice(0, request.limit).map((r) => r.memory.id);
    const results = await this.timer.time("records", async () => {
      const [relations, guessRecords] = await Promise.all([this.related(userId, candidates, request, now), this.store.getMemories(userId, guessIds, now)]);
      const ranked = relations.length > 0 ? kept(candidates.rank(relations)) : guess;
      return this.materialize(userId, ranked, request.limit, now, request.accept, new Map(guessRecords.map((m) => [m.id, m])));
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
   * `read`: records read already (getMemories); only the others are read here.
   */
  async materialize(
    userId: string,
    ranked: RankedMemory[],
    limit: number,
    now: number,
    accept?: (memory: Memory) => boolean,
    read: Map<string, Memory> = new Map(),
  ): Promise<RecalledMemory[]> {
    const results: RecalledMemory[] = [];
    for (let from = 0; from < ranked.length && results.length < limit; from += limit) {
      const batch = ranked.slice(from, from + limit);
      const unread = batch.map((r) => r.memory.id).filter((id) => !read.has(id));
      const records = unread.length === 0 ? read : new Map([...read, ...(await this.store.getMemories(userId, unread, now)).map((m): [string, Memory] => [m.id, m])]);
      for (const r of batch) {
        const memory = records.get(r.memory.id);
        if (memory && (accept?.(memory) ?? true) && results.length < limit) results.push({ ...r, memory });
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
    const cosines = new Map(near.map((h) => [h.memory.id, h.similarity]));
    for (const h of textHits) if (h.similarity !== undefined && !cosines.has(h.memory.id)) cosines.set(h.memory.id, h.similarity);
    const refs = new Map<string, MemoryRef>([...near, ...textHits].map((h) => [h.memory.id, h.memory]));
    const textOnly = textHits.map((h) => h.memory.id).filter((id) => !cosines.has(id));
    const [textVectors, coverage] = await Promise.all([this.store.embeddings(userId, textOnly), bestKeywordCoverage(this.store, userId, terms, textHits, statistics, now)]);
    const trust = coverage === null ? 1 : keywordTrust(coverage);
    for (const [id, vector] of textVectors) cosines.set(id, cosine(queryVector, vector));
    const bm25 = new Map(textHits.map((h) => [h.memory.id, h.bm25]));
    const bestBm25 = Math.max(0, ...bm25.values());
    const background = cosineBackground(near.map((h) => h.similarity), k);
    // Each candidate's query match, computed by the first ranking (scoring is a stage the caller times) and again after `add`.
    const matchAll = () => {
      const bestCosine = Math.max(0, ...cosines.values());
      const matched = [...refs.values()].map((memory) => {
        const vector = vectorSimilarity(cosines.get(memory.id) ?? 0, background, bestCosine);
        const keyword = keywordMatch(bm25.get(memory.id) ?? 0, bestBm25, trust);
        return { memory, vector, keyword, match: queryMatch(vector, keyword) };
      });
      return { matched, bestMatch: Math.max(0, ...matched.map((m) => m.match)) };
    };
    let matches: ReturnType<typeof matchAll> | null = null;
    return {
      get ids() {
        return [...refs.keys()];
      },
      has: (id) => refs.has(id),
      add(memories, vectors) {
        for (const memory of memories) {
          refs.set(memory.id, memory);
          const v = vectors.get(memory.id);
          if (v) cosines.set(memory.id, cosine(queryVector, v));
        }
        matches = null;
      },
      rank(relations) {
        const { matched, bestMatch } = (matches ??= matchAll());
        const counts = relationCounts(relations, [...refs.keys()]);
        const ranked: RankedMemory[] = matched.map(({ memory, vector, keyword, match }) => {
          const evidence = { memory, vector, keyword, relevance: relativeRelevance(match, bestMatch), relationCount: counts.get(memory.id) ?? 0 };
          return { memory, ...score(evidence, now) };
        });
        if (relations.length > 0) settleReplacements(ranked, replacements(relations, (id) => refs.get(id)?.created_at));
        return ranked.sort((a, b) => b.similarity - a.similarity || a.memory.id.localeCompare(b.memory.id));
      },
    };
  }
}

/** The candidates of one query: everything scoring reads but the relations, which `rank` is given. */
interface Candidates {
  readonly ids: string[];
  has(id: string): boolean;
  /** memories that were not found by either search (replacements), with their embeddings; their keyword signal is 0 */
  add(memories: MemoryRef[], vectors: Map<string, Float32Array>): void;
  /** scored and sorted best first; a replaced memory below its replacement */
  rank(relations: Relation[]): RankedMemory[];
}

const isZero = (vector: Float32Array) => vector.every((x) => x === 0);
/** How many candidates each retriever (vector, keyword) contributes for `limit` results. */
export const candidatesPerRetriever = (limit: number) => Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, limit * CANDIDATES_PER_RESULT));

/**
 * The share of the query's IDF mass held by its best keyword hit (termCoverage), read from the
 * hit's content (the engines answer scores, not which terms matched); among hits tied with the
 * best, the most covering. Null without hits or statistics: the keyword signal is then trusted as is.
 */
export async function bestKeywordCoverage(store: MemoryStore, userId: string, terms: string[], hits: TextHit[], statistics: TermStatistics | null, now: number): Promise<number | null> {
  if (hits.length === 0 || statistics === null) return null;
  const best = hits[0]!.bm25;
  const tied = hits.filter((h) => h.bm25 >= best).slice(0, MAX_TIED).map((h) => h.memory.id);
  const records = await store.getMemories(userId, tied, now);
  return Math.max(0, ...records.map((m) => termCoverage(statistics, heldTerms(m.content, terms))));
}

/** Which of the query's terms (stemmed words) a memory's content holds. */
function heldTerms(content: string, terms: string[]): boolean[] {
  const words = new Set(indexTerms(content));
  return terms.map((term) => words.has(term));
}

