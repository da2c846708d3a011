import { t, type Static } from "elysia";
import type { MemoryFilter, MemoryStore, Page } from "./store-port";
import type { Memory } from "./memory";

export const SortField = t.Union([t.Literal("created_at"), t.Literal("updated_at"), t.Literal("importance")]);
export const SortOrder = t.Union([t.Literal("asc"), t.Literal("desc")]);

/**
 * What a list can ask beyond the engines' filters (MemoClaw clients send these): an order other
 * than newest first, a match on metadata values, the immutable flag. Engines index none of them,
 * so a refined list reads the filtered memories in pages and refines them here: one pass over the
 * matching memories (fine for a wallet's list; the unrefined list stays the engine's indexed page).
 */
export interface Refinement {
  sort?: Static<typeof SortField>;
  order?: Static<typeof SortOrder>;
  /** every key must match: equal JSON value, or for an array value, containing the given scalar */
  metadata?: Record<string, unknown>;
  immutable?: boolean;
  /** any other condition the domain puts on the memories (e.g. core-memories.ts) */
  where?: (memory: Memory) => boolean;
}

const SCAN_PAGE = 1000;

export function isRefined(r: Refinement | undefined): r is Refinement {
  return !!r && ((r.sort !== undefined && r.sort !== "created_at") || r.order === "asc" || r.metadata !== undefined || r.immutable !== undefined || r.where !== undefined);
}

/** Does a memory's metadata have every given key with the given value? */
export function metadataMatches(metadata: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([key, value]) => {
    const actual = metadata[key];
    if (JSON.stringify(actual) === JSON.stringify(value)) return true;
    return Array.isArray(actual) && !Array.isArray(value) && actual.some((v) => JSON.stringify(v) === JSON.stringify(value));
  });
}

export function accepts(r: Refinement, memory: Memory): boolean {
  return (r.immutable === undefined || memory.immutable === r.immutable) && (!r.metadata || metadataMatches(memory.metadata, r.metadata)) && (r.where?.(memory) ?? true);
}

/** The engine's list (newest first) refined: filtered, sorted (ties newest first), then paged. */
export async function refinedList(store: MemoryStore, userId: string, filter: MemoryFilter, page: Page, r: Refinement, now: number) {
  const matching: Memory[] = [];
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const { memories } = await store.listMemories(userId, filter, { limit: SCAN_PAGE, offset }, now);
    matching.push(...memories.filter((m) => accepts(r, m)));
    if (memories.length < SCAN_PAGE) break;
  }
  const field = r.sort ?? "created_at";
  const sign = (r.order ?? "desc") === "asc" ? 1 : -1;
  const key = (m: Memory) => (field === "importance" ? m.importance : Date.parse(m[field]));
  // a stable sort keeps the engine's newest-first order among equal keys, in either order
  matching.sort((a, b) => sign * (key(a) - key(b)));
  return { memories: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
}
