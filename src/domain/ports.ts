/** What the domain needs from an embedding model (src/embed provides it). */
export interface TextEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }>;
}

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;
