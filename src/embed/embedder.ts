import "./onnx-telemetry.ts"; // on the main thread, before the embedding worker loads onnxruntime
import { resolve } from "node:path";
import type { FactSignature } from "../domain/fact-signature.ts";
import type { Settings } from "../config.ts";
import type { EmbedReply, FromWorker, ReadyReply, ToWorker } from "./protocol.ts";
import type { Embedder } from "./embedder-port.ts";
import { FactThread } from "./fact-thread.ts";
import { startOpenAIEmbedder } from "./openai-embedder.ts";
import { openaiModelName } from "./openai-spec.ts";
import { embedBatchTexts } from "../metrics/registry.ts";

/** The interface, from here too: the service starts an embedder and names its type from this module. */
export type { Embedder };

export interface EmbedderStats {
  /** Batches sent to the worker. */
  batches: number;
  /** embed() calls with at least one text. */
  requests: number;
  texts: number;
  /** startEmbedder() wall time without any build: worker spawn, imports, load, warm-up. */
  startMs: number;
  /** The part of startMs spent inside the worker loading and warming the pipeline. */
  loadMs: number;
  /** Time spent building a built-in model during this start (0 if cached). */
  buildMs: number;
  /** Texts waiting for the worker now. */
  queuedTexts: number;
  /** Texts of the batch the worker is embedding now. */
  inFlightTexts: number;
}

/** Largest batch sent to the worker; larger requests are split across batches. */
export const MAX_BATCH_TEXTS = 64;

interface Job {
  texts: string[];
  vectors: Float32Array[];
  tokens: number[];
  /** Next text not yet sent. */
  next: number;
  remaining: number;
  failed: boolean;
  resolve: (r: { vectors: Float32Array[]; tokens: number[] }) => void;
  reject: (e: Error) => void;
}

/** Texts [start, end) of one job inside a batch. */
interface Slice {
  job: Job;
  start: number;
  end: number;
}

/** The job and text index of a batch's row (batches hold at most MAX_BATCH_TEXTS rows, in few slices). */
function textAt(slices: Slice[], row: number): { job: Job; i: number } {
  for (const { job, start, end } of slices) {
    if (row < end - start) return { job, i: start + row };
    row -= end - start;
  }
  throw new Error(`embedding worker answered row ${row} past its batch`);
}

/**
 * Client side of the embedding worker. Calls arriving while a batch is in
 * flight are queued and sent together when it returns (at most MAX_BATCH_TEXTS
 * texts), so many concurrent small requests cost few worker round trips.
 */
export class WorkerEmbedder implements Embedder {
  private queue: Job[] = [];
  private inFlight: Slice[] | null = null;
  private inFlightId = 0;
  private nextId = 1;
  private closed = false;
  private dead: Error | null = null;
  private counters = { batches: 0, requests: 0, texts: 0 };
  private drained: (() => void) | null = null;
  private readonly facts = new FactThread();

  constructor(
    private readonly worker: Worker,
    private readonly ready: ReadyReply,
    private readonly startMs: number,
  ) {
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.onMessage(event.data);
    worker.onerror = (event) => this.fail(new Error(`embedding worker crashed: ${event.message}`));
    worker.addEventListener("close", () => this.fail(new Error("embedding worker exited")));
    worker.unref(); // idle: don't keep the process alive; ref'd again while a batch is out
  }

  get modelId(): string {
    return this.ready.modelId;
  }

  get dimension(): number {
    return this.ready.dimension;
  }

