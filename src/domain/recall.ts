import type { MemoryFilter, MemoryRef, MemoryStore, QueryVector } from "./store-port";
import type { Memory } from "./memory";
import type { Relation } from "./relation";
import { untimed, type Clock, type StageTimer, type TextEmbedder } from "./ports";
import { cosineBackground, keywordMatch, queryMatch, relativeRelevance, score, vectorSimilarity, type Signals } from "./scoring";
import { cosine, queryTerms } from "./text";

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
}

export interface RecalledMemory extends RankedMemory {
  memory: Memory;
  relations?: Relation[];
}

/** How many candidates each retriever contributes per requested result. */
const CANDIDATES_PER_RESULT = 4;
const MIN_CANDIDATES = 40;
const MAX_CANDIDATES = 400;

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
    const guess = this.timer.time("scoring", () => kept(candidates.rank(new Map())));
    const guessIds = guess.slice(0, request.limit).map((r) => r.memory.id);
    const results = await this.timer.time("records", async () => {
      const [relationCounts, guessRecords] = await Promise.all([
        this.store.relationCounts(userId, candidates.ids, now),
        this.store.getMemories(userId, guessIds, now),
      ]);
      const ranked = [...relationCounts.values()].some((n) => n !== 0) ? kept(candidates.rank(relationCounts)) : guess;
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
    return candidates.rank(await this.store.relationCounts(userId, candidates.ids, now));
  }

  /**
   * The candidates of `rank` with everything scoring reads but their relation counts; `rank(counts)`
   * scores and sorts them. The keyword search needs no vector to start: it is sent first, while the
   * query vector may still be on its way (the embedder runs in a worker), and gets the vector for
   * its hits' cosines once it is there; the vector search follows it.
   */
  private async candidates(
    userId: string,
    request: Pick<RecallRequest, "query" | "limit" | "filter">,
    vector: QueryVector,
    now: number,
  ): Promise<{ ids: string[]; rank: (relationCounts: Map<string, number>) => RankedMemory[] }> {
    const k = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, request.limit * CANDIDATES_PER_RESULT));
    const terms = queryTerms(request.query);
    const [textHits, near, queryVector] = await Promise.all([
      this.timer.time("keyword_search", () => this.store.searchText(userId, terms, request.filter, k, now, vector)),
      // A query of words the model does not know embeds to zeros: no direction, so no neighbours (a
      // cosine engine would answer NaN distances, another arbitrary rows at similarity 0).
      Promise.resolve(vector).then((v) => (isZero(v) ? [] : this.timer.time("vector_search", () => this.store.nearest(userId, v, request.filter, k, now)))),
      vector,
    ]);
    const cosines = new Map(near.map((h) => [h.memory.id, h.similarity]));
    for (const h of textHits) if (h.similarity !== undefined && !cosines.has(h.memory.id)) cosines.set(h.memory.id, h.similarity);
    const candidates = new Map<string, MemoryRef>([...near, ...textHits].map((h) => [h.memory.id, h.memory]));
    const textOnly = textHits.map((h) => h.memory.id).filter((id) => !cosines.has(id));
    for (const [id, vector] of await this.store.embeddings(userId, textOnly)) cosines.set(id, cosine(queryVector, vector));
    // Each candidate's query match, computed by the first ranking: scoring is a stage the caller times.
    const matchAll = () => {
      const bm25 = new Map(textHits.map((h) => [h.memory.id, h.bm25]));
      const bestBm25 = Math.max(0, ...bm25.values());
      const background = cosineBackground(near.map((h) => h.similarity), k);
      const bestCosine = Math.max(0, ...cosines.values());
      const matched = [...candidates.values()].map((memory) => {
        const vector = vectorSimilarity(cosines.get(memory.id) ?? 0, background, bestCosine);
        const keyword = keywordMatch(bm25.get(memory.id) ?? 0, bestBm25);
        return { memory, vector, keyword, match: queryMatch(vector, keyword) };
      });
      return { matched, bestMatch: Math.max(0, ...matched.map((m) => m.match)) };
    };
    let matches: ReturnType<typeof matchAll> | null = null;
    const rank = (relationCounts: Map<string, number>) => {
      const { matched, bestMatch } = (matches ??= matchAll());
      return matched
        .map(({ memory, vector, keyword, match }) => {
          const evidence = { memory, vector, keyword, relevance: relativeRelevance(match, bestMatch), relationCount: relationCounts.get(memory.id) ?? 0 };
          return { memory, ...score(evidence, now) };
        })
        .sort((a, b) => b.similarity - a.similarity || a.memory.id.localeCompare(b.memory.id));
    };
    return { ids: [...candidates.keys()], rank };
  }
}

const isZero = (vector: Float32Array) => vector.every((x) => x === 0);
