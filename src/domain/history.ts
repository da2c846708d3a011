import { t, type Static } from "elysia";
import { Memory, MemoryType, Metadata, Timestamp, Uuid } from "./memory";

const Nullable = <T extends ReturnType<typeof t.String>>(s: T) => t.Union([s, t.Null()]);

/** A memory's client-settable fields at one moment (a history entry's `before` and `after`). */
export const MemorySnapshot = t.Object({
  content: t.String(),
  metadata: Metadata,
  tags: t.Array(t.String(), { description: "metadata.tags, or [] when it has none" }),
  importance: t.Number(),
  memory_type: MemoryType,
  namespace: t.String(),
  session_id: Nullable(t.String()),
  agent_id: Nullable(t.String()),
  pinned: t.Boolean(),
  immutable: t.Boolean(),
  expires_at: Nullable(Timestamp),
  updated_at: Timestamp,
});
export type MemorySnapshot = Static<typeof MemorySnapshot>;

/**
 * One PATCH of a memory. The spec's fields: `changes` holds the fields that changed, with their new
 * values. Additive (absent from entries recorded before they existed): `before` and `after`, the
 * memory before and after the change; `changed_fields` and `changed_at`; and the version the change
 * made, flat at the top level (`content`, `importance`, `memory_type`, `namespace`, `tags`, `pinned`,
 * `immutable`), which is where memoclaw-mcp's `history` tool reads a version.
 */
export const HistoryEntry = t.Object({
  id: Uuid,
  memory_id: Uuid,
  changes: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
  changed_fields: t.Optional(t.Array(t.String(), { description: "the keys of `changes`" })),
  changed_at: t.Optional(t.String({ format: "date-time", description: "the same as created_at" })),
  before: t.Optional(MemorySnapshot),
  after: t.Optional(MemorySnapshot),
  content: t.Optional(t.String({ description: "after.content" })),
  importance: t.Optional(t.Number({ description: "after.importance" })),
  memory_type: t.Optional(MemoryType),
  namespace: t.Optional(t.String({ description: "after.namespace" })),
  tags: t.Optional(t.Array(t.String(), { description: "after.tags" })),
  pinned: t.Optional(t.Boolean({ description: "after.pinned" })),
  immutable: t.Optional(t.Boolean({ description: "after.immutable" })),
});
export type HistoryEntry = Static<typeof HistoryEntry>;

/** The history entry of one update, `before` → `after`, whose changed fields are `changes`, made at `at` (ISO). */
export function historyEntry(before: Memory, after: Memory, changes: Partial<Memory>, at: string): HistoryEntry {
  const version = snapshot(after);
  return {
    id: crypto.randomUUID(),
    memory_id: after.id,
    changes,
    created_at: at,
    changed_fields: Object.keys(changes),
    changed_at: at,
    before: snapshot(before),
    after: version,
    content: version.content,
    importance: version.importance,
    memory_type: version.memory_type,
    namespace: version.namespace,
    tags: version.tags,
    pinned: version.pinned,
    immutable: version.immutable,
  };
}

function snapshot(m: Memory): MemorySnapshot {
  return {
    content: m.content,
    metadata: m.metadata,
    tags: m.metadata.tags ?? [],
    importance: m.importance,
    memory_type: m.memory_type,
    namespace: m.namespace,
    session_id: m.session_id,
    agent_id: m.agent_id,
    pinned: m.pinned,
    immutable: m.immutable,
    expires_at: m.expires_at,
    updated_at: m.updated_at,
  };
}
