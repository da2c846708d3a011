import { log } from "../../log";
import type { FilterColumns, FilterIds } from "./slot-filter";
import type { SlotRange } from "./top-k";

/**
 * Where, in a wallet's shared kernel memory (quantized.ts), the scan thread reads and
 * writes. Offsets are bytes; `generation` is the layout they belong to (see LAYOUT_WORDS).
 */
export interface ScanLayout {
  generation: number;
  query: number;
  scales: number;
  scores: number;
  rows: number;
}

/**
 * A wallet's columns the scan thread reads, in SharedArrayBuffers the main thread writes (wallet-cache.ts
 * UserVectors): 16-bit vectors, and the slot columns (slot-columns.ts) with their factors
 * (fixed-point.ts), rowids (ties) and what a filter reads (slot-filter.ts).
 */
export interface SharedColumns extends FilterColumns {
  vectors: Int16Array;
}

/** One search as the scan thread runs it: exactTopK over a range of the wallet's rows under the filter. */
export interface ScanRequest {
  stride: number;
  /** the int8 kernel's query (quantized), and the unit query for the exact rescoring */
  query: Int16Array;
  unit: Float64Array;
  unitScale: number;
  bound: number;
  range: SlotRange;
  k: number;
  want: number;
  /** null: every row passes (no filter, and no row expired or without a vector) */
  filter: FilterIds | null;
  columns: SharedColumns;
  at: ScanLayout;
}

/**
 * A search for the memory known by `key`: the memory itself the first time, and the columns each
 * time they are not the ones sent last (a wallet's arrays are new after they grow): cloning them
 * every time cost the thread ~8% more per search.
 */
export type ScanThreadMessage =
  | ({ type: "scan"; id: number; key: number; memory?: WebAssembly.Memory } & Omit<ScanRequest, "columns"> & { columns?: SharedColumns })
  | { type: "forget"; key: number };

/** A search's answer from the scan thread: the k nearest, nearest first (exactTopK's). */
export interface ScanResult {
  rowids: Float64Array;
  distances: Float64Array;
  secondPass: boolean;
}

export type ScanThreadReply = ({ id: number } & ScanResult) | { id: number; stale: true } | { id: number; error: string };

/**
 * Int32 words at the start of every kernel memory that the main thread and the scan thread share:
 * LOCK is held (compare-and-swap) by the scan thread while it scans and by the main thread while it
 * moves the memory's areas (a wallet's arrays growing); GENERATION counts those moves, so a scan
 * asked for under an older layout is refused instead of writing where rows now are.
 */
export const LAYOUT_WORDS = { lock: 0, generation: 1, bytes: 16 } as const;

/** The memory's layout generation: what a scan is asked under (only the main thread moves it). */
export function layoutGeneration(memory: WebAssembly.Memory): number {
  return Atomics.load(new Int32Array(memory.buffer, 0, LAYOUT_WORDS.bytes / 4), LAYOUT_WORDS.generation);
}
const FREE = 0;
const HELD_BY_MAIN = 2;
/** A scan holds the lock ~0.6 ms at 100k rows; past this the scan thread is taken to be stuck. */
const LOCK_PATIENCE_MS = 2_000;

/** Takes a memory's layout lock on the main thread (waits for a scan under way), runs `move`, releases it. */
export function withLayoutLock(memory: WebAssembly.Memory, move: () => void): void {
  const words = new Int32Array(memory.buffer, 0, LAYOUT_WORDS.bytes / 4);
  const started = performance.now();
  let held: number;
  while ((held = Atomics.compareExchange(words, LAYOUT_WORDS.lock, FREE, HELD_BY_MAIN)) !== FREE) {
    if (performance.now() - started > LOCK_PATIENCE_MS) {
      log.warn("[engram] vector scan thread held a wallet's memory past 2 s; moving its areas anyway (scans asked before are refused)");
      break;
    }
    Atomics.wait(words, LAYOUT_WORDS.lock, held, 50);
  }
  try {
    Atomics.add(words, LAYOUT_WORDS.generation, 1);
    move();
  } finally {
    // `move` may have grown the memory: the words are where they were, in a longer buffer
    const after = new Int32Array(memory.buffer, 0, LAYOUT_WORDS.bytes / 4);
    Atomics.store(after, LAYOUT_WORDS.lock, FREE);
    Atomics.notify(after, LAYOUT_WORDS.lock);
  }
}

