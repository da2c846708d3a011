/**
 * The cache's budget as a bound on the process's memory (src/store/sqlite/rss-watch.ts): RssWatch
 * on made-up readings, then a store whose cache it governs. When the process's anonymous memory
 * grows over its level at the first load plus the budget, the cache drops least recently used
 * wallets by what it grew over and holds no more than its lowered cap; below the limit the cap comes back; every
 * answer stays the one a cache-less reference connection gives, for every wallet.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng } from "../../scripts/bench/synthetic";
import { newMemory } from "../../src/domain/memory";
import type { StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { RssWatch, anonymousRss } from "../../src/store/sqlite/rss-watch";
import type { VectorIndex } from "../../src/store/sqlite/vector-index";

const MiB = 2 ** 20;

/** An RssWatch reading `rss.now`, on a clock the test moves, counting its collections. */
function fakeWatch(allowed: number) {
  const state = { now: 100 * MiB, clock: 0, collections: 0 };
  const watch = new RssWatch(
    allowed,
    () => state.now,
    () => state.collections++,
    () => state.clock,
  );
  /** the next check reads (the watch reads at most every 250 ms) */
  const later = (ms = 1000) => (state.clock += ms);
  return { state, watch, later };
}

describe("RssWatch", () => {
  test("the first reading is the baseline; the cap goes down by what the process grew beyond the limit, and back up by what is under it", () => {
    const { state, watch, later } = fakeWatch(10 * MiB);
    expect(watch.check(0)).toBe(false);
    expect(watch.limit).toBe(110 * MiB);
    expect(watch.cap).toBe(10 * MiB);

    later();
    state.now = 113 * MiB; // 3 MiB over with 8 MiB cached
    expect(watch.check(8 * MiB)).toBe(true);
    expect(watch.cap).toBe(5 * MiB);

    later();
    state.now = 112 * MiB; // still over, but no growth: what was dropped is being reused, nothing more goes
    expect(watch.check(5 * MiB)).toBe(false);
    expect(watch.cap).toBe(5 * MiB);

    later();
    state.now = 114 * MiB; // grew by 1 MiB beyond the highest reading
    expect(watch.check(5 * MiB)).toBe(true);
    expect(watch.cap).toBe(4 * MiB);

    later();
    state.now = 108 * MiB; // 2 MiB under: the cache may add them
    expect(watch.check(4 * MiB)).toBe(false);
    expect(watch.cap).toBe(6 * MiB);

    later();
    state.now = 111 * MiB; // over again after being under: counted from the limit
    expect(watch.check(6 * MiB)).toBe(true);
    expect(watch.cap).toBe(5 * MiB);

    later();
    state.now = 50 * MiB; // far under: never beyond the budget
    watch.check(5 * MiB);
    expect(watch.cap).toBe(10 * MiB);

    later();
    state.now = 500 * MiB; // over by more than everything cached: nothing may stay
    expect(watch.check(10 * MiB)).toBe(true);
    expect(watch.cap).toBe(0);
  });

  test("reads at most every 250 ms, collects at most every 10 s, and starts over when the cache is emptied", () => {
    const { state, watch, later } = fakeWatch(10 * MiB);
    watch.check(0);
    state.now = 115 * MiB;
    expect(watch.check(8 * MiB)).toBe(false); // too soon: no reading
    expect(watch.cap).toBe(10 * MiB);
    later(300);
    expect(watch.check(8 * MiB)).toBe(true);
    watch.dropped();
    watch.dropped();
    expect(state.collections).toBe(1);
    later(10_000);
    watch.dropped();
    expect(state.collections).toBe(2);
    watch.reset();
    expect(watch.cap).toBe(10 * MiB);
    expect(watch.limit).toBe(110 * MiB); // same process, same baseline
  });

  test("reads this process's anonymous memory from /proc on Linux", () => {
    const rss = anonymousRss();
    if (process.platform !== "linux") return expect(rss).toBeNull();
    expect(rss).toBeGreaterThan(MiB);
    expect(rss).toBeLessThan(process.memoryUsage().rss + MiB);
  });
});

