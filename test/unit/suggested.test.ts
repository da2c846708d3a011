import { describe, expect, test } from "bun:test";
import { newMemory, type Memory } from "../../src/domain/memory";
import type { MemoryStore, Page } from "../../src/domain/store-port";
import { reasonFor, reviewScore, suggest, SUGGESTION_SCAN_LIMIT, type SuggestionReason } from "../../src/domain/suggested";

const NOW = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;
const ORDER: SuggestionReason[] = ["decaying", "hot", "fresh", "stale"];

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/** `n` memories newest first over 300 days, with coarse importances (many ties) and a spread of pins and uses. */
function wallet(n: number, seed: number): Memory[] {
  const rnd = random(seed);
  return Array.from({ length: n }, (_, i) => {
    const created = NOW - Math.floor((i / n) * 300 * DAY) - Math.floor(rnd() * 1000);
    const memory = newMemory({ user_id: "u1", content: `m${i}`, memory_type: rnd() < 0.5 ? "general" : "preference", importance: Math.round(rnd() * 10) / 10 }, new Date(created).toISOString());
    return { ...memory, pinned: rnd() < 0.1, access_count: rnd() < 0.4 ? 0 : Math.floor(rnd() * 6), accessed_at: new Date(created + Math.floor(rnd() * 5) * DAY).toISOString() };
  });
}

/** The answer read in one pass over every examined memory: what the paged reading must equal. */
function reference(memories: Memory[], limit: number, only?: SuggestionReason) {
  const flagged = memories.slice(0, SUGGESTION_SCAN_LIMIT).flatMap((memory) => {
    const reason = reasonFor(memory, NOW);
    return reason ? [{ memory, reason, review_score: reviewScore(memory, reason, NOW) }] : [];
  });
  flagged.sort((a, b) => ORDER.indexOf(a.reason) - ORDER.indexOf(b.reason) || b.memory.importance - a.memory.importance);
  const counts = Object.fromEntries(ORDER.map((reason) => [reason, flagged.filter((f) => f.reason === reason).length])) as Record<SuggestionReason, number>;
  const chosen = only ? flagged.filter((f) => f.reason === only) : flagged;
  return { suggestions: chosen.slice(0, limit), counts, total: chosen.length };
}

const storeOver = (memories: Memory[]) =>
  ({
    async listMemories(_user: string, _filter: object, page: Page) {
      return { memories: memories.slice(page.offset, page.offset + page.limit), total: memories.length };
    },
  }) as unknown as MemoryStore;

describe("suggestions read a page at a time", () => {
  for (const [size, seed] of [[40, 1], [1_234, 2], [6_100, 3]] as const) {
    test(`equal the one-pass answer over ${size} memories for every reason and limit`, async () => {
      const memories = wallet(size, seed);
      const counts = reference(memories, 1).counts;
      // every reason is flagged in the larger wallets, so each group's paging is exercised
      if (size > 1000) for (const reason of ORDER) expect(counts[reason]).toBeGreaterThan(0);
      for (const only of [undefined, ...ORDER]) {
        for (const limit of [1, 7, 50, 200]) {
          expect(await suggest(storeOver(memories), () => NOW, "u1", {}, limit, only)).toEqual(reference(memories, limit, only));
        }
      }
    });
  }
});
