import { t, type Static } from "elysia";
import type { MemoryFilter } from "../../domain/store-port";
import { suggest, SuggestionReason } from "../../domain/suggested";
import { relationCounts as countRelations } from "../../domain/supersession";
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
  const relationCounts = countRelations(await deps.store.relationsAmong(userId, ids, deps.clock()), ids);
  return {
    suggestions: found.suggestions.map(({ memory, reason }) => ({ ...listed(memory), reason, memory: listed(memory) })),
    suggested: found.suggestions.map(({ memory, reason, review_score }) => ({ ...listed(memory), relation_count: relationCounts.get(memory.id) ?? 0, category: reason, review_score })),
    categories: found.counts,
    total: found.total,
  };
}
