import type { FactSignature } from "../domain/fact-signature.ts";
import type { FactReader } from "../domain/ports.ts";

/**
 * What the service holds of an embedding model, whichever runs it: the worker thread over a local
 * model (embedder.ts) or an OpenAI-compatible server (openai-embedder.ts). startEmbedder
 * (embedder.ts) picks one from the settings.
 */
export interface Embedder extends FactReader {
  readonly modelId: string; // e.g. "glove-sif-100d"
  readonly dimension: number; // e.g. 100
  /**
   * Embeds texts; vectors are L2-normalized Float32Array (each with its own
   * buffer); tokens = non-padding tokens per text. A text with no known word
   * (e.g. "" or only unknown words) gets the all-zero vector, never NaN.
   */
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }>;
  /** Fact signatures read off the main thread (FactReader: fact-thread.ts). */
  factSignatures(texts: string[]): Promise<FactSignature[]>;
  close(): Promise<void>;
}