  stats(): EmbedderStats {
    const queuedTexts = this.queue.reduce((n, job) => n + job.texts.length - job.next, 0);
    const inFlightTexts = this.inFlight?.reduce((n, slice) => n + slice.end - slice.start, 0) ?? 0;
    return { ...this.counters, startMs: this.startMs, loadMs: this.ready.loadMs, buildMs: this.ready.buildMs, queuedTexts, inFlightTexts };
  }

  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number[] }> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.closed) return Promise.reject(new Error("embedder is closed"));
    if (texts.length === 0) return Promise.resolve({ vectors: [], tokens: [] });
    // Checked here: a bad text failing inside the worker would fail every caller sharing its batch.
    if (!texts.every((t) => typeof t === "string")) return Promise.reject(new TypeError("embed() takes an array of strings"));
    this.counters.requests++;
    this.counters.texts += texts.length;
    return new Promise((resolve, reject) => {
      const n = texts.length;
      this.queue.push({ texts, vectors: new Array(n), tokens: new Array(n), next: 0, remaining: n, failed: false, resolve, reject });
      this.pump();
    });
  }

  factSignatures(texts: string[]): Promise<FactSignature[]> {
    if (this.closed) return Promise.reject(new Error("embedder is closed"));
    return this.facts.factSignatures(texts);
  }

  /** Sends the next batch if the worker is idle. */
  private pump(): void {
    if (this.inFlight || this.dead) return;
    const slices = this.takeBatch();
    if (slices.length === 0) {
      this.settle();
      return;
    }
    this.inFlight = slices;
    this.inFlightId = this.nextId++;
    this.counters.batches++;
    const texts = slices.flatMap((s) => s.job.texts.slice(s.start, s.end));
    embedBatchTexts.observe(texts.length);
    this.worker.ref();
    this.post({ type: "embed", id: this.inFlightId, texts });
  }

  /** Up to MAX_BATCH_TEXTS texts from the head of the queue, splitting a job if needed. */
  private takeBatch(): Slice[] {
    const slices: Slice[] = [];
    let room = MAX_BATCH_TEXTS;
    while (room > 0 && this.queue.length > 0) {
      const job = this.queue[0]!;
      const end = Math.min(job.texts.length, job.next + room);
      slices.push({ job, start: job.next, end });
      room -= end - job.next;
      job.next = end;
      if (end === job.texts.length) this.queue.shift();
    }
    return slices;
  }

  /** Nothing sent is unanswered: the worker no longer keeps the process alive, and close may end it. */
  private settle(): void {
    if (this.inFlight || this.queue.length > 0) return;
    this.worker.unref();
    this.drained?.();
  }

  /** A batch is answered in parts (worker.ts): each part's jobs that are complete resolve at once. */
  private onMessage(msg: FromWorker): void {
    const slices = this.inFlight;
    if (!slices || msg.type === "ready" || msg.id !== this.inFlightId) return;
    if (msg.type === "embedded") this.deliver(slices, msg);
    else this.rejectSlices(slices, new Error(`embedding failed: ${msg.message}`));
    if (msg.type === "embedded" && !msg.done) return;
    this.inFlight = null;
    this.pump();
  }

  /** Copies each row out so a caller's vector never pins (or exposes) the whole batch buffer. */
  private deliver(slices: Slice[], reply: EmbedReply): void {
    const dim = this.dimension;
    reply.rows.forEach((row, k) => {
      const { job, i } = textAt(slices, row);
      job.vectors[i] = reply.vectors.slice(k * dim, (k + 1) * dim);
      job.tokens[i] = reply.tokens[k]!;
      if (--job.remaining === 0 && !job.failed) job.resolve({ vectors: job.vectors, tokens: job.tokens });
    });
  }

  private rejectSlices(slices: Slice[], err: Error): void {
    for (const { job } of slices) this.rejectJob(job, err);
  }

  private rejectJob(job: Job, err: Error): void {
    if (job.failed) return;
    job.failed = true;
    this.queue = this.queue.filter((j) => j !== job); // its unsent texts are pointless now
    job.reject(err);
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    if (this.inFlight) this.rejectSlices(this.inFlight, err);
    for (const job of [...this.queue]) this.rejectJob(job, err);
    this.inFlight = null;
    this.worker.terminate();
    this.drained?.();
  }

  private post(msg: ToWorker): void {
    this.worker.postMessage(msg);
  }

  /** Stops accepting calls, lets queued ones finish, then ends the worker. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.inFlight || this.queue.length > 0) {
      await new Promise<void>((done) => (this.drained = done));
    }
    this.dead ??= new Error("embedder is closed");
    this.worker.terminate();
    await this.facts.close();
  }
}

export interface EmbedderOptions {
  /** EMBEDDING_MODEL */
  model: string;
  /** MODEL_CACHE_DIR, where local models are built */
  cacheDir: string;
  /** EMBEDDING_BASE_URL and EMBEDDING_API_KEY, for an `openai:<model>` */
  baseUrl?: string;
  apiKey?: string;
}

/** The embedder the service's settings ask for. */
export function embedderOptions(settings: Pick<Settings, "EMBEDDING_MODEL" | "MODEL_CACHE_DIR" | "EMBEDDING_BASE_URL" | "EMBEDDING_API_KEY">): EmbedderOptions {
  const { EMBEDDING_MODEL: model, MODEL_CACHE_DIR: cacheDir, EMBEDDING_BASE_URL: baseUrl, EMBEDDING_API_KEY: apiKey } = settings;
  return { model, cacheDir, ...(baseUrl && { baseUrl }), ...(apiKey && { apiKey }) };
}

/**
 * The one place a model string picks its embedder: `openai:<model>` an OpenAI-compatible server
 * (openai-embedder.ts), anything else a local model in the worker. Rejects with a message naming
 * the model and what to check.
 */
export async function startEmbedder(opts: EmbedderOptions): Promise<Embedder> {
  if (openaiModelName(opts.model) === undefined) return startWorkerEmbedder(opts);
  if (!opts.baseUrl) throw new Error(`EMBEDDING_MODEL=${opts.model} needs EMBEDDING_BASE_URL (the OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1)`);
  return startOpenAIEmbedder({ model: opts.model, baseUrl: opts.baseUrl, ...(opts.apiKey && { apiKey: opts.apiKey }) });
}

/** Starts the worker, builds a built-in model on first use, loads and warms the pipeline. */
async function startWorkerEmbedder(opts: { model: string; cacheDir: string }): Promise<Embedder> {
  const started = performance.now();
  const worker = new Worker(new URL("./worker.ts", import.meta.url));
  try {
    const ready = await waitReady(worker, { type: "init", model: opts.model, cacheDir: resolve(opts.cacheDir) });
    return new WorkerEmbedder(worker, ready, performance.now() - started - ready.buildMs);
  } catch (err) {
    worker.terminate();
    throw err;
  }
}

function waitReady(worker: Worker, init: ToWorker): Promise<ReadyReply> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const msg = event.data;
      if (msg.type === "ready") resolve(msg);
      else if (msg.type === "error") reject(new Error(msg.message));
    };
    worker.onerror = (event) => reject(new Error(`embedding worker crashed during start: ${event.message}`));
    worker.postMessage(init);
  });
}
