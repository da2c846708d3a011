import { t, type Static } from "elysia";
import type { Memory } from "./memory";
import { ageDays, typeDecay } from "./decay";
import type { TermStatistics } from "./store-port";

export const Signals = t.Object({
  vector: t.Number(),
  keyword: t.Number(),
  recency: t.Number(),
  base_importance: t.Number(),
  effective_importance: t.Number(),
  context_importance: t.Number(),
  relation_count: t.Integer(),
  type_decay: t.Number(),
});
export type Signals = Static<typeof Signals>;

/** What is known about one candidate, its text signals already normalized to 0..1 for this query. */
export interface Evidence {
  memory: Pick<Memory, "created_at" | "memory_type" | "pinned" | "importance" | "access_count">;
  /** calibrated vector similarity, 0..1 (see vectorSimilarity) */
  vector: number;
  /** normalized keyword match, 0..1 (see keywordMatch) */
  keyword: number;
  /** this candidate's query relevance relative to the best candidate's, 0..1 (see relativeRelevance); 1 without a query */
  relevance: number;
  relationCount: number;
}

/**
 * Cosine mapped to 0..1 between the query's background and a ceiling. `background` is the median
 * cosine of the query's vector neighbours in this wallet (cosineBackground): embeddings are
 * anisotropic (any two texts have a cosine well above 0), so raw cosine gives every candidate much
 * of the vector weight; measured from the neighbourhood, only memories closer than a typical
 * neighbour get vector credit, whatever the model, the wallet's size or its topic mix.
 * The ceiling lies VECTOR_CEILING of the way from the query's best cosine (`best`) to a perfect 1. A
 * sentence encoder gives even a true paraphrase a cosine far below 1, so a ceiling of 1 left the
 * best semantic match a fraction of the weight that a good keyword match gets; the best cosine
 * alone as the ceiling gives full credit to a best match that is barely above the background.
 * Both ends are the model's and the wallet's own statistics, so the map needs no per-model constant.
 * `ceilingShare` is VECTOR_CEILING unless a calibration bench tries another (scripts/bench/fusion.ts).
 */
export function vectorSimilarity(cosine: number, background: number, best: number, ceilingShare = VECTOR_CEILING): number {
  const floor = Math.min(Math.max(background, 0), 0.99);
  const top = Math.max(best, floor);
  const ceiling = top + ceilingShare * (1 - top);
  return Math.min(1, Math.max(0, (cosine - floor) / (ceiling - floor)));
}

/** Where vectorSimilarity's ceiling lies between the best cosine (0) and 1 (1): halfway (docs/retrieval.md › Why the ceiling). */
export const VECTOR_CEILING = 0.5;

/**
 * The background for vectorSimilarity: the median of the `k` neighbours asked for, a neighbour the
 * wallet does not have counting as cosine 0. A small wallet (fewer than k/2 memories) thus gets
 * background 0, i.e. plain cosine, and the background rises smoothly as the wallet fills up.
 */
export function cosineBackground(neighbourCosines: number[], k: number): number {
  const n = Math.max(k, neighbourCosines.length);
  if (n === 0) return 0;
  const sorted = [...neighbourCosines].sort((a, b) => b - a); // best first; missing ones are 0s at the end
  return Math.max(0, sorted[Math.floor(n / 2)] ?? 0);
}

/**
 * BM25 normalized to 0..1: the score relative to the best hit of the same query (the ratio makes
 * engines' BM25 scales comparable), times how far this query's keyword hits can be trusted
 * (`trust`, keywordTrust). Relative to the best hit alone, a question whose only shared word is a
 * name or a common word handed its best hit a full 1 and outvoted the vector.
 */
export function keywordMatch(bm25: number, bestBm25: number, trust = 1): number {
  if (bm25 <= 0 || bestBm25 <= 0) return 0;
  return Math.min(1, bm25 / bestBm25) * trust;
}

/** A term's inverse document frequency (BM25's, in the form that never goes negative). */
export function idf(documents: number, frequency: number): number {
  const n = Math.min(frequency, documents);
  return Math.log(1 + (documents - n + 0.5) / (n + 0.5));
}

/**
 * The share of the query's IDF mass that a memory holds: `held[i]` says whether it contains query
 * term i. 1 when it holds every term; small when it holds only frequent ones ("user", "morning") or
 * one name among rare words it lacks. A term no memory holds still counts: it is part of what the
 * question asks, and only the vector can answer it.
 */
