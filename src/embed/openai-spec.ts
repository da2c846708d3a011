/**
 * `EMBEDDING_MODEL=openai:<model>` selects an OpenAI-compatible embedding server
 * (EMBEDDING_BASE_URL) instead of a local model. Kept apart from model-spec.ts, which
 * resolves local models in the worker, so that the configuration check loads nothing heavy.
 */
export const OPENAI_PREFIX = "openai:";

/** The server-side model name of an `openai:<model>` spec ("" if it names none), else undefined. */
export function openaiModelName(spec: string): string | undefined {
  return spec.startsWith(OPENAI_PREFIX) ? spec.slice(OPENAI_PREFIX.length).trim() : undefined;
}
