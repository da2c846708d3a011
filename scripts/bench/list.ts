/**
 * List and keyword-search cost in-process (no HTTP): GET /v1/memories' store call answered by the
 * per-user cache (vector-index.ts: sorted slots + one pass) against its SQL answer (a count and a
 * sort), on a data dir filled by scripts/bench/throughput.ts (default /tmp/tp10k: 10k memories).
 *
 *   bun scripts/bench/list.ts [--data-dir /tmp/tp10k] [--n 2000]
 *
 * Prints ms p50 / p95 / p99 per call. One thread, so it is less sensitive to a shared machine
 * than the wrk runs; still report the load average next to the numbers.
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { keywordSearch } from "../../src/domain/search.ts";
import type { MemoryFilter } from "../../src/domain/store-port";
import { percentiles, printTable } from "./bench-util.ts";
import { prng, syntheticQuery } from "./synthetic.ts";

const { values: args } = parseArgs({ options: { "data-dir": { type: "string", default: "/tmp/tp10k" }, n: { type: "string", default: "2000" } } });
const dataDir = resolve(args["data-dir"]!);
const n = Number(args.n);
const raw = new Database(join(dataDir, "engram.sqlite"), { readonly: true });
const { user_id: userId, rows } = raw.query("select user_id, count(*) as rows from memories group by user_id order by rows desc limit 1").get() as { user_id: string; rows: number };
raw.close();
const store = new SqliteStore(dataDir);
const now = Date.now();
const f = (ms: number) => ms.toFixed(3);

function time(label: string, call: (i: number) => unknown): string[] {
  for (let i = 0; i < Math.min(200, n); i++) call(i); // warm-up (and the cache's load)
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    call(i);
    samples.push(performance.now() - t);
  }
  const p = percentiles(samples);
  return [label, f(p.p50), f(p.p95), f(p.p99), Math.round(1000 / p.mean).toLocaleString("en-US")];
}

const page = (i: number) => ({ limit: 20, offset: (i % 50) * 20 });
const filtered: MemoryFilter = { namespace: "work" };
const rng = prng(3);
const queries = Array.from({ length: 200 }, () => syntheticQuery(rng));
const out: string[][] = [];
// the async calls finish synchronously on this engine; awaiting would time the microtask queue
out.push(time("list, first page (cache)", () => store.listMemories(userId, {}, { limit: 20, offset: 0 }, now)));
out.push(time("list, first page (SQL)", () => store.listMemoriesSql(userId, {}, { limit: 20, offset: 0 }, now)));
out.push(time("list, pages 1-50 (cache)", (i) => store.listMemories(userId, {}, page(i), now)));
out.push(time("list, pages 1-50 (SQL)", (i) => store.listMemoriesSql(userId, {}, page(i), now)));
out.push(time("list, namespace = work (cache)", (i) => store.listMemories(userId, filtered, page(i), now)));
out.push(time("list, namespace = work (SQL)", (i) => store.listMemoriesSql(userId, filtered, page(i), now)));
out.push(time("search (keywordSearch, limit 10)", (i) => keywordSearch(store, () => now, userId, queries[i % queries.length]!, {}, 10)));
await store.close();
console.log(`\n${rows.toLocaleString("en-US")} memories in the wallet, ${n} calls each; load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}\n`);
printTable(["call", "p50 ms", "p95 ms", "p99 ms", "calls/s (1 / mean)"], out);
