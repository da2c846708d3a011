/**
 * Splits a tokenized batch into groups run separately. A run costs for every position of its
 * padded input (rows × longest row), plus a fixed part: one batch of 25 RealMem questions
 * (~77 tokens on average, some truncated at 128) padded as one costs about twice the tokens
 * it holds; one run per text pays the fixed part 25 times. The groups chosen minimise
 * Σ (RUN_COST + rows × longest) over the rows sorted by length, exactly (dynamic programming
 * over the split points, n² steps for n ≤ 64 rows).
 */

/**
 * A run's fixed cost in padded positions: ~0.35 ms per session run of use-lite-128d against
 * ~22 µs per position (int8, one thread, measured on a 2-core AMD EPYC).
 */
export const RUN_COST = 16;

/** Index groups covering 0..lengths.length-1, each sorted by length; a single group when padding is cheap. */
export function lengthGroups(lengths: readonly number[], runCost = RUN_COST): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const n = order.length;
  // best[j]: least cost of the first j rows in order; cut[j]: where the last group of that split starts
  const best = new Float64Array(n + 1);
  const cut = new Int32Array(n + 1);
  for (let j = 1; j <= n; j++) {
    const longest = lengths[order[j - 1]!]!;
    best[j] = Infinity;
    for (let i = 0; i < j; i++) {
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
