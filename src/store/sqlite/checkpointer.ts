import { log } from "../../log";

/** How often the checkpointer copies committed WAL frames into the database file. */
const CHECKPOINT_INTERVAL_MS = 500;
/**
 * The writing connection's own auto-checkpoint threshold (pages of WAL), kept as a safety net: it
 * only triggers when the checkpointer falls this far behind (or is gone). SQLite's default, 1,000
 * pages, made a commit every ~4 MB of WAL copy the frames itself, on the service's only thread:
 * measured at 100k memories, a 400-bump access-count flush 9.2 ms p50 / 48.8 ms max with it,
 * 6.1 / 36.7 without, plus the checkpoint's own ~230 ms per 12k bumps.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 16_384;

export type CheckpointerMessage = { type: "add" | "remove"; path: string } | { type: "interval"; ms: number };

/**
 * One background thread per process that checkpoints the WAL of every open database file, so
 * checkpoint I/O (copying frames into the database, ~20 ms per 1,000 random pages) never stalls
 * the event loop. Several stores on one file share its single connection (reference counted).
 */
class Checkpointer {
  private worker: Worker | null = null;
  private readonly refs = new Map<string, number>();
  private readonly reported = new Set<string>();

  add(path: string): void {
    const n = this.refs.get(path) ?? 0;
    this.refs.set(path, n + 1);
    if (n === 0) this.thread().postMessage({ type: "add", path } satisfies CheckpointerMessage);
  }

  remove(path: string): void {
    const n = this.refs.get(path) ?? 0;
    if (n <= 1) {
      this.refs.delete(path);
      this.worker?.postMessage({ type: "remove", path } satisfies CheckpointerMessage);
    } else this.refs.set(path, n - 1);
    if (this.refs.size === 0) this.stop();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./checkpoint-worker.ts", import.meta.url));
    worker.unref(); // never what keeps the process alive
    worker.onmessage = (event: MessageEvent<{ type: "error"; path: string; message: string }>) => {
      const { path, message } = event.data;
      if (this.reported.has(path)) return;
      this.reported.add(path);
      log.warn(`[engram] sqlite checkpoint of ${path} failed (${message}); the writer checkpoints itself past ${WRITER_AUTOCHECKPOINT_PAGES} pages`);
    };
    worker.postMessage({ type: "interval", ms: CHECKPOINT_INTERVAL_MS } satisfies CheckpointerMessage);
    return (this.worker = worker);
  }

  private stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}

export const checkpointer = new Checkpointer();