/**
 * One background thread per process that runs large wallets' top-k vector searches
 * (scan-worker.ts: the int8 kernel scan, the first pass and the exact rescoring) on the memory and
 * columns the main thread keeps them in, so that the main thread serves other requests meanwhile:
 * with one process, the second core otherwise only embedded queries. Answers null when the thread
 * is unavailable (then the caller searches itself).
 */
class ScanThread {
  private worker: Worker | null = null;
  private broken = false;
  private nextId = 1;
  private nextKey = 1;
  private readonly keys = new WeakMap<WebAssembly.Memory, number>();
  /** the columns last sent with each memory */
  private readonly sent = new WeakMap<WebAssembly.Memory, SharedColumns>();
  private readonly waiting = new Map<number, (result: ScanResult | null) => void>();
  /** a wallet's memory is forgotten by the thread once the main thread has dropped it */
  private readonly forget = new FinalizationRegistry<number>((key) => this.worker?.postMessage({ type: "forget", key } satisfies ScanThreadMessage));

  /** Searches are waiting for the thread (it may be scanning now). */
  get busy(): boolean {
    return this.waiting.size > 0;
  }

  scan(memory: WebAssembly.Memory, request: ScanRequest): Promise<ScanResult | null> {
    const worker = this.thread();
    if (!worker) return Promise.resolve(null);
    let key = this.keys.get(memory);
    const first = key === undefined;
    if (key === undefined) {
      key = this.nextKey++;
      this.keys.set(memory, key);
      this.forget.register(memory, key);
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      // ref'd while answers are due: waiting on an unref'd worker, Bun's event loop spins (measured:
      // ~1 ms of main-thread CPU per 0.7 ms answer); unref'd when idle, so it never keeps the process alive
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, resolve);
      const { columns, ...search } = request;
      const known = !first && sameColumns(this.sent.get(memory), columns);
      if (!known) this.sent.set(memory, columns);
      const message: ScanThreadMessage = { type: "scan", id, key, ...search, ...(first ? { memory } : {}), ...(known ? {} : { columns }) };
      try {
        worker.postMessage(message);
      } catch (error) {
        // not sent (it could not be cloned): this search runs on the main thread
        this.answer({ id, error: error instanceof Error ? error.message : String(error) });
        if (first) this.keys.delete(memory); // the thread never got the memory: send it with the next search
        this.sent.delete(memory);
      }
    });
  }

  private thread(): Worker | null {
    if (this.worker || this.broken) return this.worker;
    try {
      const worker = new Worker(new URL("./scan-worker.ts", import.meta.url));
      worker.unref(); // idle (see scan)
      worker.onmessage = (event: MessageEvent<ScanThreadReply>) => this.answer(event.data);
      worker.onerror = (event) => this.fail(event.message);
      worker.addEventListener("close", () => this.fail("it exited"));
      return (this.worker = worker);
    } catch (error) {
      this.fail(error instanceof Error ? error.message : String(error));
      return null;
    }
  }

  private answer(reply: ScanThreadReply): void {
    const resolve = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if ("error" in reply) log.warn(`[engram] vector scan thread: ${reply.error}; that search scanned on the main thread`);
    resolve?.("rowids" in reply ? reply : null);
  }

  /** The thread is gone: searches scan on the main thread from now on, and those waiting do so now. */
  private fail(reason: string): void {
    if (!this.broken) log.warn(`[engram] vector scan thread stopped (${reason}); vector searches scan on the main thread`);
    this.broken = true;
    this.worker = null;
    for (const resolve of this.waiting.values()) resolve(null);
    this.waiting.clear();
  }
}

const sameColumns = (a: SharedColumns | undefined, b: SharedColumns) =>
  a !== undefined && (Object.keys(b) as (keyof SharedColumns)[]).every((name) => a[name] === b[name]);

export const scanThread = new ScanThread();
