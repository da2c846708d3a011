import { t, type Static } from "elysia";
import { CLOSED, DEFAULT_NAMESPACE, LIMITS, StoreFields, Uuid } from "../../domain/memory";
import type { FreshMemory } from "../../domain/auto-relate";
import { MergeDropped } from "../../domain/dedup";
import type { StoreOutcome } from "../../domain/memories";
import type { AppDeps } from "../deps";
import { ListedMemory, memoryView } from "../present";

const AutoRelateField = t.Optional(
  t.Boolean({
    description:
      "default false: relate each new memory to the wallet's nearest memories of its namespace (and to the others of this call) with supersedes, contradicts or supports, as ingest does (docs/api.md › auto_relate)",
  }),
);

/** POST /v1/store's body: one memory, and the auto_relate extension. */
export const StoreBody = t.Composite([StoreFields, t.Object({ auto_relate: AutoRelateField })], CLOSED);
export type StoreBody = Static<typeof StoreBody>;

/** POST /v1/store's answer (and the MCP `store` tool's). */
export const StoreReply = t.Object({
  id: Uuid,
  stored: t.Literal(true),
  deduplicated: t.Boolean(),
  tokens_used: t.Integer(),
  merge_dropped: t.Optional(MergeDropped),
  relations_created: t.Optional(t.Integer({ description: "with auto_relate: the relations created" })),
});

export function storeReply(outcome: StoreOutcome, relations_created?: number): Static<typeof StoreReply> {
  const dropped = outcome.merge_dropped[0];
  return {
    id: outcome.ids[0]!,
    stored: true,
    deduplicated: outcome.deduplicated > 0,
    tokens_used: outcome.tokens_used,
    ...(dropped && { merge_dropped: dropped }),
    ...(relations_created !== undefined && { relations_created }),
  };
}

/** Batch store as an operation: one body schema, one answer schema and one answer, for POST /v1/store/batch and the MCP `store_batch` tool. */
export const StoreBatchBody = t.Object({ memories: t.Array(StoreFields, { minItems: 1, maxItems: LIMITS.batch }), auto_relate: AutoRelateField }, CLOSED);
export type StoreBatchBody = Static<typeof StoreBatchBody>;

export const StoreBatchReply = t.Object({
  ids: t.Array(Uuid),
  stored: t.Literal(true),
  count: t.Integer(),
  deduplicated_count: t.Integer(),
  tokens_used: t.Integer(),
  memories: t.Array(ListedMemory, { description: "the memory behind each distinct id, as stored or merged (MemoClaw clients read it)" }),
  merge_dropped: t.Optional(
    t.Array(t.Composite([t.Object({ index: t.Integer({ description: "the item's place in `memories` of the request" }), id: Uuid }), MergeDropped]), {
      description: "present when a merged duplicate carried something its merge did not keep",
    }),
  ),
  relations_created: t.Optional(t.Integer({ description: "with auto_relate: the relations created" })),
});

export async function storeBatchAnswer(deps: AppDeps, userId: string, body: StoreBatchBody): Promise<Static<typeof StoreBatchReply>> {
  const { outcome, relations_created } = await storeRelated(deps, userId, body.memories, body.auto_relate ?? false);
  const listed = memoryView(deps.embedder.modelId);
  const dropped = outcome.merge_dropped.flatMap((d, index) => (d ? [{ index, id: outcome.ids[index]!, ...d }] : []));
  return {
    ids: outcome.ids,
    stored: true,
    count: outcome.stored,
    deduplicated_count: outcome.deduplicated,
    tokens_used: outcome.tokens_used,
    memories: outcome.memories.map(listed),
    ...(dropped.length > 0 && { merge_dropped: dropped }),
    ...(relations_created !== undefined && { relations_created }),
  };
}

/** Stores the items; with `autoRelate`, relates the newly stored ones (not the merged duplicates), namespace by namespace. */
export async function storeRelated(deps: AppDeps, userId: string, items: StoreFields[], autoRelate: boolean) {
  const outcome = await deps.memories.storeMany(userId, items);
  if (!autoRelate) return { outcome, relations_created: undefined };
  const fresh = new Set(outcome.fresh_ids);
  const byNamespace = new Map<string, FreshMemory[]>();
  items.forEach((item, i) => {
    const id = outcome.ids[i]!;
    if (!fresh.delete(id)) return; // a duplicate, or an id met already
    const namespace = item.namespace ?? DEFAULT_NAMESPACE;
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), { id, fact: { content: item.content, memory_type: item.memory_type } }]);
  });
  let relations_created = 0;
  for (const [namespace, memories] of byNamespace) relations_created += await deps.autoRelate.link(userId, memories, namespace, { sameCall: false });
  return { outcome, relations_created };
}
