/**
 * Where a Redis recall's time goes, call by call: `Recall.run` on recall.ts's main wallet (a key
 * prefix `recall.ts --engine redis` left in place), with every store method and every Redis command
 * timed. Complements redis-queries.ts (which times raw query forms): this one runs the real path.
 *
 *   REDIS_URL=redis://127.0.0.1:6380 bun scripts/bench/recall-path.ts --prefix engram-bench-…: [--queries 500] [--seed 1]
 *                                    [--filter '{"namespace":"work"}']   (a recall filter, as JSON; none by default)
 *
 * Tables (ms, p50 / p95 / p99 / mean per recall):
 *  - the recall, the embedding, and each store method (calls run in parallel overlap: nearest and
 *    searchText are issued together);
 *  - per Redis command: calls per recall, and the server's own time per call (INFO commandstats,
 *    reset before the run: the time Redis's single thread spent executing it, no network, no
 *    parsing); the sum of those is the part of the recall no client-side change can remove.
 * Access bumps are written behind (a pipeline every 250 ms); their commands show up here too.
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { Recall } from "../../src/domain/recall.ts";
import type { TextEmbedder } from "../../src/domain/ports.ts";
import type { MemoryFilter } from "../../src/domain/store-port.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { connectClient } from "../../src/store/redis/client.ts";
import { percentiles, printTable, timedCalls, startBenchEmbedder } from "./bench-util.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    prefix: { type: "string" },
    queries: { type: "string", default: "500" },
    seed: { type: "string", default: "1" },
    filter: { type: "string", default: "{}" },
  },
});
const url = process.env.REDIS_URL;
if (!url || !args.prefix) throw new Error("set REDIS_URL and --prefix (the key prefix recall.ts printed)");
const seed = Number(args.seed);
const n = Number(args.queries);
const filter = JSON.parse(args.filter!) as MemoryFilter;
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));

const embedder = await startBenchEmbedder(cacheDir);
const store = await RedisStore.connect(url, { keyPrefix: args.prefix });
const admin = await connectClient(url);
// recall.ts's main wallet and query stream: same derivation, same seed
const address = privateKeyToAccount(`0x${createHash("sha256").update(`engram-bench-${seed}-main`).digest("hex")}` as Hex).address;
const userId = await store.userIdForWallet(address);
const rng = prng(seed * 7919 + 1);
const texts = Array.from({ length: n }, () => syntheticQuery(rng));

const samples = new Map<string, number[]>();
let timing = false;
const add = (name: string, ms: number) => void (samples.get(name) ?? samples.set(name, []).get(name)!).push(ms);
const timedStore = timedCalls(store, (method, ms) => add(`store.${method}`, ms), () => timing);

const timedEmbedder: TextEmbedder = {
  modelId: embedder.modelId,
  dimension: embedder.dimension,
  embed: async (input) => {
    const t = performance.now();
    const out = await embedder.embed(input);
    if (timing) add("embed", performance.now() - t);
    return out;
  },
};
const recall = new Recall(timedStore, timedEmbedder, Date.now);
const run = (query: string) =>
  recall.run(userId, { query, limit: 5, min_similarity: 0, include_relations: false, record_access: true, filter });

for (const q of texts.slice(0, Math.min(200, n))) await run(q); // warm-up (and the KNN policy's estimates)
await admin.sendCommand(["CONFIG", "RESETSTAT"]);
// every command's own duration and arguments (restored below), to tell the two FT.SEARCH forms apart
const slowlog = (await admin.sendCommand(["CONFIG", "GET", "slowlog-*"])) as string[];
await admin.sendCommand(["CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", String(n * 40)]);
await admin.sendCommand(["SLOWLOG", "RESET"]);
timing = true;
for (const q of texts) {
  const t = performance.now();
  await run(q);
  add("recall", performance.now() - t);
}
timing = false;
await Bun.sleep(300); // the last access bumps reach the server
const stats = (await admin.sendCommand(["INFO", "commandstats"])) as string;
const server = (await admin.sendCommand(["INFO", "server"])) as string;
const logged = (await admin.sendCommand(["SLOWLOG", "GET", String(n * 40)])) as [number, number, number, string[]][];
await admin.sendCommand(["CONFIG", "SET", ...slowlog]);
/** FT.SEARCH split by form: the KNN query, the keyword query (WITHSCORES), other searches. */
const searchForms = new Map<string, number[]>();
for (const [, , usec, argv] of logged) {
  if (String(argv[0]).toUpperCase() !== "FT.SEARCH") continue;
  const form = String(argv[2]).includes("=>[KNN") ? "FT.SEARCH knn" : argv.map(String).includes("WITHSCORES") ? "FT.SEARCH keyword" : "FT.SEARCH other";
  (searchForms.get(form) ?? searchForms.set(form, []).get(form)!).push(Number(usec) / 1000);
}

const fmt = (xs: number[]) => {
  const p = percentiles(xs);
  return [p.p50, p.p95, p.p99, p.mean].map((v) => v.toFixed(2));
};
console.log(`\n## Recall path: Redis ${server.match(/redis_version:(\S+)/)?.[1]}, prefix ${args.prefix}, ${n} recalls (limit 5, filter ${args.filter})\n`);
const order = ["recall", "embed", "store.nearest", "store.searchText", "store.embeddings", "store.relationCounts", "store.getMemories", "store.recordAccess"];
printTable(
  ["call", "p50", "p95", "p99", "mean", "calls per recall"],
  [...order.filter((k) => samples.has(k)), ...[...samples.keys()].filter((k) => !order.includes(k))].map((k) => [
    k,
    ...fmt(samples.get(k)!),
    (samples.get(k)!.length / n).toFixed(2),
  ]),
);
console.log("\nServer time per command (INFO commandstats, µs):\n");
const rows: string[][] = [];
let total = 0;
for (const line of stats.split("\n")) {
  const m = line.match(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/);
  if (!m || ["config", "info"].includes(m[1]!)) continue;
  const [, name, calls, usec, perCall] = m;
  total += Number(usec);
  rows.push([name!, (Number(calls) / n).toFixed(2), Number(perCall).toFixed(1), (Number(usec) / n).toFixed(1)]);
}
rows.sort((a, b) => Number(b[3]) - Number(a[3]));
rows.push(["**total**", "", "", (total / n).toFixed(1)]);
printTable(["command", "calls per recall", "µs per call", "µs per recall"], rows);
console.log("\nFT.SEARCH server time by form (SLOWLOG, ms per call):\n");
printTable(["form", "p50", "p95", "p99", "mean", "calls per recall"], [...searchForms].map(([form, xs]) => [form, ...fmt(xs), (xs.length / n).toFixed(2)]));

await embedder.close();
await store.close();
await admin.close();
process.exit(0);
