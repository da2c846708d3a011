/**
 * The sqlite engine's scan thread, in-process: concurrent `store.nearest` calls (k = 40) on the
 * throughput bench's wallet, with the vector scans on the main thread and on the scan thread, and
 * the CPU time of each thread per search (Linux /proc; the main thread's is what limits one process).
 *
 *   bun scripts/bench/scan-thread.ts --data-dir DIR [--concurrency 8] [--searches 4000] [--namespace work]
 *
 * DIR: a data dir filled by `bun scripts/bench/throughput.ts --size 100000 --data-dir DIR` (its wallet
 * and model). Each mode runs in a fresh child process, in turn, twice.
 */
import { parseArgs } from "node:util";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { vectorIndexCounters } from "../../src/store/sqlite/vector-index.ts";
import { cpuByName, printTable, startBenchEmbedder, threadCpu } from "./bench-util.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    concurrency: { type: "string", default: "8" },
    searches: { type: "string", default: "4000" },
    namespace: { type: "string" },
    /** internal: run one mode in this process and print its result as JSON */
    mode: { type: "string" },
  },
});

const log = (msg: string) => console.error(`[scan-thread] ${msg}`);
const dataDir = args["data-dir"] ? resolve(args["data-dir"]) : "";
if (!dataDir || !existsSync(join(dataDir, "engram.sqlite"))) {
  console.error("scan-thread: --data-dir must name a filled throughput data dir: run `bun scripts/bench/throughput.ts --size 100000 --data-dir DIR` first");
  process.exit(2);
}

interface Result {
  mode: string;
  perSecond: number;
  mainMs: number;
  threadMs: number;
  offloaded: number;
}

async function runMode(mode: "main thread" | "scan thread"): Promise<Result> {
  // the throughput bench's wallet: the same key it signs with
  const account = privateKeyToAccount(`0x${createHash("sha256").update("engram-throughput-main").digest("hex")}` as Hex);
  const store = new SqliteStore(dataDir, { vectorIndex: { offloadMinRows: mode === "scan thread" ? 0 : Infinity } });
  const embedder = await startBenchEmbedder(resolve(import.meta.dir, "../../.cache/models"));
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const userId = await store.userIdForWallet(account.address);
  const random = prng(7);
  const { vectors } = await embedder.embed(Array.from({ length: 200 }, () => syntheticQuery(random)));
  await embedder.close();
  const filter = args.namespace ? { namespace: args.namespace } : {};
  const now = Date.now();
  for (let i = 0; i < 200; i++) await store.nearest(userId, vectors[i]!, filter, 40, now); // load and warm up
  const searches = Number(args.searches);
  let next = 0;
  const before = threadCpu();
  const offloaded = vectorIndexCounters.offloadedScans;
  const started = performance.now();
  const client = async () => {
    while (next < searches) await store.nearest(userId, vectors[next++ % 200]!, filter, 40, now);
  };
  await Promise.all(Array.from({ length: Number(args.concurrency) }, client));
  const wall = performance.now() - started;
  const spent = cpuByName(before, threadCpu());
  const main = spent.get("main") ?? 0;
  // Worker threads: the scan thread and the checkpointer (idle: nothing is written); the embedder is closed
  const thread = spent.get("Worker") ?? 0;
  await store.close();
  return { mode, perSecond: (searches / wall) * 1000, mainMs: main / searches, threadMs: thread / searches, offloaded: vectorIndexCounters.offloadedScans - offloaded };
}

if (args.mode) {
  console.log(JSON.stringify(await runMode(args.mode as "main thread" | "scan thread")));
  process.exit(0);
}

const rows: string[][] = [];
for (let round = 1; round <= 2; round++) {
  for (const mode of ["main thread", "scan thread"]) {
    log(`round ${round}: scans on the ${mode}…`);
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--mode", mode, ...process.argv.slice(2)], { stderr: "inherit" });
    if (child.exitCode !== 0) throw new Error(`the ${mode} run failed (exit ${child.exitCode}); run it alone with --mode "${mode}" to see why`);
    const r = JSON.parse(child.stdout.toString().trim().split("\n").at(-1)!) as Result;
    rows.push([r.mode, String(round), r.perSecond.toFixed(0), r.mainMs.toFixed(3), r.threadMs.toFixed(3), String(r.offloaded)]);
  }
}
console.log(`\n${args.searches} store.nearest calls (k = 40), ${args.concurrency} at a time, filter ${JSON.stringify(args.namespace ? { namespace: args.namespace } : {})}; CPU from /proc, 10 ms ticks.\n`);
printTable(["vector scans on", "round", "searches/s", "main thread CPU ms/search", "worker threads CPU ms/search", "searches run by the scan thread"], rows);
