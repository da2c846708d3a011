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

/**
 * Some of an embed request's texts, sent as soon as the model's run over them ends (a batch runs
 * in groups of similar length); the request is answered when a reply has `done`.
 */
export interface EmbedReply {
  type: "embedded";
  id: number;
  /** which of the request's texts these are (indices into its `texts`) */
  rows: Int32Array<ArrayBuffer>;
  /** rows.length × dimension floats, row-major; its buffer is transferred, not copied. */
  vectors: Float32Array<ArrayBuffer>;
  tokens: Int32Array<ArrayBuffer>;
  /** every text of the request has now been sent */
  done: boolean;
}

export interface ErrorReply {
  type: "error";
  /** The failed embed request, or undefined when init failed. */
  id?: number;
  message: string;
}

export type FromWorker = ReadyReply | EmbedReply | ErrorReply;
