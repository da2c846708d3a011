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

export const SearchedMemory = t.Composite([t.Pick(Memory, ["id", "content", "importance", "memory_type", "namespace", "created_at"]), t.Object({ tags: Tags })]);
export const searched = (m: MemoryT) => ({
  id: m.id,
  content: m.content,
  importance: m.importance,
  memory_type: m.memory_type,
  namespace: m.namespace,
  tags: tagsOf(m),
  created_at: m.created_at,
});

export const CoreMemory = t.Composite([t.Pick(Memory, ["id", "content", "importance", "pinned", "memory_type", "created_at"]), t.Object({ tags: Tags })]);
export const core = (m: MemoryT) => ({
  id: m.id,
  content: m.content,
  importance: m.importance,
  pinned: m.pinned,
  memory_type: m.memory_type,
  tags: tagsOf(m),
  created_at: m.created_at,
});

export const ExportedMemory = t.Composite([
  t.Pick(Memory, ["id", "content", "importance", "memory_type", "namespace", "created_at", "updated_at", "deleted_at", "pinned", "session_id", "agent_id"]),
  t.Object({ tags: Tags }),
]);
export const exported = (m: MemoryT) => ({
  id: m.id,
  content: m.content,
  importance: m.importance,
  memory_type: m.memory_type,
  namespace: m.namespace,
  tags: tagsOf(m),
  created_at: m.created_at,
  updated_at: m.updated_at,
  deleted_at: m.deleted_at,
  pinned: m.pinned,
  session_id: m.session_id,
  agent_id: m.agent_id,
});

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
