import { Gauge } from "prom-client";
import { registry } from "./registry";

/** What an engine with an in-memory search cache reports of it (the embedded engine does: SqliteStore.cacheStats). */
export interface CacheStats {
  /** wallets whose memories are cached */
  wallets: number;
  rows: number;
  /** rows of wallets whose coarse cells are built (those wallets' vector searches read their nearest cells) */
  cellRows: number;
  /** approximate bytes, by part of the cache */
  bytes: Record<string, number>;
  /** what the cache may hold now: its budget, or less while the process's memory is over its bound */
  capBytes: number;
}

/** What an embedder reports of its queue (the worker embedder does: WorkerEmbedder.stats). */
export interface EmbedQueueStats {
  /** texts waiting for the worker */
  queuedTexts: number;
  /** texts of the batches the workers are embedding */
  inFlightTexts: number;
  /** worker threads running the model now */
  workers: number;
}

type CacheSource = { cacheStats(): CacheStats };
type EmbedderSource = { stats(): EmbedQueueStats };

/**
 * The parts of the running services whose state the gauges read at each scrape, each with the
 * number of services using it (a test process runs several services on one embedder).
 */
const caches = new Map<CacheSource, number>();
const embedders = new Map<EmbedderSource, number>();

const add = <T>(sources: Map<T, number>, source: T) => sources.set(source, (sources.get(source) ?? 0) + 1);
const remove = <T>(sources: Map<T, number>, source: T) => {
  const users = (sources.get(source) ?? 1) - 1;
  if (users > 0) sources.set(source, users);
  else sources.delete(source);
};

const hasCache = (store: object): store is CacheSource => typeof (store as Partial<CacheSource>).cacheStats === "function";
const hasQueue = (embedder: object): embedder is EmbedderSource => typeof (embedder as Partial<EmbedderSource>).stats === "function";

/** Reads the engine's cache and the embedder's queue at each scrape until the returned function is called. */
export function watch(parts: { engine: object; embedder: object }): () => void {
  const { engine, embedder } = parts;
  const cache = hasCache(engine) ? engine : null;
  const queue = hasQueue(embedder) ? embedder : null;
  if (cache) add(caches, cache);
  if (queue) add(embedders, queue);
  let watching = true;
  return () => {
    if (!watching) return;
    watching = false;
    if (cache) remove(caches, cache);
    if (queue) remove(embedders, queue);
  };
}

const sum = <T>(sources: Map<T, number>, read: (source: T) => number) => [...sources.keys()].reduce((total, source) => total + read(source), 0);

new Gauge({
  name: "engram_cache_wallets",
  help: "Wallets held in the embedded engine's search cache",
  registers: [registry],
  collect() {
    this.set(sum(caches, (c) => c.cacheStats().wallets));
  },
});

new Gauge({
  name: "engram_cache_rows",
  help: "Memories held in the embedded engine's search cache, all wallets",
  registers: [registry],
  collect() {
    this.set(sum(caches, (c) => c.cacheStats().rows));
  },
});

new Gauge({
  name: "engram_cache_cell_rows",
  help: "Memories of the cached wallets whose coarse cells are built (vector searches read their nearest cells)",
  registers: [registry],
  collect() {
    this.set(sum(caches, (c) => c.cacheStats().cellRows));
  },
});

new Gauge({
  name: "engram_cache_bytes",
  help: "Approximate bytes of the embedded engine's search cache, by part (vectors, int8, keywords, ...)",
  labelNames: ["part"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const cache of caches.keys()) {
      for (const [part, bytes] of Object.entries(cache.cacheStats().bytes)) this.inc({ part }, bytes);
    }
  },
});

new Gauge({
  name: "engram_cache_cap_bytes",
  help: "Bytes the embedded engine's search cache may hold now: CACHE_MAX_MB, or less while the process's anonymous memory is beyond its baseline plus CACHE_MAX_MB",
  registers: [registry],
  collect() {
    this.set(sum(caches, (c) => c.cacheStats().capBytes));
  },
});

new Gauge({
  name: "engram_embed_workers",
  help: "Worker threads running the embedding model: 1, or 2 while concurrent texts wait and a core is spare",
  registers: [registry],
  collect() {
    this.set(sum(embedders, (e) => e.stats().workers));
  },
});

new Gauge({
  name: "engram_embed_queue_texts",
  help: "Texts waiting for an embedding worker (queued) and being embedded (in_flight)",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    this.set({ state: "queued" }, sum(embedders, (e) => e.stats().queuedTexts));
    this.set({ state: "in_flight" }, sum(embedders, (e) => e.stats().inFlightTexts));
  },
});
