/**
 * The cache's full collections (src/store/sqlite/full-collections.ts): at most one every 10 s,
 * process-wide; replaced columns ask for one after the current work, never more than one pending.
 */
import { describe, expect, test } from "bun:test";
import { FullCollections, LARGE_REPLACEMENT_BYTES } from "../../src/store/sqlite/full-collections";

function fake() {
  const state = { clock: 0, collections: 0, timers: [] as { at: number; run: () => void }[] };
  const collections = new FullCollections(
    () => state.collections++,
    () => state.clock,
    (run, ms) => {
      state.timers.push({ at: state.clock + ms, run });
      return 0 as unknown as ReturnType<typeof setTimeout>;
    },
  );
  /** moves the clock and runs the timers that are due */
  const advance = (ms: number) => {
    state.clock += ms;
    const due = state.timers.filter((t) => t.at <= state.clock);
    state.timers = state.timers.filter((t) => t.at > state.clock);
    for (const t of due) t.run();
  };
  return { state, collections, advance };
}

describe("FullCollections", () => {
  test("now() collects at most once every 10 s", () => {
    const { state, collections, advance } = fake();
    expect(collections.now()).toBe(true);
    advance(9_999);
    expect(collections.now()).toBe(false);
    expect(state.collections).toBe(1);
    advance(1);
    expect(collections.now()).toBe(true);
    expect(state.collections).toBe(2);
  });

  test("small replacements ask for nothing; a large one for one collection after the current work, one pending at most", () => {
    const { state, collections, advance } = fake();
    collections.replaced(LARGE_REPLACEMENT_BYTES - 1);
    expect(state.timers).toHaveLength(0);

    collections.replaced(LARGE_REPLACEMENT_BYTES);
    collections.replaced(10 * LARGE_REPLACEMENT_BYTES);
    expect(state.collections).toBe(0); // not during the request that replaced them
    expect(state.timers).toHaveLength(1);
    advance(0);
    expect(state.collections).toBe(1);

    // within the interval: deferred to its end, not dropped
    advance(3_000);
    collections.replaced(LARGE_REPLACEMENT_BYTES);
    expect(state.timers).toHaveLength(1);
    expect(state.timers[0]!.at).toBe(10_000);
    advance(6_999);
    expect(state.collections).toBe(1);
    advance(1);
    expect(state.collections).toBe(2);
  });

  test("a collection the budget runs meanwhile serves the pending request: none more runs", () => {
    const { state, collections, advance } = fake();
    collections.replaced(LARGE_REPLACEMENT_BYTES);
    expect(collections.now()).toBe(true); // the budget's, before the timer ran
    advance(0);
    expect(state.collections).toBe(1);
    expect(state.timers).toHaveLength(0);
  });
});
