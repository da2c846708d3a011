import type { Subprocess } from "bun";
import { withSessionSecret, type Settings } from "./config";
import { openStore } from "./store/open-store";
import { embedderOptions, startEmbedder } from "./embed/embedder";
import { log } from "./log";
import { supervisorMetrics } from "./metrics/cluster";

/** Set in the environment of each worker process; its value is the worker's number. */
export const WORKER_ENV = "ENGRAM_WORKER";
/** More restarts than this within RESTART_WINDOW_MS is a crash loop (e.g. a start-up error): stop. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 1_000;


/**
 * WORKERS > 1: this process supervises that many service processes on the same port. Bun listens
 * with SO_REUSEPORT, so the kernel spreads incoming connections over the workers; each has its own
 * event loop, embedding worker thread and per-wallet cache. The caches stay coherent through SQLite:
 * every write is logged in `memory_changes` (src/store/sqlite/schema.ts) and each process patches
 * the rows other processes changed before its next search (vector-index.ts). Session tokens work
 * across workers (one JWT_SECRET, or the key kept in the store); the free tier is counted in the
 * store, so it is exact.
 *
 * The store is opened once here first, so migrations, the session key and the model binding (and the
 * model build on a fresh machine) are settled once rather than racing in every worker.
 */
export async function runCluster(config: Settings): Promise<void> {
  await prepareStore(config);
  let stopping = false;
  const workers = new Map<number, Subprocess>();
  const restarts: number[] = [];
  // A scrape of /metrics reaches one worker; it asks here for every worker's metrics (src/metrics/cluster.ts).
  const ipc = supervisorMetrics(() => [...workers.values()]);

  const start = (index: number) => {
    const child = Bun.spawn([process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      env: { ...process.env, [WORKER_ENV]: String(index) },
      stdout: "inherit",
      stderr: "inherit",
      ipc,
    });
    workers.set(index, child);
    void child.exited.then((code) => {
      workers.delete(index);
      if (stopping) return;
      const now = Date.now();
      while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length >= MAX_RESTARTS) {
        log.error(`[engram] worker ${index} exited with code ${code}, the ${MAX_RESTARTS + 1}th exit within a minute; stopping (see the workers' messages above)`);
        void stop(1);
        return;
      }
      restarts.push(now);
      log.error(`[engram] worker ${index} exited with code ${code}; starting it again`);
      setTimeout(() => !stopping && start(index), RESTART_DELAY_MS);
    });
  };

  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    for (const child of workers.values()) child.kill("SIGTERM");
    await Promise.all([...workers.values()].map((child) => child.exited));
    process.exit(exitCode);
  };

  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stop(0));
  for (let i = 1; i <= config.WORKERS; i++) start(i);
  log.info(`[engram] ${config.WORKERS} worker processes on port ${config.PORT} (WORKERS=${config.WORKERS})`);
}

/** Runs the store's migrations, settles the session key and binds the embedding model (building it on first run), then closes both. */
async function prepareStore(config: Settings): Promise<void> {
  const store = await openStore(config);
  const embedder = await startEmbedder(embedderOptions(config));
  try {
    await withSessionSecret(config, store);
    await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  } finally {
    await embedder.close();
    await store.close();
  }
}
