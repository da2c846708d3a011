/**
 * Splits a tokenized batch into groups run separately. A run costs for every position of its
 * padded input (rows × longest row), plus a fixed part: one batch of 25 RealMem questions
 * (~77 tokens on average, some truncated at 128) padded as one costs about twice the tokens
 * it holds; one run per text pays the fixed part 25 times. The groups chosen minimise
 * Σ (RUN_COST + rows × longest) over the rows sorted by length, exactly (dynamic programming
 * over the split points, n² steps for n ≤ 64 rows), with no run over MAX_RUN_POSITIONS.
 */

/**
 * A run's fixed cost in padded positions: ~0.35 ms per session run of use-lite-128d against
 * ~22 µs per position (int8, one thread, measured on a 2-core AMD EPYC).
 */
export const RUN_COST = 16;

/**
 * The most padded positions (rows × longest) one run may hold. ONNX Runtime's CPU arena grows to the
 * largest run it has served and keeps that memory: one run of 64 texts at the model's 128 tokens
 * left a worker holding ~200 MiB more for good, a run of 16 ~48 MiB; runs of at most 256 positions
 * keep the arena ~8 MiB below what runs of 400–500 positions (a batch store of 20 short memories)
 * leave. The fixed part of a run is 16 positions, and batch embedding measured as fast at 256 as at
 * 1,024 (docs/performance.md › History).
 */
export const MAX_RUN_POSITIONS = 256;

/** Index groups covering 0..lengths.length-1, each sorted by length; a single group when padding is cheap. */
export function lengthGroups(lengths: readonly number[], runCost = RUN_COST, maxPositions = MAX_RUN_POSITIONS): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const n = order.length;
  // best[j]: least cost of the first j rows in order; cut[j]: where the last group of that split starts
  const best = new Float64Array(n + 1);
  const cut = new Int32Array(n + 1);
  for (let j = 1; j <= n; j++) {
    const longest = lengths[order[j - 1]!]!;
    best[j] = Infinity;
    // rows i..j-1 in one run, at most `fit` of them; a single row may exceed the cap (it cannot be split)
    const fit = Math.max(1, Math.floor(maxPositions / Math.max(1, longest)));
    for (let i = Math.max(0, j - fit); i < j; i++) {
      const cost = best[i]! + runCost + (j - i) * longest;
      if (cost < best[j]!) {
        best[j] = cost;
        cut[j] = i;
      }
    }
  }
  const groups: number[][] = [];
  for (let j = n; j > 0; j = cut[j]!) groups.unshift(order.slice(cut[j]!, j));
  return groups;
}
