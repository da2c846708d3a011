import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { privateKeyToAccount, generatePrivateKey, type PrivateKeyAccount } from "viem/accounts";
import { loadConfig, withSessionSecret, type Config } from "../../src/config";
import { buildDeps, type AppDeps } from "../../src/http/deps";
import { createApp } from "../../src/http/app";
import { startEmbedder, type Embedder } from "../../src/embed/embedder";
import type { MemoryStore } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";

export const MODEL_CACHE_DIR = resolve(import.meta.dir, "../../.cache/models");

let sharedEmbedder: Promise<Embedder> | null = null;
/** One embedding worker per test process: loading the model is the slow part. */
export function embedder(): Promise<Embedder> {
  sharedEmbedder ??= startEmbedder({ model: "glove-sif-100d", cacheDir: MODEL_CACHE_DIR });
  return sharedEmbedder;
}

/** An engine under test: a name and a factory for a fresh, empty store. */
export interface EngineCase {
  name: string;
  open(dataDir: string): Promise<MemoryStore>;
  /** Two handles on one fresh store, as two processes or replicas have; closing both cleans it up. */
  openShared(dataDir: string): Promise<[MemoryStore, MemoryStore]>;
}

export const sqliteEngine: EngineCase = {
  name: "sqlite",
  open: async (dir) => new SqliteStore(dir),
  openShared: async (dir) => [new SqliteStore(dir), new SqliteStore(dir)],
};

/** A running service on a loopback port with its own empty store and a movable clock. */
export interface TestService {
  url: string;
  deps: AppDeps;
  config: Config;
  /** moves the service's clock forward */
  advance(ms: number): void;
  now(): number;
  stop(): Promise<void>;
}

export async function startService(engine: Pick<EngineCase, "name" | "open"> = sqliteEngine, env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), "engram-test-"));
  const store = await engine.open(dataDir);
  const config = await withSessionSecret(loadConfig({ DATA_DIR: dataDir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1", ...env }), store);
  const emb = await embedder();
  await store.bindEmbeddingModel({ id: emb.modelId, dimension: emb.dimension });
  let offset = 0;
  const now = () => Date.now() + offset;
  const deps = buildDeps(config, store, emb, now);
  const app = createApp(deps).listen({ port: 0, hostname: "127.0.0.1" });
  return {
    url: `http://127.0.0.1:${app.server!.port}`,
    deps,
    config,
    advance: (ms) => {
      offset += ms;
    },
    now,
    stop: async () => {
      await app.stop();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A wallet that signs `service-auth:{ts}` headers the way a client would, with viem. */
export class TestWallet {
  readonly account: PrivateKeyAccount;
  constructor(privateKey = generatePrivateKey()) {
    this.account = privateKeyToAccount(privateKey);
  }
  get address(): string {
    return this.account.address;
  }
  async header(timestampSeconds: number, prefix = "service-auth"): Promise<string> {
    const signature = await this.account.signMessage({ message: `${prefix}:${timestampSeconds}` });
    return `${this.address}:${timestampSeconds}:${signature}`;
  }
}

/** What `Client` sends requests with: the global fetch, or a wrapper such as @x402/fetch's paying fetch. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

/** One request with a JSON body (a string is sent as is); the answer's body parsed as JSON when it is JSON. */
export async function sendJson(fetcher: Fetch, url: string, method: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  const res = await fetcher(url, {
    method,
    headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A small HTTP client bound to a service (its URL and clock) and a wallet. */
export class Client {
  constructor(
    private readonly service: Pick<TestService, "url" | "now">,
    readonly wallet: TestWallet = new TestWallet(),
    private readonly fetcher: Fetch = fetch,
  ) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const auth = await this.wallet.header(Math.floor(this.service.now() / 1000));
    return sendJson(this.fetcher, this.service.url + path, method, body, { "x-wallet-auth": auth, ...headers });
  }
  get = (path: string) => this.request("GET", path);
  post = (path: string, body?: unknown) => this.request("POST", path, body);
  patch = (path: string, body?: unknown) => this.request("PATCH", path, body);
  del = (path: string, body?: unknown) => this.request("DELETE", path, body);
}
