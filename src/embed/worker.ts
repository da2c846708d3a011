/**
 * Embedding worker thread. Protocol (see protocol.ts): one "init" (build a built-in
 * model if needed, load + warm the pipeline, reply "ready" or "error"), then
 * "embed" requests, answered in order. Started by embedder.ts with
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

async function embed(req: EmbedRequest): Promise<void> {
  if (!engine) throw new Error("embed before init");
  const { vectors, tokens } = await engine.embed(req.texts);
  reply({ type: "embedded", id: req.id, vectors, tokens }, [vectors.buffer, tokens.buffer]);
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

self.onmessage = (event: MessageEvent<ToWorker>) => {
  chain = chain.then(() => handle(event.data));
};
