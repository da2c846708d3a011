/**
 * Redis server settings compared on the same recall stream, interleaved so that a shared machine's
 * load falls on every setting alike: the real `Recall.run` (limit 5, access counting on, as
 * recall.ts measures it) on the main wallet of a key prefix `recall.ts --engine redis` left in place.
 *
 *   bun scripts/bench/redis-ab.ts --spec '[{"label":"raw","url":"redis://127.0.0.1:6382","prefix":"engram-bench-…:"},
 *                                          {"label":"default","url":"redis://127.0.0.1:6383","prefix":"engram-bench-…:"}]'
 *                                 [--queries 1000] [--block 25] [--seed 1]
 *
 * Each entry is one server (url) with the commands to send it before its turn (`set`, e.g.
 * [["CONFIG","SET","search-workers","2"]]; entries with the same url and `set` form one setting).
 * Settings that need a restart (load-time module arguments) are compared as two servers holding
 * the same data: `SAVE` on one, start the other from that RDB file with the other setting.
 * Per block of queries the settings take turns in random order (each applying its `set` first) and
 * run the block's queries; entries of one setting alternate per query in random order. Prints
 * p50 / p95 / p99 ms per entry of the recall and of its two searches (`nearest`, `searchText`: as
 * the client waits for them, queueing included).
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { Recall } from "../../src/domain/recall.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { connectClient, type RedisClient } from "../../src/store/redis/client.ts";
import { percentiles, timedCalls, startBenchEmbedder } from "./bench-util.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    spec: { type: "string" },
    queries: { type: "string", default: "1000" },
    block: { type: "string", default: "25" },
    seed: { type: "string", default: "1" },
  },
});
interface Entry {
  label: string;
  url: string;
  prefix: string;
  set?: string[][];
}
if (!args.spec) throw new Error("--spec is required (a JSON list of {label, url, prefix, set?})");
const entries = JSON.parse(args.spec) as Entry[];
const n = Number(args.queries);
const block = Number(args.block);
const seed = Number(args.seed);
const cacheDir = resolve(process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));

const embedder = await startBenchEmbedder(cacheDir);
const admins = new Map<string, RedisClient>();
for (const e of entries) if (!admins.has(e.url)) admins.set(e.url, await connectClient(e.url));
// recall.ts's main wallet and query stream: same derivation, same seed
const address = privateKeyToAccount(`0x${createHash("sha256").update(`engram-bench-${seed}-main`).digest("hex")}` as Hex).address;

interface Runner {
  entry: Entry;
  run: (query: string) => Promise<unknown>;
  /** store call durations of the current recall */
  calls: Map<string, number[]>;
  close: () => Promise<void>;
}
let timing = false;
const settings = new Map<string, Runner[]>();
for (const entry of entries) {
  const store = await RedisStore.connect(entry.url, { keyPrefix: entry.prefix });
  const userId = await store.userIdForWallet(address);
  const calls = new Map<string, number[]>();
  const timed = timedCalls(store, (method, ms) => void (calls.get(method) ?? calls.set(method, []).get(method)!).push(ms), () => timing);

  const recall = new Recall(timed, embedder, Date.now);
  const key = `${entry.url} ${JSON.stringify(entry.set ?? [])}`;
  (settings.get(key) ?? settings.set(key, []).get(key)!).push({
    entry,
    calls,
    run: (query) => recall.run(userId, { query, limit: 5, min_similarity: 0, include_relations: false, record_access: true, filter: {} }),
    close: () => store.close(),
  });
}
const apply = async (runners: Runner[]) => {
  for (const command of runners[0]!.entry.set ?? []) await admins.get(runners[0]!.entry.url)!.sendCommand(command);
};
const rng = prng(seed * 7919 + 1);
const texts = Array.from({ length: n }, () => syntheticQuery(rng));
const shuffled = <T>(xs: T[]): T[] => {
  const ys = [...xs];
  for (let i = ys.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [ys[i], ys[j]] = [ys[j]!, ys[i]!];
  }
  return ys;
};

// warm-up: 100 recalls per entry (and the KNN policy's estimates)
for (const runners of settings.values()) {
  await apply(runners);
  for (const r of runners) for (const q of texts.slice(0, Math.min(100, n))) await r.run(q);
}
const samples = new Map<string, number[]>();
const add = (key: string, ms: number) => void (samples.get(key) ?? samples.set(key, []).get(key)!).push(ms);
for (let start = 0; start < n; start += block) {
  for (const runners of shuffled([...settings.values()])) {
    await apply(runners);
    for (const q of texts.slice(start, start + block)) {
      for (const r of shuffled(runners)) {
        r.calls.clear();
        timing = true;
        const t = performance.now();
        await r.run(q);
        add(r.entry.label, performance.now() - t);
        timing = false;
        await Bun.sleep(0); // the timing callbacks of this recall's calls
        for (const [call, xs] of r.calls) for (const x of xs) add(`${r.entry.label} ${call}`, x);
      }
    }
  }
}

const fmt = (xs: number[] | undefined) => {
  if (!xs?.length) return "—";
  const p = percentiles(xs);
  return [p.p50, p.p95, p.p99].map((v) => v.toFixed(2)).join(" / ");
};
console.log(`\n## Redis settings A/B: ${n} recalls per entry, blocks of ${block}, ms p50 / p95 / p99\n`);
console.log("| entry | recall | store.nearest | store.searchText |");
console.log("|---|---|---|---|");
for (const { label } of entries) {
  console.log(`| ${label} | ${fmt(samples.get(label))} | ${fmt(samples.get(`${label} nearest`))} | ${fmt(samples.get(`${label} searchText`))} |`);
}
for (const runners of settings.values()) for (const r of runners) await r.close();
for (const admin of admins.values()) await admin.close();
await embedder.close();
process.exit(0);