export function termCoverage(stats: TermStatistics, held: boolean[]): number {
  let total = 0;
  let covered = 0;
  stats.frequencies.forEach((frequency, i) => {
    const weight = idf(Math.max(stats.documents, frequency), frequency);
    total += weight;
    if (held[i]) covered += weight;
  });
  return total > 0 ? covered / total : 0;
}

/**
 * The keyword signal's weight for one query: full when the best keyword hit holds at least
 * FULL_TRUST_COVERAGE of the query's IDF mass, proportionally less below. A best hit that shares only
 * a name or a common word with the question is weak evidence, so the vector leads; one that holds
 * the question's rare words leads itself. Measured on four sets: docs/retrieval.md › Calibration.
 * `fullTrustCoverage` is FULL_TRUST_COVERAGE unless a calibration bench tries another (scripts/bench/fusion.ts).
 */
export function keywordTrust(bestCoverage: number, fullTrustCoverage = FULL_TRUST_COVERAGE): number {
  return Math.min(1, bestCoverage / fullTrustCoverage);
}

export const FULL_TRUST_COVERAGE = 0.4;

export const recency = (age: number) => Math.exp(-age / 30);
export const accessBoost = (accessCount: number) => Math.min(1 + accessCount * 0.1, 2);

/** hybrid weights: 0.55/0.25/0.20, or 0.45/0.35/0.20 once the keyword match exceeds 0.3. */
function weights(keyword: number): [vector: number, keyword: number] {
  return keyword > 0.3 ? [0.45, 0.35] : [0.55, 0.25];
}

export function hybrid(vector: number, keyword: number, recencyValue: number): number {
  const [wv, wk] = weights(keyword);
  return vector * wv + keyword * wk + recencyValue * 0.2;
}

/** The query-dependent part of hybrid (its vector and keyword terms): how well a memory answers the query. */
export function queryMatch(vector: number, keyword: number): number {
  const [wv, wk] = weights(keyword);
  return vector * wv + keyword * wk;
}

/** A candidate's query match relative to the best candidate's (0..1). */
export function relativeRelevance(match: number, bestMatch: number): number {
  return bestMatch > 0 ? Math.min(1, match / bestMatch) : 1;
}

/**
 * How steeply context_importance falls with relative relevance. The multipliers that do not depend on
 * the query (access_boost up to 2, recency, type decay, importance) can then only reorder memories of
 * similar relevance: at exponent 4, a memory needs at least 2^(-1/4) ≈ 84% of another's relevance
 * for a 2× boost to lift it above. Without this, every recall's access counts lifted its results in
 * later, unrelated queries (a feedback loop that ranked recall below plain keyword search).
 */
export const RELEVANCE_EXPONENT = 4;

/**
 * Importance lifted by query relevance: up to halfway from the base toward 1 when the memory matches
 * fully, then scaled by the relative relevance to the power RELEVANCE_EXPONENT.
 */
export function contextImportance(importance: number, match: number, relevance: number): number {
  return (importance + (1 - importance) * 0.5 * match) * relevance ** RELEVANCE_EXPONENT;
}

/** The spec's recall score: hybrid × context_importance × access_boost × type_decay. */
export function score(evidence: Evidence, now: number): { similarity: number; signals: Signals } {
  const { memory, vector, keyword, relevance, relationCount } = evidence;
  // one date parse per candidate: recall scores up to 800 of them
  const age = ageDays(memory, now);
  const recencyValue = recency(age);
  const decay = typeDecay(memory, relationCount, now, age);
  const context = contextImportance(memory.importance, Math.max(vector, keyword), relevance);
  const similarity = product(evidence, recencyValue, context, decay);
  return {
    similarity,
    signals: {
      vector,
      keyword,
      recency: recencyValue,
      base_importance: memory.importance,
      effective_importance: memory.importance * decay,
      context_importance: context,
      relation_count: relationCount,
      type_decay: decay,
    },
  };
}

/** score's similarity alone, the same number without its signals: what ranking compares for every candidate. */
export function scoreSimilarity(evidence: Evidence, now: number): number {
  const { memory, vector, keyword, relevance, relationCount } = evidence;
  const age = ageDays(memory, now);
  const context = contextImportance(memory.importance, Math.max(vector, keyword), relevance);
  return product(evidence, recency(age), context, typeDecay(memory, relationCount, now, age));
}

const product = ({ memory, vector, keyword }: Evidence, recencyValue: number, context: number, decay: number) =>
  hybrid(vector, keyword, recencyValue) * context * accessBoost(memory.access_count) * decay;
