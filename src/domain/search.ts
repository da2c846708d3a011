import type { MemoryFilter, MemoryStore } from "./store-port";
import type { Clock } from "./ports";
import { queryTerms } from "./text";

/** Keyword search: BM25 over content. The query is reduced to plain words, so no user text is ever query syntax. */
export async function keywordSearch(store: MemoryStore, clock: Clock, userId: string, query: string, filter: MemoryFilter, limit: number) {
  const terms = queryTerms(query);
  const now = clock();
  const [hits, total] = await Promise.all([store.searchText(userId, terms, filter, limit, now), store.countText(userId, terms, filter, now)]);
  return { memories: await store.getMemories(userId, hits.map((h) => h.memory.id), now), total };
}
