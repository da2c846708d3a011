import type { Database } from "bun:sqlite";
import type { Memory } from "../../src/domain/memory";
import type { MemoryFilter } from "../../src/domain/store-port";
import type { SqliteStore } from "../../src/store/sqlite/sqlite-store";

/**
 * Reference semantics for store-level tests: what a MemoryFilter admits, written out plainly so the
 * engines' indexes are checked against it (not against themselves).
 */
export function matchesFilter(m: Memory, filter: MemoryFilter, now: number): boolean {
  if (m.deleted_at !== null) return false;
  if (m.expires_at !== null && Date.parse(m.expires_at) <= now) return false;
  if (filter.namespace !== undefined && m.namespace !== filter.namespace) return false;
  if (filter.session_id !== undefined && m.session_id !== filter.session_id) return false;
  if (filter.agent_id !== undefined && m.agent_id !== filter.agent_id) return false;
  if (filter.memory_type !== undefined && m.memory_type !== filter.memory_type) return false;
  if (filter.pinned !== undefined && m.pinned !== filter.pinned) return false;
  const created = Date.parse(m.created_at);
  if (filter.created_after !== undefined && !(created > Date.parse(filter.created_after))) return false;
  if (filter.created_before !== undefined && !(created < Date.parse(filter.created_before))) return false;
  if (filter.tags?.length) {
    const tags = m.metadata.tags ?? [];
    if (!filter.tags.some((t) => tags.includes(t))) return false;
  }
  return true;
}

/** The store's SQLite handle, for tests that write behind its back as another connection would. */
export const dbOf = (store: SqliteStore) => (store as unknown as { db: Database }).db;
