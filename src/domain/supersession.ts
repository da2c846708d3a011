import { t, type Static } from "elysia";
import { Uuid, type Memory } from "./memory";
import type { Relation } from "./relation";
import type { MemoryFilter } from "./store-port";

/**
 * Which memories a newer one replaces, read from the relation graph: the target of a `supersedes`
 * relation ("new replaces old", whatever the two's dates: the relation says it), and the target of
 * a `contradicts` relation whose source was created after it (a correction). Ranking keeps a
 * replaced memory below its replacement (see capReplaced); nothing is hidden or deleted.
 */
export function replacements(relations: Relation[], createdAt: (id: string) => string | undefined): Map<string, string> {
  const replaced = new Map<string, { by: string; at: string }>();
  for (const r of relations) {
    if (r.relation_type !== "supersedes" && r.relation_type !== "contradicts") continue;
    const sourceAt = createdAt(r.source_id);
    const targetAt = createdAt(r.target_id);
    if (sourceAt === undefined) continue;
    if (r.relation_type === "contradicts" && !(targetAt !== undefined && sourceAt > targetAt)) continue;
    // several replacements: the newest one is the memory's current value
    const known = replaced.get(r.target_id);
    if (!known || sourceAt > known.at) replaced.set(r.target_id, { by: r.source_id, at: sourceAt });
  }
  return new Map([...replaced].map(([id, { by }]) => [id, by]));
}

/** What replaces a memory now (the newest replacement) and which memories it replaces itself. */
export const Lineage = t.Object({
  superseded_by: t.Union([Uuid, t.Null()], { description: "the newer memory that replaces this one (supersedes it, or contradicts it as a later correction), or null" }),
  supersedes: t.Array(Uuid, { description: "the memories this one replaces" }),
});
export type Lineage = Static<typeof Lineage>;

/** A memory's Lineage from its relations (relationsOf) and the creation times of their ends. */
export function lineageOf(memoryId: string, relations: Relation[], createdAt: (id: string) => string | undefined): Lineage {
  const replaced = replacements(relations, createdAt);
  const own = replacements(relations.filter((r) => r.source_id === memoryId), createdAt);
  return { superseded_by: replaced.get(memoryId) ?? null, supersedes: [...own.keys()] };
}

/** How many of `relations` touch each of `ids` (a relation from a memory to itself counts once). */
export function relationCounts(relations: Relation[], ids: string[]): Map<string, number> {
  const counts = new Map(ids.map((id) => [id, 0]));
  for (const { source_id, target_id } of relations) {
    for (const id of new Set([source_id, target_id])) if (counts.has(id)) counts.set(id, counts.get(id)! + 1);
  }
  return counts;
}

/**
 * A replaced memory's score may be at most this share of its replacement's: just below it, so a
 * question about the former value ("where did the user live before?") still finds it next.
 */
export const REPLACED_SHARE = 0.9;

/** A ranked candidate as settleReplacements reads and adjusts it. */
export interface Replaceable {
  memory: { id: string };
  similarity: number;
  signals: { context_importance: number };
  superseded_by?: string;
}

/**
 * Ranks current values first when replaced memories and their replacements are candidates together:
 *  1. the current value of a chain (A replaced by B replaced by C: C) answers whatever its former
 *     values answered, so its score is lifted to the best score in its chain;
 *  2. each replaced memory then scores at most REPLACED_SHARE of its replacement's (C > B > A).
 * Both act on context_importance (the spec leaves its computation open), so the spec's product
 * still holds; `superseded_by` names the replacement. A cycle of replacements is left as found.
 */
export function settleReplacements<T extends Replaceable>(ranked: T[], replacedBy: Map<string, string>): void {
  const byId = new Map(ranked.map((r) => [r.memory.id, r]));
  const next = (r: T): T | undefined => {
    const by = replacedBy.get(r.memory.id);
    return by === undefined ? undefined : byId.get(by);
  };
  const rescale = (r: T, similarity: number) => {
    if (r.similarity > 0) r.signals.context_importance *= similarity / r.similarity;
    r.similarity = similarity;
  };
  const chains = new Map<T, T[]>(); // current value → the replaced candidates leading to it
  for (const r of ranked) {
    const by = replacedBy.get(r.memory.id);
    if (by !== undefined) r.superseded_by = by;
    const seen = new Set([r]);
    let head = r;
    for (let n = next(head); n && !seen.has(n); n = next(head)) seen.add((head = n));
    if (next(head) || head === r) continue; // a cycle, or not replaced
    chains.set(head, [...(chains.get(head) ?? []), r]);
  }
  for (const [head, replaced] of chains) {
    const best = Math.max(head.similarity, ...replaced.map((r) => r.similarity));
    if (best > head.similarity && head.similarity > 0) rescale(head, best);
    // from the head down: each replaced memory below the one that replaces it
    const settled = new Set([head]);
    const settle = (r: T): void => {
      if (settled.has(r)) return;
      const replacement = next(r)!;
      settle(replacement);
      if (r.similarity > replacement.similarity * REPLACED_SHARE) rescale(r, replacement.similarity * REPLACED_SHARE);
      settled.add(r);
    };
    replaced.forEach(settle);
  }
}

/** Whether a memory meets a filter (as the engines apply it), for memories ranking adds itself: a replacement. */
export function meetsFilter(memory: Memory, filter: MemoryFilter): boolean {
  const tags = memory.metadata.tags ?? [];
  return (
    (filter.namespace === undefined || memory.namespace === filter.namespace) &&
    (filter.session_id === undefined || memory.session_id === filter.session_id) &&
    (filter.agent_id === undefined || memory.agent_id === filter.agent_id) &&
    (filter.memory_type === undefined || memory.memory_type === filter.memory_type) &&
    (filter.pinned === undefined || memory.pinned === filter.pinned) &&
    (filter.created_after === undefined || memory.created_at > filter.created_after) &&
    (filter.created_before === undefined || memory.created_at < filter.created_before) &&
    (!filter.tags?.length || filter.tags.some((tag) => tags.includes(tag)))
  );
}
