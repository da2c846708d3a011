import "./onnx-telemetry.ts"; // on the main thread, before the embedding worker loads onnxruntime
import "./onnx-malloc.ts"; // likewise: the process's allocator setting for onnxruntime's buffers
import { resolve } from "node:path";
import { availableParallelism } from "node:os";
import type { FactSignature } from "../domain/fact-signature.ts";
import type { Settings } from "../config.ts";
import type { EmbedReply, FromWorker, InitRequest, ReadyReply, ToWorker } from "./protocol.ts";
import type { Embedder } from "./embedder-port.ts";
import { FactThread } from "./fact-thread.ts";
import { startOpenAIEmbedder } from "./openai-embedder.ts";
import { openaiModelName } from "./openai-spec.ts";
import { embedBatchTexts } from "../metrics/registry.ts";
import { log } from "../log.ts";
import { spareCore } from "./spare-core.ts";

/** The interface, from here too: the service starts an embedder and names its type from this module. */
export type { Embedder };

export interface EmbedderStats {
  /** Batches sent to the workers. */
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
  /** Texts waiting for a worker now. */
  queuedTexts: number;
  /** Texts of the batches the workers are embedding now. */
  inFlightTexts: number;
  /** Worker threads running the model now. */
  workers: number;
}

/** Largest batch sent to a worker; larger requests are split across batches. */
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

/**
 * A worker past the first is ended after this long without a batch: the memory it holds comes back
 * once the load that needed it has passed, and the next burst starts it again (~1 s of a core).
 */
export const EXTRA_WORKER_IDLE_MS = 30_000;

/** One embedding worker and the batch it is embedding. */
interface Lane {
  worker: Worker;
  inFlight: Slice[] | null;
  /** the id of the batch in flight */
  batchId: number;
  /** an extra worker's end, while it is idle */
  idleTimer: ReturnType<typeof setTimeout> | null;
  /** ended for being idle: its exit is no failure */
  retired: boolean;
}

/** More workers on the same model, each started when every running one is busy and texts wait (see WorkerEmbedder). */
export interface MoreLanes {
  /** workers at most, the first included */
  lanes: number;
  /** starts a worker on the model (ready to embed) */
  start: () => Promise<Worker>;
  /** whether a core is spare for them now (spare-core.ts); always, unless given */
  spare?: () => boolean;
  /** EXTRA_WORKER_IDLE_MS unless given */
  idleMs?: number;
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
 * Client side of the embedding workers. Calls arriving while every worker is busy are queued and
 * sent together to the next worker free (at most MAX_BATCH_TEXTS texts), so many concurrent small
 * requests cost few worker round trips; texts waiting when several workers are free are shared
 * among them.
 *
 * One worker runs the model on one core. With `more`, another is started when texts wait while
 * every running worker is busy (a batch store, concurrent recalls) and a core is spare (no other
 * process keeps it busy: spare-core.ts): the model then also runs on the core the main thread
 * leaves idle. It is sent batches only while a core is spare, and ends after EXTRA_WORKER_IDLE_MS
 * without one: each worker holds ~70 MB (its own JavaScript heap, tokenizer and ONNX session).
 */
export class WorkerEmbedder implements Embedder {
  private queue: Job[] = [];
  private readonly lanes: Lane[] = [];
  /** another worker being started (grow), until it has joined the lanes */
  private starting: Promise<void> | null = null;
  private nextId = 1;
  private closed = false;
  private dead: Error | null = null;
  private counters = { batches: 0, requests: 0, texts: 0 };
  private drained: (() => void) | null = null;
  private readonly facts = new FactThread();

  constructor(
    worker: Worker,
    private readonly ready: ReadyReply,
    private readonly startMs: number,
    private more?: MoreLanes,
  ) {
    this.addLane(worker);
  }

  get modelId(): string {
    return this.ready.modelId;
  }

  get dimension(): number {
    return this.ready.dimension;
  }

