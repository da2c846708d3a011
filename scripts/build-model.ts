/**
 * Builds a built-in embedding model into the model cache (the service does this on first start).
 *
 *   bun run build-model [--model use-lite-128d|glove-sif-100d] [--cache-dir DIR] [--force]
 *                       [--vocab N] [--sif-a A] [--no-pc] [--name NAME]     (the last four: GloVe only)
 *
 * --model defaults to the service's default model; DIR to $MODEL_CACHE_DIR or ./.cache/models.
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { buildGloveModel, ensureGloveModel, GLOVE_MODEL_ID } from "../src/embed/glove-model.ts";
import { buildUseModel, ensureUseModel, USE_MODEL_ID } from "../src/embed/use-model.ts";
import { BUILT_IN_MODEL_IDS, DEFAULT_EMBEDDING_MODEL } from "../src/embed/built-in-models.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: DEFAULT_EMBEDDING_MODEL },
    "cache-dir": { type: "string" },
    force: { type: "boolean", default: false },
    vocab: { type: "string" },
    "sif-a": { type: "string" },
    "no-pc": { type: "boolean", default: false },
    name: { type: "string" },
  },
});

const cacheDir = values["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? resolve(import.meta.dir, "../.cache/models");

async function build() {
  if (values.model === USE_MODEL_ID) return values.force ? buildUseModel({ cacheDir }) : ensureUseModel({ cacheDir });
  if (values.model !== GLOVE_MODEL_ID) {
    console.error(`[build-model] "${values.model}" is not a built-in model; use one of: ${BUILT_IN_MODEL_IDS.join(", ")}`);
    process.exit(2);
  }
  const opts = {
    cacheDir,
    vocabSize: values.vocab === undefined ? undefined : Number(values.vocab),
    sifA: values["sif-a"] === undefined ? undefined : Number(values["sif-a"]),
    removeCommonComponent: !values["no-pc"],
    name: values.name,
  };
  return values.force ? buildGloveModel(opts) : ensureGloveModel(opts);
}

const result = await build();
if (!result.built) console.error(`[build-model] up to date: ${result.dir} (use --force to rebuild)`);
console.log(result.dir);
