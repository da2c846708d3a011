import { t, type Static } from "elysia";
import type { MemoryFilter, MemoryStore } from "./store-port";
import type { Memory } from "./memory";
import type { Clock } from "./ports";
import { ageDays, typeDecay } from "./decay";

export const SuggestionReason = t.Union([t.Literal("decaying"), t.Literal("hot"), t.Literal("fresh"), t.Literal("stale")], {
  description:
    "decaying: important (≥ 0.7), unpinned and below half strength — consider pinning; hot: recalled ≥ 3 times — consider pinning; " +
    "fresh: stored in the last 24 h and never recalled — check it is right; stale: not recalled for 30+ days and unpinned — consider reviewing or deleting",
});
export type SuggestionReason = Static<typeof SuggestionReason>;

const DAY_MS = 86_400_000;
/** Memories examined, newest first: bounds the cost for very large wallets. */
export const SUGGESTION_SCAN_LIMIT = 5000;

/** Why a memory is worth a look, most actionable first; null when it isn't. */
export function reasonFor(memory: Memory, now: number): SuggestionReason | null {
  if (!memory.pinned && memory.importance >= 0.7 && typeDecay(memory, 0, now) < 0.5) return "decaying";
  if (memory.access_count >= 3 && !memory.pinned) return "hot";
  if (ageDays(memory, now) < 1 && memory.access_count === 0) return "fresh";
  if (!memory.pinned && now - Date.parse(memory.accessed_at) > 30 * DAY_MS) return "stale";
  return null;
}

const ORDER: SuggestionReason[] = ["decaying", "hot", "fresh", "stale"];

/**
 * How much a flagged memory asks for review, 0..1: its importance, weighted by how far it has
 * decayed (decaying, stale) or how much it is used (hot); a fresh memory by its importance alone.
 */
export function reviewScore(memory: Memory, reason: SuggestionReason, now: number): number {
  const decayed = 1 - typeDecay(memory, 0, now);
  const weight = reason === "hot" ? Math.min(1, memory.access_count / 10) : reason === "fresh" ? 1 : decayed;
  return Math.round(memory.importance * weight * 1000) / 1000;
}

/** Memories read per list call: a page at a time, so the 5,000 newest of a large wallet are never held at once. */
const SUGGESTION_PAGE = 500;

interface Suggestion {
  memory: Memory;
  reason: SuggestionReason;
  review_score: number;
}

/** Keeps the first `limit` by importance, earlier ones first among equals (the list's order: newest first). */
function keepBest(suggestions: Suggestion[], limit: number): void {
  suggestions.sort((a, b) => b.memory.importance - a.memory.importance);
  suggestions.length = Math.min(suggestions.length, limit);
}

/**
 * Memories worth a look, grouped by reason in ORDER, each group by importance then recency:
 * the first `limit` (of `only` when given), and how many were flagged for each reason.
 */
export async function suggest(store: MemoryStore, clock: Clock, userId: string, filter: MemoryFilter, limit: number, only?: SuggestionReason) {
  const now = clock();
  const counts = Object.fromEntries(ORDER.map((reason) => [reason, 0])) as Record<SuggestionReason, number>;
  const best = Object.fromEntries(ORDER.map((reason) => [reason, [] as Suggestion[]])) as Record<SuggestionReason, Suggestion[]>;
  for (let offset = 0; offset < SUGGESTION_SCAN_LIMIT; offset += SUGGESTION_PAGE) {
    const page = Math.min(SUGGESTION_PAGE, SUGGESTION_SCAN_LIMIT - offset);
    const { memories } = await store.listMemories(userId, filter, { limit: page, offset }, now);
    for (const memory of memories) {
      const reason = reasonFor(memory, now);
      if (!reason) continue;
      counts[reason]++;
      if (!only || reason === only) best[reason].push({ memory, reason, review_score: reviewScore(memory, reason, now) });
    }
    for (const reason of ORDER) keepBest(best[reason], limit);
    if (memories.length < page) break;
  }
  const total = only ? counts[only] : ORDER.reduce((sum, reason) => sum + counts[reason], 0);
  return { suggestions: ORDER.flatMap((reason) => best[reason]).slice(0, limit), counts, total };
}
