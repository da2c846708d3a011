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
import { join } from "node:path";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import { printTable, sentence } from "./bench-util.ts";
import { glibcMalloc } from "./memory-probe.ts";
import { inProcessService } from "./in-process-service.ts";

const { values: args } = parseArgs({
  options: {
    size: { type: "string", default: "20000" },
    requests: { type: "string", default: "5" },
    kinds: { type: "string", default: "export-csv,export-json,suggested,batch-store,recall,stats" },
    // internal: one kind measured in a child process
    child: { type: "string" },
    "data-dir": { type: "string" },
    authorization: { type: "string" },
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

/** The service in this process over `dir`, and callers that fail on any error status. */
async function service(dir: string) {
  const { handle, session, close } = await inProcessService(dir);
  const failed = async (res: Response, method: string, path: string) => new Error(`${method} ${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<void> => {
    const res = await handle(method, path, headers, body);
    if (res.status >= 400) throw await failed(res, method, path);
    await res.arrayBuffer();
  };
  /** The answer's size, read as a client in another process would: chunk by chunk, nothing kept. */
  const drain = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<number> => {
    const res = await handle(method, path, headers, body);
    if (res.status >= 400) throw await failed(res, method, path);
    let bytes = 0;
    for await (const chunk of res.body!) bytes += chunk.byteLength;
    return bytes;
  };
  return { call, drain, session, close };
}

/** Measures one kind in this process over the filled wallet; prints one JSON line. */
async function measure(kind: string, dir: string, authorization: string): Promise<void> {
  const { call, drain, close } = await service(dir);
  const headers = { authorization };
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
  await measure(args.child, args["data-dir"]!, args.authorization!);
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "engram-request-memory-"));
try {
  const { call, session, close } = await service(dir);
  const headers = await session();
  for (let stored = 0; stored < SIZE; stored += 100) {
    await call("POST", "/v1/store/batch", headers, { memories: Array.from({ length: Math.min(100, SIZE - stored) }, () => ({ content: content() })) });
    if ((stored + 100) % 5000 === 0) log(`${stored + 100} of ${SIZE} memories stored`);
  }
  await close();
  const rows: string[][] = [];
  for (const kind of kinds) {
    log(`${kind}: ${REQUESTS} requests in a fresh process`);
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--child", kind, "--data-dir", dir, "--authorization", headers.authorization!, "--requests", String(REQUESTS)], { stderr: "inherit" });
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
