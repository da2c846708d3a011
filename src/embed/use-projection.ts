import "./onnx-telemetry.ts"; // before onnxruntime loads
import * as ort from "onnxruntime-node";
import type { PreTrainedTokenizer } from "@huggingface/transformers";
import type { Projection } from "./use-graph.ts";
import type { UseSource } from "./use-source.ts";

/**
 * USE-lite's 512-d sentence vectors reduced to their top principal directions, fitted at build time
 * without any corpus: on pseudo-sentences of whole words drawn by the vocabulary's own unigram
 * probabilities, embedded by the 512-d graph. The mean is subtracted first. Fewer dimensions make
 * every vector search, cache row and stored vector 4× cheaper, and measured on the quality sets the
 * 128 kept directions rank better than all 512 (docs/embeddings.md): what is dropped is mostly the
 * shared direction every text has (as "all-but-the-top" post-processing removes) and noise.
 */

export interface ProjectionFit {
  /** kept directions */
  dim: number;
  /** pseudo-sentences embedded for the fit */
  samples: number;
  seed: number;
}

export const DEFAULT_FIT: ProjectionFit = { dim: 128, samples: 6000, seed: 7 };

/** mulberry32: small, seedable, so the same build gives the same bytes. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whole lower-case words of the vocabulary (pieces "▁word") with a sampler by their probability. */
function wordSampler(src: UseSource, rng: () => number): () => string {
  const words = src.vocab.filter(([piece]) => /^\u2581[a-z]{2,}$/.test(piece));
  const cdf = new Float64Array(words.length);
  let total = 0;
  words.forEach(([, score], i) => (cdf[i] = total += Math.exp(score)));
  return () => {
    const r = rng() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]![0].slice(1);
  };
}

/** Samples × hidden matrix of the 512-d model's unit vectors for the pseudo-sentences. */
async function sampleVectors(onnx: Uint8Array, tokenizer: PreTrainedTokenizer, src: UseSource, fit: ProjectionFit, hidden: number): Promise<Float64Array> {
  const rng = prng(fit.seed);
  const word = wordSampler(src, rng);
  const session = await ort.InferenceSession.create(onnx);
  const vectors = new Float64Array(fit.samples * hidden);
  for (let start = 0; start < fit.samples; start += 64) {
    const texts = Array.from({ length: Math.min(64, fit.samples - start) }, () => Array.from({ length: 6 + Math.floor(rng() * 14) }, word).join(" "));
    const enc = tokenizer(texts, { padding: true, truncation: true });
    const ids = enc.input_ids as unknown as { data: BigInt64Array; dims: number[] };
    const mask = enc.attention_mask as unknown as { data: BigInt64Array; dims: number[] };
    const out = await session.run({ input_ids: new ort.Tensor("int64", ids.data, ids.dims), attention_mask: new ort.Tensor("int64", mask.data, mask.dims) });
    vectors.set(out.sentence_embedding!.data as Float32Array, start * hidden);
  }
  await session.release();
  return vectors;
}

/** Gram–Schmidt on the columns of a rows × cols row-major matrix, in place. */
function orthonormalize(m: Float64Array, rows: number, cols: number): void {
  for (let c = 0; c < cols; c++) {
    for (let p = 0; p < c; p++) {
      let dot = 0;
      for (let i = 0; i < rows; i++) dot += m[i * cols + c]! * m[i * cols + p]!;
      for (let i = 0; i < rows; i++) m[i * cols + c]! -= dot * m[i * cols + p]!;
    }
    let norm = 0;
    for (let i = 0; i < rows; i++) norm += m[i * cols + c]! ** 2;
    norm = Math.sqrt(norm);
    for (let i = 0; i < rows; i++) m[i * cols + c]! /= norm;
  }
}

/** The top `dim` eigenvectors of a symmetric n × n matrix by subspace iteration (columns of n × dim). */
function topEigenvectors(cov: Float64Array, n: number, dim: number, rng: () => number, iterations = 40): Float64Array {
  let q = Float64Array.from({ length: n * dim }, () => rng() - 0.5);
  orthonormalize(q, n, dim);
  for (let it = 0; it < iterations; it++) {
    const z = new Float64Array(n * dim);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const c = cov[i * n + j]!;
        for (let k = 0; k < dim; k++) z[i * dim + k]! += c * q[j * dim + k]!;
      }
    }
    orthonormalize(z, n, dim);
    q = z;
  }
  return q;
}

export async function fitProjection(onnx512: Uint8Array, tokenizer: PreTrainedTokenizer, src: UseSource, hidden: number, fit: ProjectionFit = DEFAULT_FIT): Promise<Projection> {
  const x = await sampleVectors(onnx512, tokenizer, src, fit, hidden);
  const mean = new Float64Array(hidden);
  for (let s = 0; s < fit.samples; s++) for (let i = 0; i < hidden; i++) mean[i]! += x[s * hidden + i]! / fit.samples;
  const cov = new Float64Array(hidden * hidden);
  const row = new Float64Array(hidden);
  for (let s = 0; s < fit.samples; s++) {
    for (let i = 0; i < hidden; i++) row[i] = x[s * hidden + i]! - mean[i]!;
    for (let i = 0; i < hidden; i++) for (let j = 0; j < hidden; j++) cov[i * hidden + j]! += row[i]! * row[j]!;
  }
  const components = topEigenvectors(cov, hidden, fit.dim, prng(fit.seed + 1));
  return { mean: Float32Array.from(mean), components: Float32Array.from(components), dim: fit.dim };
}
