/**
 * Unit vectors in 16-bit fixed point: what the embedded engine's cache keeps per row instead of f32
 * (200 bytes per 100-d row instead of 400; at 1M cached rows that is ~200 MB of the process's own
 * memory). A vector v is kept as x_i = round(v_i · 32767 / max|v_i|) and the factor 1 / ‖x‖, so the
 * row's direction is x / ‖x‖ and its cosine with a unit query q is (q · x) / ‖x‖.
 *
 * That cosine differs from the f32 one by at most ‖v/‖v‖ − x/‖x‖‖ ≤ √dim · max|v_i| / (32767 ‖v‖)
 * (each x_i is within ½ of the scaled component; the normalisation at most doubles it): ≤ 3·10⁻⁴ at
 * 100 dimensions in the worst case, ~10⁻⁶ typically, far below any difference two embeddings mean.
 * Every vector search of the engine, the cache's and the SQL scan's, ranks by this one cosine, so a
 * wallet answers the same whether it is cached yet or not. Identical directions (identical or
 * scaled embeddings) stay identical, so exact ties stay ties.
 */
const FULL_SCALE = 32767;

/**
 * Writes v's fixed-point form at out[at…at+v.length) and returns its factor 1 / ‖x‖ (0 for a zero
 * or non-finite vector, which then has cosine 0 with everything, as before).
 */
export function toFixedPoint(v: ArrayLike<number>, out: Int16Array, at: number): number {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const scale = max > 0 && Number.isFinite(max) ? FULL_SCALE / max : 0;
  let squares = 0;
  for (let i = 0; i < v.length; i++) {
    const x = Math.round(v[i]! * scale);
    out[at + i] = x;
    squares += x * x;
  }
  return squares > 0 ? 1 / Math.sqrt(squares) : 0;
}

/** The cosine of the unit `query` with the fixed-point row at `at` whose factor is `factor`. */
export function fixedPointCosine(query: Float64Array, rows: Int16Array, at: number, factor: number): number {
  let dot = 0;
  for (let i = 0; i < query.length; i++) dot += query[i]! * rows[at + i]!;
  return dot * factor;
}

/** Writes the row's unit direction x / ‖x‖ (what the int8 copy quantizes) into `out`. */
export function fixedPointUnit(rows: Int16Array, at: number, factor: number, out: Float32Array): Float32Array {
  for (let i = 0; i < out.length; i++) out[i] = rows[at + i]! * factor;
  return out;
}
