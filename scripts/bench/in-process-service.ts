/**
 * The service in a bench's own process: the HTTP app (createApp + buildDeps, requests through
 * `app.handle`, no sockets) over the embedded engine in `dir`, with the bench model and free calls
 * without end, for benches that read the process they measure (memory, heap snapshots).
 */
import { join, resolve } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadConfig, withSessionSecret, type Settings } from "../../src/config.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { startBenchEmbedder } from "./bench-util.ts";

type StoreOptions = ConstructorParameters<typeof SqliteStore>[1];

export async function inProcessService(dir: string, storeOptions: (settings: Settings) => StoreOptions = () => undefined) {
  const cacheDir = join(resolve(import.meta.dir, "../.."), ".cache/models");
  const settings = loadConfig({ DATA_DIR: dir, MODEL_CACHE_DIR: cacheDir, FREE_TIER_CALLS: "1000000000", LOG_LEVEL: "warn" });
  const store = new SqliteStore(dir, storeOptions(settings));
  const embedder = await startBenchEmbedder(cacheDir);
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const app = createApp(buildDeps(await withSessionSecret(settings, store), store, embedder));

  /** One request with a JSON body (when given), answered by the app. */
  const handle = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> =>
    app.handle(new Request(`http://127.0.0.1${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }));

  /** A new wallet signed in (POST /auth/session): the headers its requests carry. */
  const session = async (): Promise<Record<string, string>> => {
    const account = privateKeyToAccount(generatePrivateKey());
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await account.signMessage({ message: `service-auth:${timestamp}` });
    const res = await handle("POST", "/auth/session", {}, { address: account.address, timestamp, signature });
    if (res.status !== 200) throw new Error(`POST /auth/session answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    const { token } = (await res.json()) as { token: string };
    return { authorization: `Bearer ${token}` };
  };

  const close = async (): Promise<void> => {
    await embedder.close();
    await store.close();
  };
  return { store, handle, session, close };
}
