import { t, type Static } from "elysia";
import { LIMITS, StoreFields, Uuid } from "../../domain/memory";
import type { AppDeps } from "../deps";
import { ListedMemory, memoryView } from "../present";

/** Batch store as an operation: one body schema, one answer schema and one answer, for POST /v1/store/batch and the MCP `store_batch` tool. */
export const StoreBatchBody = t.Object({ memories: t.Array(StoreFields, { minItems: 1, maxItems: LIMITS.batch }) });
export type StoreBatchBody = Static<typeof StoreBatchBody>;

export const StoreBatchReply = t.Object({
  ids: t.Array(Uuid),
  stored: t.Literal(true),
  count: t.Integer(),
  deduplicated_count: t.Integer(),
  tokens_used: t.Integer(),
  memories: t.Array(ListedMemory, { description: "the memory behind each distinct id, as stored or merged (MemoClaw clients read it)" }),
});

export async function storeBatchAnswer(deps: AppDeps, userId: string, body: StoreBatchBody): Promise<Static<typeof StoreBatchReply>> {
  const outcome = await deps.memories.storeMany(userId, body.memories);
  const listed = memoryView(deps.embedder.modelId);
  return { ids: outcome.ids, stored: true, count: outcome.stored, deduplicated_count: outcome.deduplicated, tokens_used: outcome.tokens_used, memories: outcome.memories.map(listed) };
}
