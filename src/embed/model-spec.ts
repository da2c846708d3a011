import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { builtInModelDir, isBuiltInModel } from "./built-in-models.ts";

/**
 * What an EMBEDDING_MODEL string means:
 * - a built-in id ("use-lite-128d", "glove-sif-100d"): a model built into the cache dir on demand;
 * - an absolute path, a ./ or ../ path, or any existing folder: a local model folder;
 * - anything else: a hub id handed to transformers.js (the only case allowed to
 *   use the network, and only where a hub is reachable).
 * An `openai:<model>` never gets here: embedder.ts's startEmbedder gives it to an
 * OpenAI-compatible server instead of the worker (openai-spec.ts).
 */
export type ModelSource =
  | { kind: "built-in"; id: string; dir: string }
  | { kind: "local"; dir: string }
  | { kind: "hub"; id: string };

export function resolveModelSpec(spec: string, cacheDir: string): ModelSource {
  if (isBuiltInModel(spec)) return { kind: "built-in", id: spec, dir: builtInModelDir(spec, cacheDir) };
  const looksLikePath = isAbsolute(spec) || spec.startsWith("./") || spec.startsWith("../") || spec === ".";
  if (looksLikePath || existsSync(spec)) return { kind: "local", dir: resolve(spec) };
  return { kind: "hub", id: spec };
}

/** The message of every load failure: what failed, why, and what an operator can fix. */
export function loadFailureMessage(spec: string, reason: string): string {
  return (
    `could not load embedding model "${spec}" (${reason.replace(/\.$/, "")}). ` +
    `For a built-in model run \`bun run build-model\` ` +
    `(or let the server build it on start); otherwise check EMBEDDING_MODEL: a local model folder must ` +
    `contain config.json, tokenizer.json and onnx/model.onnx, and a hub id needs network access.`
  );
}