  /** Workers running the model now. */
  get workers(): number {
    return this.lanes.length;
  }

  stats(): EmbedderStats {
    const inFlightTexts = this.lanes.reduce((n, lane) => n + (lane.inFlight?.reduce((m, slice) => m + slice.end - slice.start, 0) ?? 0), 0);
    return { ...this.counters, startMs: this.startMs, loadMs: this.ready.loadMs, buildMs: this.ready.buildMs, queuedTexts: this.queuedTexts(), inFlightTexts, workers: this.lanes.length };
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

  private addLane(worker: Worker): void {
    const lane: Lane = { worker, inFlight: null, batchId: 0, idleTimer: null, retired: false };
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.onMessage(lane, event.data);
    worker.onerror = (event) => this.fail(new Error(`embedding worker crashed: ${event.message}`));
    worker.addEventListener("close", () => lane.retired || this.fail(new Error("embedding worker exited")));
    worker.unref(); // idle: don't keep the process alive; ref'd again while a batch is out
    this.lanes.push(lane);
  }

  private queuedTexts(): number {
    return this.queue.reduce((n, job) => n + job.texts.length - job.next, 0);
  }

  /**
   * Sends the waiting texts to the idle workers (the extra ones while a core is spare), shared evenly;
   * starts another worker if texts still wait and a core is spare.
   */
  private pump(): void {
    if (this.dead) return;
    const spare = !this.more?.spare || this.more.spare();
    const idle = this.lanes.filter((lane, i) => !lane.inFlight && (i === 0 || spare));
    for (let i = 0; i < idle.length && this.queue.length > 0; i++) {
      this.send(idle[i]!, this.takeBatch(Math.min(MAX_BATCH_TEXTS, Math.ceil(this.queuedTexts() / (idle.length - i)))));
    }
    if (this.queue.length > 0 && spare) this.grow();
    this.settle();
  }

  private send(lane: Lane, slices: Slice[]): void {
    if (lane.idleTimer) clearTimeout(lane.idleTimer);
    lane.idleTimer = null;
    lane.inFlight = slices;
    lane.batchId = this.nextId++;
    this.counters.batches++;
    const texts = slices.flatMap((s) => s.job.texts.slice(s.start, s.end));
    embedBatchTexts.observe(texts.length);
    lane.worker.ref();
    const message: ToWorker = { type: "embed", id: lane.batchId, texts };
    lane.worker.postMessage(message);
  }

  /** Up to `room` texts from the head of the queue, splitting a job if needed. */
  private takeBatch(room: number): Slice[] {
    const slices: Slice[] = [];
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

  /** Starts another worker (at most `more.lanes`); it takes waiting texts once ready. A failed start is logged and not retried. */
  private grow(): void {
    const more = this.more;
    if (!more || this.starting || this.closed || this.lanes.length >= more.lanes) return;
    this.starting = more.start().then(
      (worker) => {
        this.starting = null;
        if (this.closed || this.dead) return worker.terminate();
        this.addLane(worker);
        this.pump();
      },
      (error: unknown) => {
        this.starting = null;
        this.more = undefined;
        log.warn(`[engram] a second embedding worker could not start; embedding goes on with ${this.lanes.length}: ${error instanceof Error ? error.message : error}`);
      },
    );
  }

  /** Idle workers no longer keep the process alive, and extra ones end if they stay idle; once nothing sent is unanswered, close may end them. */
  private settle(): void {
    for (const lane of this.lanes) {
      if (lane.inFlight) continue;
      lane.worker.unref();
      if (lane !== this.lanes[0] && !lane.idleTimer) {
        lane.idleTimer = setTimeout(() => this.retire(lane), this.more?.idleMs ?? EXTRA_WORKER_IDLE_MS);
        lane.idleTimer.unref?.();
      }
    }
    if (this.queue.length > 0 || this.lanes.some((lane) => lane.inFlight)) return;
    this.drained?.();
  }

  /** Ends an extra worker that stayed idle. */
  private retire(lane: Lane): void {
    lane.idleTimer = null;
    if (lane.inFlight || this.dead) return;
    lane.retired = true;
    this.lanes.splice(this.lanes.indexOf(lane), 1);
    lane.worker.terminate();
  }

  /** A batch is answered in parts (worker.ts): each part's jobs that are complete resolve at once. */
  private onMessage(lane: Lane, msg: FromWorker): void {
    const slices = lane.inFlight;
    if (!slices || msg.type === "ready" || msg.id !== lane.batchId) return;
    if (msg.type === "embedded") this.deliver(slices, msg);
    else this.rejectSlices(slices, new Error(`embedding failed: ${msg.message}`));
    if (msg.type === "embedded" && !msg.done) return;
    lane.inFlight = null;
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

  /** A worker that crashed or exited (not ended for idleness) ends the embedder: every call waiting fails with the reason. */
  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    for (const lane of this.lanes) {
      if (lane.inFlight) this.rejectSlices(lane.inFlight, err);
      lane.inFlight = null;
      if (lane.idleTimer) clearTimeout(lane.idleTimer);
    }
    for (const job of [...this.queue]) this.rejectJob(job, err);
    for (const lane of this.lanes) lane.worker.terminate();
    this.drained?.();
  }

  /** Stops accepting calls, lets queued ones finish, then ends the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.queue.length > 0 || this.lanes.some((lane) => lane.inFlight)) {
      await new Promise<void>((done) => (this.drained = done));
    }
    this.dead ??= new Error("embedder is closed");
    await this.starting; // a worker still starting ends itself once started (grow)
    for (const lane of this.lanes) {
      if (lane.idleTimer) clearTimeout(lane.idleTimer);
      lane.worker.terminate();
    }
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
  /** worker threads a local model may run on (default 1; see WorkerEmbedder) */
  threads?: number;
}

/**
 * The embedder the service's settings ask for. A local model may run on a second worker thread
 * when the machine has a core more than the service processes (WORKERS): with a process per core,
 * each process's main thread and worker already share the cores.
 */
export function embedderOptions(settings: Pick<Settings, "EMBEDDING_MODEL" | "MODEL_CACHE_DIR" | "EMBEDDING_BASE_URL" | "EMBEDDING_API_KEY" | "WORKERS">): EmbedderOptions {
  const { EMBEDDING_MODEL: model, MODEL_CACHE_DIR: cacheDir, EMBEDDING_BASE_URL: baseUrl, EMBEDDING_API_KEY: apiKey } = settings;
  const threads = availableParallelism() > settings.WORKERS ? 2 : 1;
  return { model, cacheDir, threads, ...(baseUrl && { baseUrl }), ...(apiKey && { apiKey }) };
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

/**
 * A local model: starts the first worker, building a built-in model on first use; further ones
 * start when needed and `spare` says a core is free for them (WorkerEmbedder).
 */
export async function startWorkerEmbedder(opts: { model: string; cacheDir: string; threads?: number }, spare: () => boolean = spareCore()): Promise<WorkerEmbedder> {
  const started = performance.now();
  const init: InitRequest = { type: "init", model: opts.model, cacheDir: resolve(opts.cacheDir) };
  const { worker, ready } = await startWorker(init);
  const threads = opts.threads ?? 1;
  const more = threads > 1 ? { lanes: threads, start: async () => (await startWorker(init)).worker, spare } : undefined;
  return new WorkerEmbedder(worker, ready, performance.now() - started - ready.buildMs, more);
}

/** A worker with the model loaded and its pipeline warm. */
async function startWorker(init: InitRequest): Promise<{ worker: Worker; ready: ReadyReply }> {
  // the thread's name (what /proc and the benches' CPU by thread show)
  const worker = new Worker(new URL("./worker.ts", import.meta.url), { name: "embedding" });
  try {
    return { worker, ready: await waitReady(worker, init) };
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
