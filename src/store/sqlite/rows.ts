import type { Database } from "bun:sqlite";
import type { Memory, MemoryType } from "../../domain/memory";
import type { HistoryEntry } from "../../domain/history";
import { ACCESS_COUNT_SQL, ACCESSED_AT_SQL } from "./schema";

/**
 * The embedded engine's rows of a memory and of a history entry, and their domain shapes: what the
 * store's reads and a whole-store copy (transfer.ts) select, parse and insert alike.
 */

export interface MemoryRow {
  rowid: number;
  id: string;
  user_id: string;
  namespace: string;
  content: string;
  metadata: string;
  importance: number;
  memory_type: string;
  session_id: string | null;
  agent_id: string | null;
  pinned: number;
  immutable: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  accessed_at: string;
  access_count: number;
  deleted_at: string | null;
}

/** A memory's columns, from `memories m ${ACCESS_JOIN}` */
export const MEMORY_COLUMNS = `m.rowid, m.id, m.user_id, m.namespace, m.content, m.metadata, m.importance, m.memory_type, m.session_id,
  m.agent_id, m.pinned, m.immutable, m.expires_at, m.created_at, m.updated_at, ${ACCESSED_AT_SQL} as accessed_at, ${ACCESS_COUNT_SQL} as access_count,
  m.deleted_at`;

export function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    user_id: row.user_id,
    namespace: row.namespace,
    content: row.content,
    metadata: JSON.parse(row.metadata),
    importance: row.importance,
    memory_type: row.memory_type as MemoryType,
    session_id: row.session_id,
    agent_id: row.agent_id,
    pinned: row.pinned === 1,
    immutable: row.immutable === 1,
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    accessed_at: row.accessed_at,
    access_count: row.access_count,
    deleted_at: row.deleted_at,
  };
}

export const asVector = (blob: Uint8Array) => new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
export const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export const HISTORY_COLUMNS = "id, memory_id, changes, created_at, snapshots";
export interface HistoryRow {
  id: string;
  memory_id: string;
  changes: string;
  created_at: string;
  snapshots: string | null;
}

export const toHistoryEntry = ({ snapshots, ...r }: HistoryRow): HistoryEntry => ({ ...(snapshots && JSON.parse(snapshots)), ...r, changes: JSON.parse(r.changes) });

/** The spec's four fields in their columns, the additive ones (before/after snapshots…) as one JSON object. */
export function insertHistory(db: Database, userId: string, entry: HistoryEntry): void {
  const { id, memory_id, changes, created_at, ...snapshots } = entry;
  db.query("insert into history (id, user_id, memory_id, changes, created_at, snapshots) values (?, ?, ?, ?, ?, ?)")
    .run(id, userId, memory_id, JSON.stringify(changes), created_at, JSON.stringify(snapshots));
}
