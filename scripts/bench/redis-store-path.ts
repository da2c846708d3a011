/**
 * The Redis engine's own cost per request, in-process: `listMemories` (first page of 20, newest
 * first, with the total) and `Recall.run` (limit 5 and 10, access counting on) on the wallet that
 * `throughput.ts --engine redis` filled, with the query vectors embedded beforehand, so the figures
 * are the store's alone (commands built, sent, parsed, documents decoded), not the embedding model's.
 *
 *   REDIS_URL=redis://127.0.0.1:6394 bun scripts/bench/redis-store-path.ts [--calls 2000] [--prefix engram:]
 *                                    [--wallet engram-throughput-main] [--only list,recall5,recall10]
 *
 * Per operation, after a warm-up of a fifth of --calls: wall ms p50 / p99 per call (one call at a
 * time, loopback round trips included), the process's CPU ms per call (user + system, every thread:
 * the figure a shared machine disturbs least) and Redis round trips per call (commands, pipelines
 * and transactions, as engram_redis_round_trips_total counts them) and the server's own time per
 * call (INFO commandstats, reset before each operation: Redis' thread executing the commands, no
 * network, no parsing), then per command. Access bumps are written behind, so their pipelines are
 * counted in the recall rows too.
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { Recall } from "../../src/domain/recall.ts";
import type { TextEmbedder } from "../../src/domain/ports.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { registry } from "../../src/metrics/registry.ts";
import { connectClient } from "../../src/store/redis/client.ts";
import { percentiles, printTable, startBenchEmbedder } from "./bench-util.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    prefix: { type: "string", default: "engram:" },
    wallet: { type: "string", default: "engram-throughput-main" },
    only: { type: "string" },
  },
});
const url = process.env.REDIS_URL;
if (!url) throw new Error("set REDIS_URL to the server throughput.ts --engine redis filled");
const calls = Number(args.calls);
const only = args.only ? new Set(args.only.split(",")) : null;
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
const log = (msg: string) => console.error(`[redis-store-path] ${msg}`);

// throughput.ts's wallet and query stream: same derivation
const account = privateKeyToAccount(`0x${createHash("sha256").update(args.wallet!).digest("hex")}` as Hex);
const qrng = prng(7);
const queries = Array.from({ length: 200 }, () => syntheticQuery(qrng));

const embedder = await startBenchEmbedder(cacheDir);
const { vectors } = await embedder.embed(queries);
await embedder.close();
const byQuery = new Map(queries.map((q, i) => [q, vectors[i]!]));
/** The bench's queries, embedded already: recall's own embedding costs nothing here. */
const embedded: TextEmbedder = {
  modelId: embedder.modelId,
  dimension: embedder.dimension,
  embed: async (texts) => ({ vectors: texts.map((t) => byQuery.get(t)!), tokens: texts.map(() => 1) }),
};

const store = await RedisStore.connect(url, { keyPrefix: args.prefix });
const userId = await store.userIdForWallet(account.address);
const recall = new Recall(store, embedded, () => Date.now());
const total = (await store.listMemories(userId, {}, { limit: 1, offset: 0 }, Date.now())).total;
if (total === 0) throw new Error(`no memories in the wallet of ${args.wallet} under ${args.prefix}: run throughput.ts --engine redis first`);
log(`${total} memories in the wallet`);

async function roundTrips(): Promise<number> {
  const metric = await registry.getSingleMetric("engram_redis_round_trips_total")!.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

const ops: [string, string, (i: number) => Promise<unknown>][] = [
  ["list", "listMemories (limit 20)", () => store.listMemories(userId, {}, { limit: 20, offset: 0 }, Date.now())],
  ...[5, 10].map((limit): [string, string, (i: number) => Promise<unknown>] => [
    `recall${limit}`,
    `Recall.run (limit ${limit})`,
    (i) => recall.run(userId, { query: queries[i % queries.length]!, limit, min_similarity: 0, filter: {}, include_relations: false, record_access: true }),
  ]),
];

/** The server's own time per command (INFO commandstats since the last reset): calls and µs. */
const admin = await connectClient(url);
async function serverStats(): Promise<Map<string, { calls: number; usec: number }>> {
  const text = String(await admin.sendCommand(["INFO", "commandstats"]));
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const [, name, calls, usec] of text.matchAll(/^cmdstat_(\S+?):calls=(\d+),usec=(\d+)/gm)) stats.set(name!, { calls: Number(calls), usec: Number(usec) });
  return stats;
}

const rows: string[][] = [];
const serverRows: string[][] = [];
for (const [key, label, run] of ops) {
  if (only && !only.has(key)) continue;
  for (let i = 0; i < Math.ceil(calls / 5); i++) await run(i);
  const samples: number[] = [];
  await admin.sendCommand(["CONFIG", "RESETSTAT"]);
  const trips = await roundTrips();
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await run(i);
    samples.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  const perCall = (trips2: number) => ((trips2 - trips) / calls).toFixed(2);
  const p = percentiles(samples);
  const cpuMs = (used.user + used.system) / 1000 / calls;
  const tripsPerCall = perCall(await roundTrips());
  log(`${label}: p50 ${p.p50.toFixed(3)} ms, CPU ${cpuMs.toFixed(3)} ms/call, ${tripsPerCall} round trips`);
  const server = [...(await serverStats())].filter(([name]) => !/^config/i.test(name));
  // EXEC's time includes the commands it ran, which are counted on their own too
  const serverMs = server.reduce((sum, [name, s]) => (name === "exec" ? sum : sum + s.usec), 0) / 1000 / calls;
  rows.push([label, p.p50.toFixed(3), p.p99.toFixed(3), cpuMs.toFixed(3), tripsPerCall, serverMs.toFixed(3)]);
  for (const [name, s] of server) serverRows.push([label, name, (s.calls / calls).toFixed(2), (s.usec / s.calls / 1000).toFixed(3)]);
}
await admin.close();
await store.close();
console.log(`\n${total.toLocaleString("en-US")} memories in the wallet, ${calls} calls each; load average: ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}\n`);
printTable(["operation", "p50 ms", "p99 ms", "client CPU ms/call", "round trips/call", "server ms/call"], rows);
console.log("");
printTable(["operation", "command", "calls/call", "server ms per command"], serverRows);
