import { t } from "elysia";
import { Memory, tagsOf, type Memory as MemoryT } from "../domain/memory";
import { Signals } from "../domain/scoring";
import { ListedRelation, withDirection } from "../domain/relation";
import type { RecalledMemory } from "../domain/recall";

/**
 * Response shapes derived from the Memory schema (never re-declared) and the functions that
 * fill them. `tags` at the top level is always `metadata.tags`.
 */
const Tags = t.Array(t.String());

export const ListedMemory = t.Omit(Memory, ["deleted_at"]);
export const listed = ({ deleted_at: _, ...rest }: MemoryT) => rest;

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
  t.Pick(Memory, ["id", "content", "metadata", "importance", "namespace", "memory_type", "session_id", "agent_id", "created_at", "access_count", "pinned"]),
  t.Object({ similarity: t.Number(), _signals: Signals, relations: t.Optional(t.Array(ListedRelation)) }),
]);
export const recalled = ({ memory: m, similarity, signals, relations }: RecalledMemory) => ({
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
  _signals: signals,
  ...(relations && { relations: relations.map((r) => withDirection(r, m.id)) }),
});
