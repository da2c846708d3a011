/**
 * What a wallet's searches cost on a Redis Cluster against one server, for the choice of how a
 * cluster searches (docs/architecture.md › Redis Cluster): the same wallets written to a standalone
 * server and to a cluster, then the engine's own calls timed in-process, interleaved (a query on
 * one, the same on the other, in random order) so a shared machine's load falls on both alike.
 *
 *   bun scripts/bench/cluster-search.ts --standalone redis://127.0.0.1:6379 --cluster redis://127.0.0.1:7001
 *                                       [--memories 10000] [--wallets 3] [--queries 500] [--dim 128]
 *
 * The standalone server answers each query on the one index holding the wallet, which is what one
 * index per master queried on the wallet's master would cost; the cluster answers through the query
 * engine's coordinator, which sends each FT.SEARCH / FT.AGGREGATE to every shard and merges. Per
 * wallet `--memories` synthetic memories (random `--dim` vectors); the queries run on the first
 * wallet: list (newest 10), keyword search (10), nearest (10), stats. Prints p50 / p95 ms per call
 * as the client waits for it, and the servers' CPU per call: user + system time of every master's
 * process (all its threads: the coordinator's too) from /proc over each call's phase, so it needs the
 * servers on this machine. CPU time is what a loaded machine distorts least.
 */
import { parseArgs } from "node:util";
import { queryTerms } from "../../src/domain/text.ts";
import type { MemoryStore } from "../../src/domain/store-port.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { dropRedisPrefix, percentiles, printTable } from "./bench-util.ts";
import { fillRandomVectors, prng, syntheticQuery } from "./synthetic.ts";
import { connectRedis } from "../../src/store/redis/client.ts";
import { readFileSync } from "node:fs";

const { values: args } = parseArgs({
  options: {
    standalone: { type: "string" },
    cluster: { type: "string" },
    memories: { type: "string", default: "10000" },
    wallets: { type: "string", default: "3" },
    queries: { type: "string", default: "500" },
    dim: { type: "string", default: "128" },
  },
});
if (!args.standalone || !args.cluster) throw new Error("give --standalone redis://… and --cluster redis://… (a node of the cluster)");
const deployments = [
  { label: "standalone (one index)", url: args.standalone },
  { label: "cluster (coordinator)", url: args.cluster },
];
const perWallet = Number(args.memories);
const walletCount = Number(args.wallets);
const queries = Number(args.queries);
const dim = Number(args.dim);
const prefix = `engram-bench-search-${Date.now()}:`;
const now = Date.now();

const users = Array.from({ length: walletCount }, () => crypto.randomUUID());
const stores: MemoryStore[] = [];
for (const { label, url } of deployments) {
  const store = await RedisStore.connect(url, { keyPrefix: prefix });
  await store.bindEmbeddingModel({ id: "search-bench", dimension: dim });
  const rng = prng(1);
  for (const userId of users) {
    await fillRandomVectors(store, userId, perWallet, dim, rng, now);
    process.stderr.write(`\r[search] ${label}: wallet ${users.indexOf(userId) + 1}/${walletCount} written`);
  }
  process.stderr.write("\n");
  stores.push(store);
}

/** The master processes of each deployment, for their CPU time. */
const pids: number[][] = [];
for (const { url } of deployments) {
  const nodes = await connectRedis(url);
  const own: number[] = [];
  for (const master of await nodes.masters()) own.push(Number(/process_id:(\d+)/.exec(String(await master.commands.sendCommand(["INFO", "server"])))?.[1]));
  pids.push(own);
  await nodes.close();
}
/** User + system CPU ms of the processes so far (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
const cpuMs = (processes: number[]) =>
  processes.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return sum + (Number(fields[11]) + Number(fields[12])) * 10;
  }, 0);

const user = users[0]!;
const calls: Record<string, (store: MemoryStore, rng: () => number) => Promise<unknown>> = {
  list: (store) => store.listMemories(user, {}, { limit: 10, offset: 0 }, now),
  searchText: (store, rng) => store.searchText(user, queryTerms(syntheticQuery(rng)), {}, 10, now),
  nearest: (store, rng) => store.nearest(user, Float32Array.from({ length: dim }, () => rng() - 0.5), {}, 10, now),
  stats: (store) => store.stats(user, now),
};
const samples = new Map<string, number[]>();
const cpu = new Map<string, number>();
const order = prng(7);
for (const [name, call] of Object.entries(calls)) {
  const before = pids.map(cpuMs);
  for (let q = 0; q < queries; q++) {
    const first = order() < 0.5 ? 0 : 1;
    for (const i of [first, 1 - first]) {
      const started = performance.now();
      await call(stores[i]!, prng(q + 1000)); // the same query on both
      const key = `${name}\u0000${i}`;
      samples.set(key, [...(samples.get(key) ?? []), performance.now() - started]);
    }
  }
  pids.forEach((processes, i) => cpu.set(`${name}\u0000${i}`, (cpuMs(processes) - before[i]!) / queries));
}

console.log(`\n${walletCount} wallets × ${perWallet} memories (${dim}-d), ${queries} queries per call on the first wallet, interleaved\n`);
printTable(
  ["call", ...deployments.flatMap((d) => [`${d.label} p50 ms`, "p95", "server CPU ms"]), "cluster / standalone (p50, CPU)"],
  Object.keys(calls).map((name) => {
    const [a, b] = [0, 1].map((i) => percentiles(samples.get(`${name}\u0000${i}`)!));
    const [ca, cb] = [0, 1].map((i) => cpu.get(`${name}\u0000${i}`)!);
    return [name, a!.p50.toFixed(2), a!.p95.toFixed(2), ca!.toFixed(2), b!.p50.toFixed(2), b!.p95.toFixed(2), cb!.toFixed(2), `${(b!.p50 / a!.p50).toFixed(2)}×, ${(cb! / ca!).toFixed(2)}×`];
  }),
);

for (const store of stores) await store.close();
for (const { url } of deployments) {
  const nodes = await connectRedis(url);
  await dropRedisPrefix(nodes, prefix);
  await nodes.close();
}
