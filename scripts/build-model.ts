/**
 * Builds the local glove-sif-100d embedding model.
 *
 *   bun scripts/build-model.ts [--cache-dir DIR] [--force] [--vocab N] [--sif-a A] [--no-pc] [--name NAME]
 *
 * DIR defaults to $MODEL_CACHE_DIR or ./.cache/models (relative to the repo root).
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { buildGloveModel, ensureGloveModel } from "../src/embed/glove-model.ts";

const { values } = parseArgs({
  options: {
    "cache-dir": { type: "string" },
    force: { type: "boolean", default: false },
    vocab: { type: "string" },
    "sif-a": { type: "string" },
    "no-pc": { type: "boolean", default: false },
    name: { type: "string" },
  },
});

const cacheDir = values["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? resolve(import.meta.dir, "../.cache/models");
const opts = {
  cacheDir,
  vocabSize: values.vocab === undefined ? undefined : Number(values.vocab),
  sifA: values["sif-a"] === undefined ? undefined : Number(values["sif-a"]),
  removeCommonComponent: !values["no-pc"],
  name: values.name,
};

const result = values.force ? await buildGloveModel(opts) : await ensureGloveModel(opts);
if (!result.built) console.error(`[build-model] up to date: ${result.dir} (use --force to rebuild)`);
console.log(result.dir);
