/**
 * Where a Redis recall's query time goes: the FT.SEARCH forms recall can send, timed one at a time
 * against a wallet that `recall.ts --engine redis` filled (it leaves its key prefix in place), so a
 * form can be compared with another on the same data without refilling.
 *
 *   REDIS_URL=redis://127.0.0.1:6380 bun scripts/bench/redis-queries.ts --prefix engram-bench-…: [--queries 300] [--seed 1]
 *                                    [--profile]   (also prints FT.PROFILE of the first query's keyword and KNN forms)
 *                                    [--only REGEX] (the forms whose name matches)
 *                                    [--hnsw]      (also recall@40 of the HNSW query at EF_RUNTIME default / 100 / 200
 *                                                   against HYBRID_POLICY ADHOC_BF, which computes every distance: exact)
 *
 * The wallet is recall.ts's main wallet (same --seed), the queries its synthetic queries. Each form
 * runs every query once after a warm-up pass; the table gives client-side ms p50 / p95 / p99 per
 * query (loopback round trip included), in the order listed. Forms:
 *  - keyword: the engine's BM25 query over the union of the query's terms (with the wallet filter),
 *    LIMIT 40, returning whole records + embeddings (first), ranking fields + embedding arrays, ranking
 *    fields + base64 vectors (before; documents written before `vec` existed return no vector), ids only
 *    (now: the engine reads the hits' ranking fields and vectors with one JSON.MGET after it);
 *  - keyword, rarest terms: the same limited to the 2 / 3 rarest terms (a cheaper query: fewer postings);
 *  - knn: the k = 40 vector query with the wallet filter (HYBRID_POLICY BATCHES, as KnnPolicy picks for
 *    a wallet holding most of the index), returning whole records (first), ranking fields (before), the
 *    distances only (now), and with EF_RUNTIME 100 / 200.
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { createClient } from "redis";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { queryTerms } from "../../src/domain/text.ts";
import { knnQuery, memoryFilterQuery, textAnyOf } from "../../src/store/redis/query.ts";
import { vectorBlob } from "../../src/store/redis/memory-doc.ts";
import { percentiles, printTable, startBenchEmbedder } from "./bench-util.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    prefix: { type: "string" },
    queries: { type: "string", default: "300" },
    seed: { type: "string", default: "1" },
    profile: { type: "boolean", default: false },
    only: { type: "string" },
    hnsw: { type: "boolean", default: false },
  },
});
const url = process.env.REDIS_URL;
if (!url || !args.prefix) throw new Error("set REDIS_URL and --prefix (the key prefix recall.ts printed)");
const prefix = args.prefix;
const seed = Number(args.seed);
const n = Number(args.queries);
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));

const client = createClient({ url, RESP: 2 });
await client.connect();
const index = `${prefix}idx:memories`;
// recall.ts's main wallet: same derivation, same seed
const address = privateKeyToAccount(`0x${createHash("sha256").update(`engram-bench-${seed}-main`).digest("hex")}` as Hex).address;
const userId = (await client.sendCommand(["HGET", `${prefix}wallet:${address.toLowerCase()}`, "user_id"])) as string | null;
if (!userId) throw new Error(`no main wallet under ${prefix} (seed ${seed})`);
const walletSize = Number(((await client.sendCommand(["FT.SEARCH", index, `@user_id:{${userId.replace(/-/g, "\\-")}}`, "LIMIT", "0", "0", "DIALECT", "2"])) as unknown[])[0]);

const embedder = await startBenchEmbedder(cacheDir);
const rng = prng(seed * 7919 + 1); // recall.ts's query stream
const texts = Array.from({ length: n }, () => syntheticQuery(rng));
const { vectors } = await embedder.embed(texts);
await embedder.close();

/** Document frequency of each term in the wallet (to pick the rarest). */
const dfCache = new Map<string, number>();
async function df(term: string, filter: string): Promise<number> {
  if (!dfCache.has(term)) {
    const q = `${textAnyOf([term])} ${filter}`;
    dfCache.set(term, Number(((await client.sendCommand(["FT.SEARCH", index, q, "LIMIT", "0", "0", "DIALECT", "2"])) as unknown[])[0]));
  }
  return dfCache.get(term)!;
}

const REF = ["created_at", "memory_type", "importance", "access_count", "pinned"];
/** the ranking fields that are SORTABLE in the index (pinned is not): served from the sorting vector */
const SORTABLES = REF.filter((f) => f !== "pinned");
const now = Date.now();
const filter = memoryFilterQuery(userId, {}, now);

