/**
 * Embedding worker thread. Protocol (see protocol.ts): one "init" (build a built-in
 * model if needed, load + warm the pipeline, reply "ready" or "error"), then
 * "embed" requests, answered in order (each in parts, see embed). Started by embedder.ts with
 * `new Worker(new URL("./worker.ts", import.meta.url))`.
 */
import { ensureBuiltInModel } from "./built-in-models.ts";
import { loadEngine, type Engine } from "./engine.ts";
import { resolveModelSpec } from "./model-spec.ts";
import type { EmbedRequest, FromWorker, InitRequest, ToWorker } from "./protocol.ts";

declare var self: Worker;

let engine: Engine | undefined;
/** Messages are handled one after another, even though each handler awaits. */
let chain: Promise<void> = Promise.resolve();
/** The worker's heap is collected once no request has come for this long (collectWhenIdle). */
const COLLECT_AFTER_IDLE_MS = 1_000;
let idleTimer: ReturnType<typeof setTimeout> | null = null;
/** Messages received and not yet handled. */
let pending = 0;

function reply(message: FromWorker, transfer: Bun.Transferable[] = []): void {
  self.postMessage(message, transfer);
}

async function init(req: InitRequest): Promise<void> {
  const started = performance.now();
  const source = resolveModelSpec(req.model, req.cacheDir);
  let buildMs = 0;
  if (source.kind === "built-in") {
    const build = await ensureBuiltInModel(source.id, req.cacheDir);
    if (build.built) {
      buildMs = build.seconds * 1000;
      Bun.gc(true); // drop the source weights (GloVe's parsed JSON is ~1 GB) before loading
    }
  }
  engine = await loadEngine(source, req.model, req.cacheDir);
  const loadMs = performance.now() - started - buildMs;
  reply({ type: "ready", modelId: req.model, dimension: engine.dimension, buildMs, loadMs });
}

/**
 * Each run's texts are sent as soon as it ends: the service can go on with the first recalls of a
 * batch while the model runs the rest, instead of receiving the whole batch at once.
 */
async function embed(req: EmbedRequest): Promise<void> {
  if (!engine) throw new Error("embed before init");
  let sent = 0;
  const send = (rows: number[], vectors: Float32Array<ArrayBuffer>, tokens: Int32Array<ArrayBuffer>) => {
    sent += rows.length;
    const indices = Int32Array.from(rows);
    reply({ type: "embedded", id: req.id, rows: indices, vectors, tokens, done: sent === req.texts.length }, [indices.buffer, vectors.buffer, tokens.buffer]);
  };
  // copies: the engine still reads each part after handing it over
  await engine.embed(req.texts, (rows, part) => send(rows, part.vectors.slice(), Int32Array.from(part.tokens)));
  if (req.texts.length === 0) send([], new Float32Array(0), new Int32Array(0));
}

async function handle(msg: ToWorker): Promise<void> {
  try {
    if (msg.type === "init") await init(msg);
    else await embed(msg);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    reply({ type: "error", id: msg.type === "init" ? undefined : msg.id, message });
  }
}

/**
 * After a quiet second, a full collection. The runs' tensors are typed arrays of this thread's heap,
 * garbage once a batch is answered, but a thread that allocates few objects seldom collects them:
 * after 100–400 batches of 21–64 texts the worker's heap held 29–31 MiB, 12–15 MiB of it live, and
 * an idle worker kept the rest. The collection takes ~15 ms of this thread.
 */
function collectWhenIdle(): void {
  if (--pending > 0) return;
  idleTimer = setTimeout(() => {
    idleTimer = null;
    Bun.gc(true);
  }, COLLECT_AFTER_IDLE_MS);
  idleTimer.unref();
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  pending++;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  chain = chain.then(() => handle(event.data)).then(collectWhenIdle);
};
