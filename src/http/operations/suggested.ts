import { t, type Static } from "elysia";
import type { MemoryFilter } from "../../domain/store-port";
import { suggest, SuggestionReason } from "../../domain/suggested";
import { relationCounts as countRelations, replacements } from "../../domain/supersession";
import type { Relation } from "../../domain/relation";
import type { Memory } from "../../domain/memory";
import type { AppDeps } from "../deps";
import { ListedMemory, memoryView } from "../present";

export const SuggestedReply = t.Object({
  suggestions: t.Array(t.Composite([ListedMemory, t.Object({ reason: SuggestionReason, memory: ListedMemory })]), {
    description: "each flagged memory with its reason; the memory's fields are also at the top level (memoclaw-mcp reads them there)",
  }),
  suggested: t.Array(
    t.Composite([ListedMemory, t.Object({ relation_count: t.Integer(), category: SuggestionReason, review_score: t.Number({ description: "0..1, higher asks for review sooner" }) })]),
    { description: "the same memories flat, with category (= reason) (MemoClaw's shape)" },
  ),
  categories: t.Object({ decaying: t.Integer(), hot: t.Integer(), fresh: t.Integer(), stale: t.Integer() }, { description: "memories flagged per reason" }),
  total: t.Integer({ description: "memories flagged (in `category` when given)" }),
});

/** The suggested answer for GET /v1/suggested and the MCP `suggested` tool. */
export async function suggestedAnswer(
  deps: AppDeps,
  userId: string,
  filter: Pick<MemoryFilter, "namespace" | "session_id" | "agent_id">,
  limit: number,
  category: SuggestionReason | undefined,
): Promise<Static<typeof SuggestedReply>> {
  const listed = memoryView(deps.embedder.modelId);
  const found = await suggest(deps.store, deps.clock, userId, filter, limit, category);
  const ids = found.suggestions.map((s) => s.memory.id);
  const now = deps.clock();
  const relations = await deps.store.relationsAmong(userId, ids, now);
  const relationCounts = countRelations(relations, ids);
  if (relations.length > 0) found.suggestions = await currentFirst(deps, userId, found.suggestions, relations, now);
  return {
    suggestions: found.suggestions.map(({ memory, reason }) => ({ ...listed(memory), reason, memory: listed(memory) })),
    suggested: found.suggestions.map(({ memory, reason, review_score }) => ({ ...listed(memory), relation_count: relationCounts.get(memory.id) ?? 0, category: reason, review_score })),
    categories: found.counts,
    total: found.total,
  };
}

/** Suggestions with each replaced memory after the memories that replace it (docs/retrieval.md › Current values), otherwise in order. */
async function currentFirst<T extends { memory: Memory }>(deps: AppDeps, userId: string, suggestions: T[], relations: Relation[], now: number): Promise<T[]> {
  const known = new Map(suggestions.map((s) => [s.memory.id, s.memory.created_at]));
  const others = [...new Set(relations.flatMap((r) => [r.source_id, r.target_id]))].filter((id) => !known.has(id));
  for (const m of await deps.store.getMemories(userId, others, now)) known.set(m.id, m.created_at);
  const replacedBy = replacements(relations, (id) => known.get(id));
  // how many replacements stand above a memory (0 for a current value); a cycle counts once around
  const depth = (id: string) => {
    const seen = new Set([id]);
    for (let by = replacedBy.get(id); by !== undefined && !seen.has(by); by = replacedBy.get(by)) seen.add(by);
    return seen.size - 1;
  };
  return suggestions.map((s, i) => ({ s, i, d: depth(s.memory.id) })).sort((a, b) => a.d - b.d || a.i - b.i).map(({ s }) => s);
}
