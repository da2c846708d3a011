/**
 * Masked mean pooling + L2 normalisation, the same maths as the transformers.js
 * feature-extraction pipeline with {pooling: "mean", normalize: true}, except
 * that a text with no (or only zero-vector) tokens yields an all-zero vector
 * instead of NaN: it then has cosine 0 with everything and sorts last.
 */
export interface Pooled {
  /** batch × dim, row-major. */
  vectors: Float32Array<ArrayBuffer>;
  /** Non-padding tokens per text (sum of the attention mask). */
  tokens: Int32Array<ArrayBuffer>;
}

export function meanPoolNormalize(
  hidden: Float32Array,
  mask: BigInt64Array,
  batch: number,
  seq: number,
  dim: number,
): Pooled {
  const vectors = new Float32Array(batch * dim);
  const tokens = new Int32Array(batch);
  const sum = new Float64Array(dim);
  for (let b = 0; b < batch; b++) {
    sum.fill(0);
    let count = 0;
    for (let s = 0; s < seq; s++) {
      if (mask[b * seq + s] === 0n) continue;
      count++;
      const base = (b * seq + s) * dim;
      for (let i = 0; i < dim; i++) sum[i]! += hidden[base + i]!;
    }
    tokens[b] = count;
    // Dividing by count is skipped: normalisation cancels it.
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += sum[i]! * sum[i]!;
    if (norm === 0) continue; // zero tokens, or only [UNK]/zero rows: stays the zero vector
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < dim; i++) vectors[b * dim + i] = sum[i]! * inv;
  }
  return { vectors, tokens };
}

/**
 * A model's own sentence vectors ([batch, dim], already unit length), with the token counts
 * from the mask. A text with no tokens gets the zero vector, as meanPoolNormalize gives it:
 * what the model returns for an empty sequence (its biases alone) would match every other
 * empty text and nothing useful.
 */
export function sentenceVectors(output: { data: unknown; dims: number[] }, mask: { data: unknown; dims: number[] }): Pooled {
  const [batch = 0, dim = 0] = output.dims;
  const seq = mask.dims[1] ?? 0;
  const maskData = mask.data as BigInt64Array;
  const vectors = Float32Array.from(output.data as Float32Array);
  const tokens = new Int32Array(batch);
  for (let b = 0; b < batch; b++) {
    for (let s = 0; s < seq; s++) if (maskData[b * seq + s] !== 0n) tokens[b]!++;
    if (tokens[b] === 0) vectors.fill(0, b * dim, (b + 1) * dim);
  }
  return { vectors, tokens };
}
