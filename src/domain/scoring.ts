import { t, type Static } from "elysia";
import type { Memory } from "./memory";
import { ageDays, typeDecay } from "./decay";

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

/** The raw evidence about one candidate, as gathered from the engine. */
export interface Evidence {
  memory: Pick<Memory, "created_at" | "memory_type" | "pinned" | "importance" | "access_count">;
  /** cosine similarity with the query, -1..1 */
  cosine: number;
  /** normalized keyword match, 0..1 (see keywordMatch) */
  keyword: number;
  relationCount: number;
}

/**
 * BM25 normalized to 0..1: the score relative to the best hit of the same query, times the share of
 * query terms the memory contains. The ratio makes engines' BM25 scales comparable; the coverage
 * factor keeps a memory that shares one word of a long query from scoring like a full match.
 */
export function keywordMatch(bm25: number, bestBm25: number, coverage: number): number {
  if (bm25 <= 0 || bestBm25 <= 0) return 0;
  return Math.min(1, bm25 / bestBm25) * coverage;
}

export const recency = (age: number) => Math.exp(-age / 30);
export const accessBoost = (accessCount: number) => Math.min(1 + accessCount * 0.1, 2);

/** Importance lifted toward 1 by query relevance: up to halfway from the base when the memory matches fully. */
export function contextImportance(importance: number, relevance: number): number {
  return importance + (1 - importance) * 0.5 * relevance;
}

/** hybrid: 0.55/0.25/0.20, or 0.45/0.35/0.20 once the keyword match exceeds 0.3. */
export function hybrid(vector: number, keyword: number, recencyValue: number): number {
  const [wv, wk] = keyword > 0.3 ? [0.45, 0.35] : [0.55, 0.25];
  return vector * wv + keyword * wk + recencyValue * 0.2;
}

/** The spec's recall score: hybrid × context_importance × access_boost × type_decay. */
export function score(evidence: Evidence, now: number): { similarity: number; signals: Signals } {
  const { memory, keyword, relationCount } = evidence;
  const vector = Math.min(1, Math.max(0, evidence.cosine));
  const recencyValue = recency(ageDays(memory, now));
  const decay = typeDecay(memory, relationCount, now);
  const context = contextImportance(memory.importance, Math.max(vector, keyword));
  const similarity = hybrid(vector, keyword, recencyValue) * context * accessBoost(memory.access_count) * decay;
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
