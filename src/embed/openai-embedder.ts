import type { FactSignature } from "../domain/fact-signature.ts";
import { EmbeddingUnavailable } from "../domain/ports.ts";
import { estimateTokens } from "../domain/text.ts";
import type { Embedder } from "./embedder-port.ts";
import { OpenAIClient, type OpenAIClientOptions } from "./openai-client.ts";
import { openaiModelName } from "./openai-spec.ts";
import { FactThread } from "./fact-thread.ts";

/** Texts per request: larger embed() calls are split (OpenAI accepts up to 2,048; local servers want less). */
export const OPENAI_BATCH_TEXTS = 64;
/** Requests in flight at once: a burst of calls queues here instead of flooding the server into 429s. */
const MAX_IN_FLIGHT = 4;
/** Embedded at start: its answer gives the dimension, and a wrong URL, key or model stops the start. */
const PROBE_TEXT = "warm up the embedding pipeline";

export type OpenAIEmbedderOptions = Omit<OpenAIClientOptions, "model"> & {
  /** The full EMBEDDING_MODEL, "openai:<model>": the id the store is bound to. */
  model: string;
};

/**
 * An Embedder backed by an OpenAI-compatible server: no worker thread, since the work is the
 * server's. Vectors come back L2-normalised like the local models' (the stores rank by cosine on
 * unit vectors); a blank text gets the zero vector without a request (servers reject empty input).
 */
export class OpenAIEmbedder implements Embedder {
  readonly modelId: string;
  private dim = 0;
  private readonly client: OpenAIClient;
  private readonly slots = new Slots(MAX_IN_FLIGHT);
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;
  private readonly facts = new FactThread();

  constructor(opts: OpenAIEmbedderOptions) {
    this.modelId = opts.model;
    this.client = new OpenAIClient({ ...opts, model: openaiModelName(opts.model) ?? opts.model });
  }

  get dimension(): number {
    return this.dim;
  }

  /** Reads the dimension from the server's first answer. */
  async probe(): Promise<void> {
    const { vectors } = await this.client.embed([PROBE_TEXT]);
    this.dim = vectors[0]!.length;
  }

  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }> {
    if (this.closed) return Promise.reject(new Error("embedder is closed"));
    if (!texts.every((t) => typeof t === "string")) return Promise.reject(new TypeError("embed() takes an array of strings"));
    const work = this.embedAll(texts);
    this.pending.add(work);
    const forget = () => this.pending.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async embedAll(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }> {
    const vectors: Float32Array[] = texts.map(() => new Float32Array(this.dim));
    const tokens = texts.map(() => 0);
    const sent = texts.flatMap((text, i) => (text.trim() === "" ? [] : [i]));
    const chunks: number[][] = [];
    for (let at = 0; at < sent.length; at += OPENAI_BATCH_TEXTS) chunks.push(sent.slice(at, at + OPENAI_BATCH_TEXTS));
    await Promise.all(
      chunks.map(async (chunk) => {
        const input = chunk.map((i) => texts[i]!);
        const batch = await this.slots.run(() => this.client.embed(input));
        const counts = apportion(batch.tokens, input);
        chunk.forEach((i, k) => {
          vectors[i] = this.unit(batch.vectors[k]!);
          tokens[i] = counts[k]!;
        });
      }),
    );
    return { vectors, tokens };
  }

  /** The vector scaled to length 1 (the zero vector stays zero); its dimension must be the probe's. */
  private unit(values: number[]): Float32Array {
    if (values.length !== this.dim) {
      throw new EmbeddingUnavailable(`${this.client.url} answered ${values.length}-d embeddings for ${this.modelId}, ${this.dim}-d at start: restart the service after changing the server's model`);
    }
    let norm = 0;
    for (const x of values) norm += x * x;
    const vector = new Float32Array(values.length);
    if (norm === 0) return vector;
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < values.length; i++) vector[i] = values[i]! * inv;
    return vector;
  }

  factSignatures(texts: string[]): Promise<FactSignature[]> {
    if (this.closed) return Promise.reject(new Error("embedder is closed"));
    return this.facts.factSignatures(texts);
  }

  /** Stops accepting calls and lets those under way finish. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.pending]);
    await this.facts.close();
  }
}

/** Starts an OpenAIEmbedder once the server has answered the probe; rejects with what to check. */
export async function startOpenAIEmbedder(opts: OpenAIEmbedderOptions): Promise<OpenAIEmbedder> {
  const embedder = new OpenAIEmbedder(opts);
  try {
    await embedder.probe();
  } catch (err) {
    throw new Error(`could not start embedding model "${opts.model}": ${(err as Error).message}`);
  }
  return embedder;
}

/**
 * Per-text token counts for a batch: the server counts the batch (usage), not each text, so its
 * count is split over the texts in proportion to the estimate context budgets use (~4 characters a
 * token), largest remainders first, so a call's total stays the server's. Without a count, the
 * estimate itself.
 */
export function apportion(total: number | undefined, texts: string[]): number[] {
  const estimates = texts.map(estimateTokens);
  const sum = estimates.reduce((a, b) => a + b, 0);
  if (total === undefined || !(total >= 0) || sum === 0) return estimates;
  const shares = estimates.map((e) => (Math.round(total) * e) / sum);
  const counts = shares.map(Math.floor);
  let left = Math.round(total) - counts.reduce((a, b) => a + b, 0);
  const byRemainder = shares.map((s, i) => [s - Math.floor(s), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left-- <= 0) break;
    counts[i]!++;
  }
  return counts;
}

/** At most `size` tasks at once; the others wait in arrival order. */
class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.busy >= this.size) await new Promise<void>((go) => this.waiting.push(go));
    else this.busy++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy--;
    }
  }
}
