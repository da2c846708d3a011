import type { MemoryFilter } from "./store-port";
import type { Memories } from "./memories";
import { tagsOf } from "./memory";

const SCAN_PAGE = 1000;

/** Every tag on the wallet's active memories (matching `filter`) with how many memories carry it, most used first. */
export async function tagCounts(memories: Memories, userId: string, filter: MemoryFilter): Promise<{ tag: string; count: number }[]> {
  const counts = new Map<string, number>();
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const page = await memories.list(userId, filter, { limit: SCAN_PAGE, offset });
    for (const memory of page.memories) for (const tag of new Set(tagsOf(memory))) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    if (page.memories.length < SCAN_PAGE) break;
  }
  return [...counts].map(([tag, count]) => ({ tag, count })).sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
}
