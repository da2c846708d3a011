/**
 * Which hybrid KNN policy a wallet's filtered vector query should ask for, on one server and on a
 * Redis Cluster (src/store/redis/knn-policy.ts), and what the index size it decides from reads as.
 *
 *   bun scripts/bench/knn-policy.ts --url redis://127.0.0.1:7001 [--url redis://127.0.0.1:6379 …]
 *                                   [--memories 20000] [--others 4] [--other-memories 4000] [--queries 300] [--dim 128]
 *
 * Per URL: one wallet with --memories memories and --others wallets with --other-memories each
 * (random --dim vectors, the engine's own writes), then the k = 40 KNN query of `nearest` on the
 * first wallet, with the engine's choice and with HYBRID_POLICY BATCHES, interleaved in random
 * order, client-side ms p50 / p95. Also prints what FT.INFO's num_docs answers on the wallet's
 * master, the true number of documents (a count query), the masters, the wallet's count, and the
 * wallet's share as the policy computes it, and what FT.INFO and the count query cost (p50 of 20). The prefix is removed afterwards.
 */
import { parseArgs } from "node:util";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { connectRedis } from "../../src/store/redis/client.ts";
import { Keys } from "../../src/store/redis/keys.ts";
import { knnQuery, memoryFilterQuery, tagAnyOf } from "../../src/store/redis/query.ts";
import { vectorBlob } from "../../src/store/redis/memory-doc.ts";
import { dropRedisPrefix, percentiles, printTable } from "./bench-util.ts";
import { fillRandomVectors, prng } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    url: { type: "string", multiple: true },
    memories: { type: "string", default: "20000" },
    others: { type: "string", default: "4" },
    "other-memories": { type: "string", default: "4000" },
    queries: { type: "string", default: "300" },
    dim: { type: "string", default: "128" },
  },
});
if (!args.url?.length) throw new Error("give --url redis://… (a standalone server or a node of a cluster; repeat for several)");
const dim = Number(args.dim);
const queries = Number(args.queries);
const now = Date.now();
const rows: string[][] = [];

for (const url of args.url) {
  const prefix = `engram-bench-knn-${Date.now()}:`;
  const keys = new Keys(prefix);
  const store = await RedisStore.connect(url, { keyPrefix: prefix });
  await store.bindEmbeddingModel({ id: "knn-policy-bench", dimension: dim });
  const nodes = await connectRedis(url);
  try {
    const main = crypto.randomUUID();
    const wallets: [string, number][] = [[main, Number(args.memories)], ...Array.from({ length: Number(args.others) }, () => [crypto.randomUUID(), Number(args["other-memories"])] as [string, number])];
    const rng = prng(1);
    for (const [userId, count] of wallets) {
      await fillRandomVectors(store, userId, count, dim, rng, now, (done) => process.stderr.write(`\r[knn] ${url}: ${userId.slice(0, 8)} ${done}/${count}   `));
    }
    process.stderr.write("\n");
    const at = nodes.at(keys.slot(main));
    const info = (await at.sendCommand(["FT.INFO", keys.index])) as unknown[];
    const numDocs = Number(info[info.findIndex((f) => String(f) === "num_docs") + 1]);
    const count = async (query: string) => Number(((await at.sendCommand(["FT.SEARCH", keys.index, query, "LIMIT", "0", "0", "DIALECT", "2"])) as unknown[])[0]);
    const total = await count("*");
    const mine = await count(tagAnyOf("user_id", [main]));
    const masters = (await nodes.masters()).length;
    const cost = async (command: string[]) => {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await at.sendCommand(command);
        times.push(performance.now() - started);
      }
      return percentiles(times).p50.toFixed(2);
    };
    const infoMs = await cost(["FT.INFO", keys.index]);
    const countMs = await cost(["FT.SEARCH", keys.index, "*", "LIMIT", "0", "0", "DIALECT", "2"]);

    const samples: number[][] = [[], []];
    const order = prng(7);
    for (let q = 0; q < queries; q++) {
      const vector = Float32Array.from({ length: dim }, () => order() - 0.5);
      const first = order() < 0.5 ? 0 : 1;
      for (const i of [first, 1 - first]) {
        const query = knnQuery(memoryFilterQuery(main, {}, now), i === 0 ? "" : " HYBRID_POLICY BATCHES");
        const started = performance.now();
        await at.sendCommand(["FT.SEARCH", keys.index, query, "PARAMS", "4", "k", "40", "vec", vectorBlob(vector), "RETURN", "1", "dist", "LIMIT", "0", "40", "DIALECT", "2"]);
        samples[i]!.push(performance.now() - started);
      }
    }
    const [own, batches] = samples.map(percentiles);
    rows.push([
      `${nodes.cluster ? `cluster, ${masters} masters` : "standalone"}`,
      String(numDocs), String(total), `${infoMs} / ${countMs}`, String(mine), (mine / numDocs).toFixed(3), (mine / (total / masters)).toFixed(3),
      `${own!.p50.toFixed(2)} / ${own!.p95.toFixed(2)}`, `${batches!.p50.toFixed(2)} / ${batches!.p95.toFixed(2)}`,
    ]);
    console.error(`[knn] ${rows.at(-1)!.join(" | ")}`);
  } finally {
    await store.close();
    await dropRedisPrefix(nodes, prefix).catch((error: Error) => console.error(`[knn] could not remove ${prefix}* (${error.message}): remove it by hand`));
    await nodes.close();
  }
}

console.log(`\nk = 40 KNN on one wallet, ${queries} queries, interleaved; ms p50 / p95 (client side)\n`);
printTable(["deployment", "FT.INFO num_docs", "documents (count query)", "ms p50: FT.INFO / count query", "wallet's documents", "share by num_docs", "share of a master's mean", "engine's choice", "HYBRID_POLICY BATCHES"], rows);
