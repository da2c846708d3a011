import { t, type Static } from "elysia";
import { Memory, tagsOf, uuid, type Memory as MemoryT } from "../domain/memory";
import { Signals } from "../domain/scoring";
import { ListedRelation } from "../domain/relation";
import type { RecalledMemory } from "../domain/recall";

/**
 * Response shapes derived from the Memory schema (never re-declared) and the functions that
 * fill them. `tags` at the top level is always `metadata.tags`.
 */
const Tags = t.Array(t.String());

/**
 * A Memory as returned by get, list, PATCH and the MemoClaw aliases: the record plus what the
 * MemoClaw clients read: `tags` (= metadata.tags), `embedding_model` (the model that embedded it:
 * one per store) and `last_accessed` (= accessed_at).
 */
export const ListedMemory = t.Composite([
  Memory,
  t.Object({ tags: Tags, embedding_model: t.String(), last_accessed: t.String({ format: "date-time", description: "the same as accessed_at" }) }),
]);
export type ListedMemory = Static<typeof ListedMemory>;
/** The presenter of ListedMemory for a store bound to `modelId`. */
export const memoryView =
  (modelId: string) =>
  (m: MemoryT): ListedMemory => ({ ...m, tags: tagsOf(m), embedding_model: modelId, last_accessed: m.accessed_at });

/** A schema of some Memory fields plus the top-level `tags`, and the function that fills it: the keys are listed once. */
function withTags<const K extends keyof MemoryT & keyof typeof Memory.properties>(keys: readonly K[]) {
  const schema = t.Composite([t.Pick(Memory, keys), t.Object({ tags: Tags })]);
  const present = (m: MemoryT) => ({ ...(Object.fromEntries(keys.map((k) => [k, m[k]])) as Pick<MemoryT, K>), tags: tagsOf(m) });
  return [schema, present] as const;
}

export const [SearchedMemory, searched] = withTags(["id", "content", "importance", "memory_type", "namespace", "created_at"]);
export const [CoreMemory, core] = withTags(["id", "content", "importance", "pinned", "memory_type", "created_at"]);
export const [ExportedMemory, exported] = withTags([
  "id", "content", "importance", "memory_type", "namespace", "created_at", "updated_at", "deleted_at", "pinned", "session_id", "agent_id",
]);

export const RecalledMemorySchema = t.Composite([
  t.Pick(Memory, ["id", "content", "metadata", "importance", "namespace", "memory_type", "session_id", "agent_id", "created_at", "access_count", "pinned", "immutable"]),
  t.Object({
    tags: Tags,
    similarity: t.Number(),
    _signals: Signals,
    superseded_by: t.Optional(uuid("present when a newer memory replaces this one: that memory's id (it ranks above this one)")),
    relations: t.Optional(t.Array(ListedRelation)),
  }),
]);
/** `relations`: the memory's relations as listed (with include_relations). */
export const recalled = ({ memory: m, similarity, signals, superseded_by }: RecalledMemory, relations?: ListedRelation[]) => ({
  id: m.id,
  content: m.content,
  similarity,
  metadata: m.metadata,
  importance: m.importance,
  namespace: m.namespace,
  memory_type: m.memory_type,
  session_id: m.session_id,
  agent_id: m.agent_id,
  created_at: m.created_at,
  access_count: m.access_count,
  pinned: m.pinned,
  immutable: m.immutable,
  tags: tagsOf(m),
  _signals: signals,
  ...(superseded_by && { superseded_by }),
  ...(relations && { relations }),
});
