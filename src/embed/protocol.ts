/** Messages between the Embedder client (main thread) and src/embed/worker.ts. */

export interface InitRequest {
  type: "init";
  model: string;
  cacheDir: string;
}

export interface EmbedRequest {
  type: "embed";
  id: number;
  texts: string[];
}

export type ToWorker = InitRequest | EmbedRequest;

export interface ReadyReply {
  type: "ready";
  modelId: string;
  dimension: number;
  /** Milliseconds spent building a built-in model in this start (0 if it was cached). */
  buildMs: number;
  /** Milliseconds from init to a warm pipeline (import + load + warm-up call). */
  loadMs: number;
}

export interface EmbedReply {
  type: "embedded";
  id: number;
  /** texts.length × dimension floats, row-major; its buffer is transferred, not copied. */
  vectors: Float32Array<ArrayBuffer>;
  tokens: Int32Array<ArrayBuffer>;
}

export interface ErrorReply {
  type: "error";
  /** The failed embed request, or undefined when init failed. */
  id?: number;
  message: string;
}

export type FromWorker = ReadyReply | EmbedReply | ErrorReply;