type Form = { name: string; build: (i: number) => Promise<(string | Buffer)[] | null> };
const text = (terms: string[], ret: string[]) => {
  const t = textAnyOf(terms);
  return t === null ? null : ["FT.SEARCH", index, `${t} ${filter}`, "WITHSCORES", "SCORER", "BM25STD", ...ret, "LIMIT", "0", "40", "DIALECT", "2"];
};
const rarest = async (i: number, keep: number) => {
  const terms = queryTerms(texts[i]!);
  const counted = await Promise.all(terms.map(async (t) => ({ t, n: await df(t, filter) })));
  return counted.sort((a, b) => a.n - b.n).slice(0, keep).map((c) => c.t);
};
const knn = (i: number, ret: string[], ef?: number, policy = " HYBRID_POLICY BATCHES") => [
  "FT.SEARCH", index, knnQuery(filter, policy as " HYBRID_POLICY BATCHES").replace(" AS dist]", ef ? ` EF_RUNTIME ${ef} AS dist]` : " AS dist]"),
  "PARAMS", "4", "k", "40", "vec", vectorBlob(vectors[i]!), ...ret, "LIMIT", "0", "40", "DIALECT", "2",
];
const forms: Form[] = [
  { name: "keyword, whole records + embeddings (first)", build: async (i) => text(queryTerms(texts[i]!), ["RETURN", "2", "$.m", "$.embedding"]) },
  { name: "keyword, ranking fields + embedding arrays", build: async (i) => text(queryTerms(texts[i]!), ["RETURN", String(REF.length + 1), ...REF, "$.embedding"]) },
  { name: "keyword, ranking fields + base64 vectors (before)", build: async (i) => text(queryTerms(texts[i]!), ["RETURN", String(REF.length + 1), ...REF, "$.vec"]) },
  { name: "keyword, sortable ranking fields only", build: async (i) => text(queryTerms(texts[i]!), ["RETURN", String(SORTABLES.length), ...SORTABLES]) },
  { name: "keyword, ranking fields only", build: async (i) => text(queryTerms(texts[i]!), ["RETURN", String(REF.length), ...REF]) },
  { name: "keyword, ids only (NOCONTENT; now)", build: async (i) => text(queryTerms(texts[i]!), ["NOCONTENT"]) },
  { name: "keyword, 3 rarest terms, ids only", build: async (i) => text(await rarest(i, 3), ["NOCONTENT"]) },
  { name: "keyword, 2 rarest terms, ids only", build: async (i) => text(await rarest(i, 2), ["NOCONTENT"]) },
  { name: "knn k=40, whole records (first)", build: async (i) => knn(i, ["RETURN", "2", "$.m", "dist"]) },
  { name: "knn k=40, ranking fields (before)", build: async (i) => knn(i, ["RETURN", String(REF.length + 1), ...REF, "dist"]) },
  { name: "knn k=40, sortable ranking fields", build: async (i) => knn(i, ["RETURN", String(SORTABLES.length + 1), ...SORTABLES, "dist"]) },
  { name: "knn k=40, dist only (now)", build: async (i) => knn(i, ["RETURN", "1", "dist"]) },
  { name: "knn k=40, dist only, EF_RUNTIME 100", build: async (i) => knn(i, ["RETURN", "1", "dist"], 100) },
  { name: "knn k=40, dist only, EF_RUNTIME 200", build: async (i) => knn(i, ["RETURN", "1", "dist"], 200) },
];

const rows: string[][] = [];
for (const form of forms.filter((f) => !args.only || new RegExp(args.only).test(f.name))) {
  const commands = [];
  for (let i = 0; i < n; i++) commands.push(await form.build(i));
  for (const c of commands) if (c) await client.sendCommand(c); // warm-up
  const ms: number[] = [];
  let hits = 0;
  for (const c of commands) {
    if (!c) continue;
    const t = performance.now();
    const reply = (await client.sendCommand(c)) as unknown[];
    ms.push(performance.now() - t);
    hits += Number(reply[0]);
  }
  const p = percentiles(ms);
  rows.push([form.name, p.p50.toFixed(2), p.p95.toFixed(2), p.p99.toFixed(2), (hits / ms.length).toFixed(0)]);
  console.error(`[queries] ${form.name}: p50 ${p.p50.toFixed(2)} ms`);
}
const info = (await client.sendCommand(["INFO", "server"])) as string;
console.log(`\n## Redis query forms: ${info.match(/redis_version:(\S+)/)?.[1]}, wallet of ${walletSize.toLocaleString("en-US")} memories, ${n} queries\n`);
printTable(["form", "p50 ms", "p95 ms", "p99 ms", "matches (mean)"], rows);

if (args.hnsw) {
  const keysOf = (reply: unknown) => new Set(((reply as unknown[]).slice(1).filter((_, j) => j % 2 === 0)).map(String));
  const settings: [string, number | undefined][] = [["EF_RUNTIME default (10; k = 40 searched)", undefined], ["EF_RUNTIME 100", 100], ["EF_RUNTIME 200", 200]];
  const found = settings.map(() => 0);
  for (let i = 0; i < n; i++) {
    const exact = keysOf(await client.sendCommand(knn(i, ["RETURN", "1", "dist"], undefined, " HYBRID_POLICY ADHOC_BF")));
    for (const [s, [, ef]] of settings.entries()) {
      for (const key of keysOf(await client.sendCommand(knn(i, ["RETURN", "1", "dist"], ef)))) if (exact.has(key)) found[s]!++;
    }
  }
  console.log(`\nHNSW recall@40 against an exact scan (ADHOC_BF), ${n} queries:\n`);
  printTable(["setting", "recall@40"], settings.map(([name], s) => [name, (found[s]! / (40 * n)).toFixed(3)]));
}

if (args.profile) {
  for (const form of [forms.find((f) => f.name.includes("now)") && f.name.startsWith("keyword"))!, forms.find((f) => f.name.includes("now)") && f.name.startsWith("knn"))!]) {
    const c = (await form.build(0))!;
    const reply = await client.sendCommand(["FT.PROFILE", index, "SEARCH", "QUERY", ...c.slice(2)]);
    console.log(`\nFT.PROFILE, ${form.name}, query "${texts[0]}":\n`);
    console.log("```\n" + JSON.stringify((reply as unknown as unknown[])[1], null, 1).replace(/\n\s*/g, " ").slice(0, 4000) + "\n```");
  }
}
await client.close();
process.exit(0);
