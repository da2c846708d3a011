import type { FactSignature } from "../domain/fact-signature.ts";
import type { FactReader } from "../domain/ports.ts";

/** A request to the fact worker (fact-worker.ts): the signatures of these texts, in order. */
export interface FactsRequest {
  id: number;
  texts: string[];
}

export type FactsAnswer = { id: number; signatures: string[][] } | { id: number; error: string };

export interface FactThreadOptions {
  /**
   * Texts one worker reads before a fresh one takes over. wink-nlp adds every word its lexicon
   * lacks (ids, numbers, names) to its instance for good, and the worker's heap keeps growing with
   * it: a worker that read 50,000 texts with an id and a number each held 132–145 MiB, one that had
   * only loaded the model ~50 MiB (scripts/bench/english-memory.ts at 815dec2). A fresh worker
   * costs ~0.5 s of the other core's time, started ahead and warmed before it takes over.
   */
  textsPerWorker?: number;
  /**
   * The worker ends after this long without requests, and the next request starts a fresh one: an
   * idle service gives back the English model (a loaded worker holds ~28 MiB, more with what it
   * read), and that request waits for the model to load (0.2–0.35 s on a loaded 2-core machine).
   * Renewed with a warm successor instead, the idle service held the successor's 28 MiB for good.
   */
  idleEndMs?: number;
}

const TEXTS_PER_WORKER = 20_000;
const IDLE_END_MS = 30_000;
/** What a new worker reads first, so that its English model is loaded before it takes requests. */
const WARM_UP_TEXT = "The user prefers dark roast coffee.";

interface Reader {
  worker: Worker;
  /** texts sent to it, the warm-up excluded */
  read: number;
  /** requests sent and not answered */
  outstanding: number;
}

interface Waiting {
  reader: Reader;
  resolve: (signatures: FactSignature[]) => void;
  reject: (err: Error) => void;
}

/**
 * FactReader on a worker thread of its own, renewed as it grows: fact signatures never block the
 * main thread or the embeddings, and what the English model learns from the texts it reads is
 * given back when its worker ends (ending a worker returns its heap; a replaced wink instance in a
 * long-lived thread was not returned: a soak grew 200–700 MiB higher that way).
 */
export class FactThread implements FactReader {
  private current: Reader | null = null;
  /** the successor, warming up */
  private next: Reader | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly textsPerWorker: number;
  private readonly idleEndMs: number;
  /** workers started so far */
  started = 0;
  /** times a fresh worker took over */
  handovers = 0;

  constructor(options: FactThreadOptions = {}) {
    this.textsPerWorker = options.textsPerWorker ?? TEXTS_PER_WORKER;
    this.idleEndMs = options.idleEndMs ?? IDLE_END_MS;
  }

  factSignatures(texts: string[]): Promise<FactSignature[]> {
    if (this.closed) return Promise.reject(new Error("fact thread is closed"));
    if (texts.length === 0) return Promise.resolve([]);
    // the first request loads the model in a new worker: a process that never dedups never pays
    this.current ??= this.spawn();
    const reader = this.current;
    reader.read += texts.length;
    const answer = this.send(reader, texts);
    if (reader.read >= this.textsPerWorker) this.renew();
    return answer;
  }

  /** Ends the workers; requests not answered yet are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const reader of [this.current, this.next]) if (reader) this.end(reader, new Error("fact thread is closed"));
    this.current = this.next = null;
  }

  private spawn(): Reader {
    // the thread's name (what /proc and the benches' CPU by thread show)
    const worker = new Worker(new URL("./fact-worker.ts", import.meta.url), { name: "facts" });
    const reader: Reader = { worker, read: 0, outstanding: 0 };
    this.started++;
    worker.onmessage = (event: MessageEvent<FactsAnswer>) => this.onAnswer(event.data);
    worker.onerror = (event) => this.end(reader, new Error(`fact worker crashed: ${event.message}`));
    worker.addEventListener("close", () => this.end(reader, new Error("fact worker exited")));
    worker.unref();
    return reader;
  }

  private send(reader: Reader, texts: string[]): Promise<FactSignature[]> {
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { reader, resolve, reject });
      reader.outstanding++;
      reader.worker.ref();
      reader.worker.postMessage({ id, texts } satisfies FactsRequest);
    });
  }

  /** Starts the successor; it takes over once its model is loaded. */
  private renew(): void {
    if (this.next || this.closed) return;
    const next = (this.next = this.spawn());
    this.send(next, [WARM_UP_TEXT]).then(
      () => {
        if (this.next !== next) return;
        const old = this.current;
        this.current = next;
        this.next = null;
        this.handovers++;
        if (old && old.outstanding === 0) old.worker.terminate(); // else once its last answer is in
      },
      () => {
        if (this.next === next) this.next = null;
      },
    );
  }

  private onAnswer(answer: FactsAnswer): void {
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    this.waiting.delete(answer.id);
    const { reader } = waiting;
    if ("error" in answer) waiting.reject(new Error(`fact signatures failed: ${answer.error}`));
    else waiting.resolve(answer.signatures);
    if (--reader.outstanding > 0) return;
    // a worker that is neither current nor the successor was handed over: it gets no more requests
    if (reader !== this.current && reader !== this.next) reader.worker.terminate();
    else reader.worker.unref();
    if (this.waiting.size === 0) this.armIdleEnd();
  }

  /** Ends the workers once no request has come for idleEndMs (the next request starts another). */
  private armIdleEnd(): void {
    if (this.closed || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.waiting.size > 0) return;
      const readers = [this.current, this.next];
      this.current = this.next = null;
      for (const reader of readers) reader?.worker.terminate();
    }, this.idleEndMs);
    this.idleTimer.unref();
  }

  /** A worker gone (crashed, exited or closed): its requests fail, and the next request starts another. */
  private end(reader: Reader, err: Error): void {
    for (const [id, waiting] of this.waiting) {
      if (waiting.reader !== reader) continue;
      this.waiting.delete(id);
      waiting.reject(err);
    }
    reader.outstanding = 0;
    if (this.current === reader) this.current = null;
    if (this.next === reader) this.next = null;
    reader.worker.terminate();
  }
}
