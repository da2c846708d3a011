/**
 * Smooth Inverse Frequency weighting (Arora, Liang & Ma, ICLR 2017, "A Simple but
 * Tough-to-Beat Baseline for Sentence Embeddings"): a sentence vector is the
 * average of a/(a + p(w)) * v_w, minus its projection on a common component.
 * Both steps are linear, so they can be folded into each word's row and the
 * runtime model stays a plain lookup + mean pooling.
 */

/** Harmonic number H_n = sum_{r=1..n} 1/r: the Zipf normaliser. */
export function harmonic(n: number): number {
  let h = 0;
  for (let r = n; r >= 1; r--) h += 1 / r; // smallest terms first for accuracy
  return h;
}

/**
 * Unigram probability estimated from frequency rank alone (Zipf, exponent 1):
 * GloVe ships no counts, only words sorted by frequency. p(r) = 1 / (r * H_total).
 * For GloVe 6B this gives p("the") ≈ 0.075, close to its real share of English text.
 */
export function zipfProbability(rank: number, harmonicTotal: number): number {
  return 1 / (rank * harmonicTotal);
}

/** SIF weight a / (a + p): ≈1 for rare words, ≈a/p for the most frequent ones. */
export function sifWeight(p: number, a: number): number {
  return a / (a + p);
}

/**
 * First principal direction of the sentence vectors this table will produce,
 * computed analytically instead of from a corpus. A sentence of L tokens drawn
 * from q has E[s sᵀ] = (1 - 1/L)·μμᵀ + (1/L)·Σ q_w r_w r_wᵀ, with μ = Σ q_w r_w
 * (uncentred, as in the SIF paper). Its top eigenvector comes from power iteration.
 */
export function commonComponent(rows: Float32Array, dim: number, q: Float64Array, sentenceLength: number): Float64Array {
  const mu = new Float64Array(dim);
  const second = new Float64Array(dim * dim);
  for (let w = 0; w < q.length; w++) {
    const qw = q[w]!;
    if (qw === 0) continue;
    const base = w * dim;
    for (let i = 0; i < dim; i++) {
      const ri = rows[base + i]! * qw;
      mu[i]! += ri;
      for (let j = i; j < dim; j++) second[i * dim + j]! += ri * rows[base + j]!; // upper triangle
    }
  }
  for (let i = 0; i < dim; i++) for (let j = 0; j < i; j++) second[i * dim + j] = second[j * dim + i]!;
  const inv = 1 / sentenceLength;
  const m = new Float64Array(dim * dim);
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j < dim; j++) m[i * dim + j] = (1 - inv) * mu[i]! * mu[j]! + inv * second[i * dim + j]!;
  }
  return topEigenvector(m, dim);
}

/** Power iteration from a fixed start, so the result is reproducible bit for bit. */
function topEigenvector(m: Float64Array, dim: number): Float64Array {
  let v = new Float64Array(dim).fill(1 / Math.sqrt(dim));
  for (let iter = 0; iter < 500; iter++) {
    const next = new Float64Array(dim);
    for (let i = 0; i < dim; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += m[i * dim + j]! * v[j]!;
      next[i] = s;
    }
    const norm = Math.hypot(...next);
    for (let i = 0; i < dim; i++) next[i]! /= norm;
    v = next;
  }
  return v;
}

/** rows[w] -= (rows[w]·u) u for every row; u must be unit length. */
export function removeComponent(rows: Float32Array, dim: number, u: Float64Array): void {
  for (let base = 0; base < rows.length; base += dim) {
    let dot = 0;
    for (let i = 0; i < dim; i++) dot += rows[base + i]! * u[i]!;
    for (let i = 0; i < dim; i++) rows[base + i] = rows[base + i]! - dot * u[i]!;
  }
}
