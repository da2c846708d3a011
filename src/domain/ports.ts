import type { FactSignature } from "./fact-signature";

/** What the domain needs from an embedding model (src/embed provides it). */
export interface TextEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }>;
}

/**
 * Reads fact signatures (fact-signature.ts) off the main thread: src/embed/fact-thread.ts does, on a
 * worker of its own. A batch store tokenizes up to one text per item to compare facts, and the
 * English tokenizer was a fifth of the main thread's work per batch; the main thread serves every
 * request. It must answer exactly what factSignature would (the worker runs the same code).
 */
export interface FactReader {
  factSignatures(texts: string[]): Promise<FactSignature[]>;
}

/**
 * auto_relate's update step (auto-relate.ts): which of the wallet's nearest existing facts a new fact
 * replaces, where the offline rules found none. An LLM judges when one is configured
 * (ingest/llm-replacement.ts), else the embedding model, for a narrow kind of fact
 * (ingest/encoder-replacement.ts). Answers indexes into `existing`.
 */
export interface ReplacementJudge {
  replaced(fresh: string, existing: string[]): Promise<number[]>;
}

/** Where the domain reports a degraded path it recovered from (src/log.ts's warn, filtered by LOG_LEVEL). */
export type WarnLog = (message: string, detail?: Record<string, unknown>) => void;

/** Recall's stages, as its timer names them. */
export type RecallStage = "embed" | "keyword_search" | "vector_search" | "scoring" | "records";

/**
 * Times recall's stages (src/metrics records them as a histogram). `time` runs `work` and returns
 * what it returns; a promise is timed until it settles. Stages overlap: the keyword search runs
 * while the query is embedded.
 */
export interface StageTimer {
  time<T>(stage: RecallStage, work: () => T): T;
}

/** Runs every stage untimed. */
export const untimed: StageTimer = { time: (_stage, work) => work() };

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

/**
 * The embedding model could not answer: a remote provider down, overloaded or misconfigured. The
 * request fails with 503 (the client may retry later); the message, for the operator's log, says
 * what failed and what to check.
 */
export class EmbeddingUnavailable extends Error {
  override readonly name = "EmbeddingUnavailable";
}
