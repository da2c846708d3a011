/**
 * How much anonymous memory one kind of request leaves the service holding: a wallet of --size
 * memories, then --requests requests of one kind in a fresh process that has served nothing else
 * (the allocators keep what a large request freed, so each kind gets its own process, or the first
 * large one would hide the others). In process through the HTTP app (`app.handle`), the embedded
 * engine and the default model.
 *
 *   bun scripts/bench/request-memory.ts [--size 20000] [--requests 5] [--kinds export-csv,export-json,suggested,batch-store,recall,stats]
 *
 * For each kind: the answer's size (read chunk by chunk and dropped, as a client in another process
 * would), RssAnon growth over the requests (read 1 s after the last one, without a forced collection:
 * what a service holds between requests) and after a forced collection, and how much of it glibc's
 * malloc holds (the allocator of onnxruntime, which embeds in the worker). Before the requests, the
 * process loads the wallet and stores one memory (the first write after a load grows the cache's
 * columns, which is not the requests' own cost).
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadConfig, withSessionSecret } from "../../src/config.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { buildDeps } from "../../src/http/deps.ts";
import { createApp } from "../../src/http/app.ts";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import { printTable, sentence, startBenchEmbedder } from "./bench-util.ts";
import { glibcMalloc } from "./memory-probe.ts";

const { values: args } = parseArgs({
  options: {
    size: { type: "string", default: "20000" },
    requests: { type: "string", default: "5" },
    kinds: { type: "string", default: "export-csv,export-json,suggested,batch-store,recall,stats" },
    // internal: one kind measured in a child process
    child: { type: "string" },
    "data-dir": { type: "string" },
    token: { type: "string" },
  },
});

let counter = 0;
const content = () => `${sentence(++counter)} (note ${counter} ${crypto.randomUUID().slice(0, 8)})`;

const KINDS: Record<string, [method: string, path: string, body?: () => unknown]> = {
  "export-csv": ["GET", "/v1/export?format=csv"],
  "export-json": ["GET", "/v1/export"],
  suggested: ["GET", "/v1/suggested"],
  "batch-store": ["POST", "/v1/store/batch", () => ({ memories: Array.from({ length: 20 }, () => ({ content: content() })) })],
  recall: ["POST", "/v1/recall", () => ({ query: sentence(Math.floor(Math.random() * 500)), limit: 10 })],
  stats: ["GET", "/v1/stats"],
};
const SIZE = Number(args.size);
const REQUESTS = Number(args.requests);
const kinds = args.kinds!.split(",");
if (!(SIZE >= 100 && REQUESTS >= 1) || kinds.some((kind) => !(kind in KINDS))) {
  throw new Error(`--size ≥ 100, --requests ≥ 1, --kinds from ${Object.keys(KINDS).join(",")}`);
}
const log = (line: string) => process.stderr.write(`[request-memory] ${line}\n`);
const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const cacheDir = join(resolve(import.meta.dir, "../.."), ".cache/models");

/** The service in this process over `dir`, and a caller that fails on any error status. */
async function service(dir: string) {
  const settings = loadConfig({ DATA_DIR: dir, MODEL_CACHE_DIR: cacheDir, FREE_TIER_CALLS: "1000000000", LOG_LEVEL: "warn" });
  const store = new SqliteStore(dir);
  const embedder = await startBenchEmbedder(cacheDir);
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const app = createApp(buildDeps(await withSessionSecret(settings, store), store, embedder));
  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    app.handle(new Request(`http://127.0.0.1${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }));
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<string> => {
    const res = await send(method, path, headers, body);
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
    return text;
  };
  /** The answer's size, read as a client in another process would: chunk by chunk, nothing kept. */
  const drain = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<number> => {
    const res = await send(method, path, headers, body);
    if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    let bytes = 0;
    for await (const chunk of res.body!) bytes += chunk.byteLength;
    return bytes;
  };
  const close = async () => {
    await embedder.close();
    await store.close();
  };
  return { call, drain, close };
}

/** Measures one kind in this process over the filled wallet; prints one JSON line. */
async function measure(kind: string, dir: string, token: string): Promise<void> {
  const { call, drain, close } = await service(dir);
  const headers = { authorization: `Bearer ${token}` };
  // loads the wallet's cache, and grows its columns past the loaded size, as the first write after a load does
  for (let i = 0; i < 20; i++) await call("GET", "/v1/memories?limit=20", headers);
  await call("POST", "/v1/store", headers, { content: content() });
  const settle = async (collect: boolean) => {
    if (collect) Bun.gc(true);
    await Bun.sleep(1000);
    return anonymousRss() ?? 0;
  };
  // the loading's garbage and its threads take a few collections to settle (single readings moved by ±15 MiB)
  for (let i = 0; i < 3; i++) await settle(true);
  const before = await settle(true);
  const nativeBefore = glibcMalloc()?.inUse ?? 0;
  const [method, path, body] = KINDS[kind]!;
  let answer = 0;
  for (let i = 0; i < REQUESTS; i++) answer = await drain(method, path, headers, body?.());
  const held = await settle(false);
  const collected = await settle(true);
  const native = (glibcMalloc()?.inUse ?? 0) - nativeBefore;
  await close();
  console.log(JSON.stringify({ kind, answer, held: held - before, collected: collected - before, native }));
}

if (args.child) {
  await measure(args.child, args["data-dir"]!, args.token!);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "engram-request-memory-"));
try {
  const { call, close } = await service(dir);
  const account = privateKeyToAccount(generatePrivateKey());
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await account.signMessage({ message: `service-auth:${timestamp}` });
  const { token } = JSON.parse(await call("POST", "/auth/session", {}, { address: account.address, timestamp, signature })) as { token: string };
  for (let stored = 0; stored < SIZE; stored += 100) {
    await call("POST", "/v1/store/batch", { authorization: `Bearer ${token}` }, { memories: Array.from({ length: Math.min(100, SIZE - stored) }, () => ({ content: content() })) });
    if ((stored + 100) % 5000 === 0) log(`${stored + 100} of ${SIZE} memories stored`);
  }
  await close();
  const rows: string[][] = [];
  for (const kind of kinds) {
    log(`${kind}: ${REQUESTS} requests in a fresh process`);
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--child", kind, "--data-dir", dir, "--token", token, "--requests", String(REQUESTS)], { stderr: "inherit" });
    if (child.exitCode !== 0) throw new Error(`measuring ${kind} failed (exit ${child.exitCode}); run it alone with --kinds ${kind} to see why`);
    const line = child.stdout.toString().trim().split("\n").pop()!;
    const { answer, held, collected, native } = JSON.parse(line) as { answer: number; held: number; collected: number; native: number };
    rows.push([kind, (answer / 1e6).toFixed(2), MiB(held), MiB(collected), MiB(native)]);
  }
  console.log(`\none wallet of ${SIZE} memories, ${REQUESTS} requests of each kind in a fresh process:\n`);
  printTable(["request", "answer (MB)", "RssAnon held 1 s after (MiB)", "after a forced collection (MiB)", "of which glibc malloc: onnxruntime (MiB)"], rows);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
