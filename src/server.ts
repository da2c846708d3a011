import { ConfigError, loadConfig, withSessionSecret, type Config, type Settings } from "./config";
import { openStore } from "./store/open-store";
import { embedderOptions, startEmbedder } from "./embed/embedder";
import { buildDeps } from "./http/deps";
import { createApp } from "./http/app";
import { runCluster, WORKER_ENV } from "./cluster";
import { log, setLogFormat, setLogLevel } from "./log";
import { answerSupervisor } from "./metrics/cluster";

/**
 * Opens the store, settles the session key (JWT_SECRET or the store's), starts the embedding worker,
 * binds them, then listens: /health is 200 as soon as it answers.
 */
export async function startServer(settings: Settings) {
  const started = performance.now();
  const store = await openStore(settings);
  const embedder = await startEmbedder(embedderOptions(settings));
  let config: Config;
  try {
    config = await withSessionSecret(settings, store);
    await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  } catch (error) {
    await embedder.close();
    await store.close();
    throw error;
  }
  const app = createApp(buildDeps(config, store, embedder)).listen({ port: config.PORT, hostname: config.HOST });
  const url = `http://${config.HOST}:${app.server!.port}`;
  log.info(`[engram] ${config.STORE} engine, model ${embedder.modelId} (${embedder.dimension}-d), ready in ${Math.round(performance.now() - started)} ms at ${url} (OpenAPI: ${url}/swagger)`);
  const stop = async () => {
    await app.stop();
    await embedder.close();
    await store.close();
  };
  return { app, url, stop };
}

/** Process entry: configuration from the environment, clean shutdown on SIGINT/SIGTERM. */
export async function main(): Promise<void> {
  try {
    const config = loadConfig();
    setLogLevel(config.LOG_LEVEL);
    setLogFormat(config.LOG_FORMAT);
    if (config.WORKERS > 1 && !process.env[WORKER_ENV]) return await runCluster(config);
    if (process.env[WORKER_ENV]) answerSupervisor();
    const server = await startServer(config);
    let stopping = false; // Ctrl-C reaches a cluster's workers twice: from the terminal and from the supervisor
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.on(signal, async () => {
        if (stopping) return;
        stopping = true;
        await server.stop();
        process.exit(0);
      });
    }
  } catch (error) {
    log.error(`[engram] cannot start: ${error instanceof Error ? error.message : error}`);
    if (!(error instanceof ConfigError)) log.error("[engram] see docs/configuration.md");
    process.exit(1);
  }
}
