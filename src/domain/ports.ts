/** What the domain needs from an embedding model (src/embed provides it). */
export interface TextEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }>;
}

/** Where the domain reports a degraded path it recovered from (src/log.ts's warn, filtered by LOG_LEVEL). */
export type WarnLog = (message: string, detail?: Record<string, unknown>) => void;

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;