describe("a store whose cache the process's memory bounds", () => {
  const D = 16;
  const MODEL = { id: "test-random-vectors", dimension: D };
  const NOW = Date.parse("2025-06-01T00:00:00.000Z");
  const WALLETS = Array.from({ length: 12 }, (_, w) => `wallet-${w}`);
  const rng = prng(26);
  const vector = () => Float32Array.from({ length: D }, () => rng() - 0.5);
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
  let dir: string;
  let ref: SqliteStore;
  let store: SqliteStore;
  let fake: ReturnType<typeof fakeWatch>;
  const indexOf = (s: SqliteStore) => (s as unknown as { vectors: VectorIndex }).vectors;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "engram-rss-watch-"));
    ref = new SqliteStore(dir, { vectorIndex: { maxCachedBytes: 1 } }); // caches nothing: SQL and FTS5 answer
    await ref.bindEmbeddingModel(MODEL);
    let seq = 0;
    const items: StoredMemory[] = WALLETS.flatMap((user_id) =>
      Array.from({ length: 30 }, () => {
        seq++;
        const content = `${words[seq % 6]} ${words[(seq * 7) % 6]} note ${seq}`;
        return { memory: newMemory({ id: `m-${seq}`, user_id, content, namespace: "default", metadata: {} }, new Date(NOW - seq * 1000).toISOString()), embedding: vector(), content_hash: `h${seq}` };
      }),
    );
    await ref.insertMemories(items);
    fake = fakeWatch(64 * MiB);
    store = new SqliteStore(dir, { vectorIndex: { maxCachedBytes: 64 * MiB, boundRss: fake.watch } });
    await store.bindEmbeddingModel(MODEL);
  });

  afterAll(async () => {
    await store?.close();
    await ref?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every wallet's vector and keyword searches answer as the reference does; the cache within its cap after each. */
  async function everyWalletAnswers(): Promise<void> {
    const index = indexOf(store);
    for (const userId of WALLETS) {
      fake.later(); // each search may read the process's memory
      const query = vector();
      const want = await ref.nearest(userId, query, {}, 10, NOW);
      const got = await store.nearest(userId, query, {}, 10, NOW);
      expect({ userId, ids: got.map((h) => h.memory.id) }).toEqual({ userId, ids: want.map((h) => h.memory.id) });
      const text = await store.searchText(userId, ["alpha", "delta"], {}, 20, NOW);
      expect(text.map((h) => h.memory.id)).toEqual((await ref.searchText(userId, ["alpha", "delta"], {}, 20, NOW)).map((h) => h.memory.id));
      const { bytes, capBytes, maxBytes, users } = index.cached();
      expect(capBytes).toBeLessThanOrEqual(maxBytes);
      // the wallet just searched stays even when it alone is over a lowered cap
      if (users > 1) expect(bytes).toBeLessThanOrEqual(capBytes);
    }
  }

  test("under its limit every wallet stays cached; over it wallets go by what is over, and come back once under", async () => {
    const index = indexOf(store);
    await everyWalletAnswers();
    expect(index.cached().users).toBe(WALLETS.length);
    const all = index.cached().bytes;

    // the process grew by the budget plus half of what the cache holds: half of it has to go, once
    fake.state.now += 64 * MiB + Math.round(all / 2);
    await everyWalletAnswers();
    const pressed = index.cached();
    expect(pressed.capBytes).toBeLessThan(all / 2 + 1);
    expect(pressed.capBytes).toBeGreaterThan(all / 2 - 2 ** 10);
    expect(pressed.users).toBeLessThan(WALLETS.length / 2 + 1);
    expect(pressed.users).toBeGreaterThan(1);
    expect(fake.state.collections).toBe(1);

    // the memory went back under the limit: the cap returns to the budget and the wallets load again
    fake.state.now -= 64 * MiB + all;
    await everyWalletAnswers();
    await everyWalletAnswers();
    expect(index.cached().capBytes).toBe(64 * MiB);
    expect(index.cached().users).toBe(WALLETS.length);
  });
});
