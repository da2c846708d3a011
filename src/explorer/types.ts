/**
 * The shapes the explorer reads from the API. Written out here because the page is type-checked
 * with the DOM library on its own (src/explorer/tsconfig.json), apart from the server's code; they
 * follow ListedMemory (src/http/present.ts), Stats, Relation, HistoryEntry and Signals (src/domain),
 * and test/explorer.test.ts checks the type lists against the server's.
 */
export const MEMORY_TYPES = ["correction", "preference", "decision", "project", "observation", "general"] as const;
export const RELATION_TYPES = ["related_to", "derived_from", "contradicts", "supersedes", "supports"] as const;

export interface Memory {
  id: string;
  namespace: string;
  content: string;
  metadata: Record<string, unknown>;
  importance: number;
  memory_type: string;
  session_id: string | null;
  agent_id: string | null;
  pinned: boolean;
  immutable: boolean;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  accessed_at: string;
  access_count: number;
  tags: string[];
}
export interface MemoryPage { memories: Memory[]; total: number; limit: number; offset: number }
export interface SearchHit { id: string; content: string; importance: number; memory_type: string; namespace: string; created_at: string; tags: string[] }
export interface Signals {
  vector: number;
  keyword: number;
  recency: number;
  base_importance: number;
  effective_importance: number;
  context_importance: number;
  relation_count: number;
  type_decay: number;
}
export interface RecallHit extends SearchHit { similarity: number; access_count: number; pinned: boolean; _signals: Signals }
export interface Relation { id: string; source_id: string; target_id: string; relation_type: string; metadata: Record<string, unknown>; created_at: string }
export interface ListedRelation extends Relation { direction: "incoming" | "outgoing"; memory: { id: string; content: string; importance: number; memory_type: string; namespace: string } }
export interface HistoryEntry {
  id: string;
  memory_id: string;
  changes: Record<string, unknown>;
  created_at: string;
  /** the memory's fields before the change (absent from entries recorded before snapshots existed) */
  before?: Record<string, unknown>;
}
export interface Graph { nodes: (Memory & { depth: number })[]; edges: Relation[]; truncated: boolean }
export interface Stats {
  total_memories: number;
  pinned_count: number;
  never_accessed: number;
  total_accesses: number;
  avg_importance: number;
  oldest_memory: string | null;
  newest_memory: string | null;
  by_type: { memory_type: string; count: number }[];
  by_namespace: { namespace: string; count: number }[];
}
export interface FreeTierStatus { wallet: string; free_tier_remaining: number; free_tier_total: number; free_tier_used: number }
