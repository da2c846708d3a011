/**
 * The ids of the built-in embedding models, and the default, in a module with no imports: the
 * settings schema (src/config.ts) reads the default without loading any model code.
 */
export const USE_MODEL_ID = "use-lite-128d";
export const GLOVE_MODEL_ID = "glove-sif-100d";
/** Chosen by the rule in docs/retrieval.md (quality across the benchmarks within the latency bounds). */
export const DEFAULT_EMBEDDING_MODEL = USE_MODEL_ID;
