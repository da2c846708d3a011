import type { MemoryFilter, Page } from "./store-port";
import type { Memories } from "./memories";
import type { Memory } from "./memory";

/** Unpinned memories count as core from this importance, or from this many recalls. */
export const CORE_MIN_IMPORTANCE = 0.8;
export const CORE_MIN_ACCESSES = 5;

const isCore = (m: Memory) => m.importance >= CORE_MIN_IMPORTANCE || m.access_count >= CORE_MIN_ACCESSES;

/**
 * MemoClaw's core memories (GET /v1/core-memories, /v1/core): the pinned ones (newest first, as
 * GET /v1/memories/core lists them), then unpinned memories that are important (≥ 0.8) or
 * often recalled (≥ 5 times), most important first. The spec's GET /v1/memories/core stays pinned only.
 */
export async function coreMemories(memories: Memories, userId: string, filter: MemoryFilter, page: Page): Promise<{ memories: Memory[]; total: number }> {
  const pinned = await memories.list(userId, { ...filter, pinned: true }, page);
  const restPage = { limit: Math.max(1, page.limit - pinned.memories.length), offset: Math.max(0, page.offset - pinned.total) };
  const rest = await memories.list(userId, { ...filter, pinned: false }, restPage, { sort: "importance", order: "desc", where: isCore });
  const fill = pinned.memories.length < page.limit ? rest.memories.slice(0, page.limit - pinned.memories.length) : [];
  return { memories: [...pinned.memories, ...fill], total: pinned.total + rest.total };
}
