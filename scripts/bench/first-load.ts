/**
 * First search of a large wallet: event-loop stall and latency, with the wallet's cache loaded
 * synchronously (syncLoadMaxRows = Infinity, the previous behaviour) and in the background (default).
 *
 *   bun scripts/bench/first-load.ts [--rows 100000] [--dim 100] [--seed 1]
 *
 * One wallet is filled with synthetic memories (text from synthetic.ts, random vectors: load cost
 * does not depend on their values). For each mode a fresh SqliteStore (empty cache) runs a first
 * recall-like search (nearest k=40, then keyword search limit 10) while a 1 ms setInterval ticker
 * records the largest gap between its ticks; then waits for the background load to finish (ticker
 * still running) and times a few cached searches.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Memory } from "../../src/domain/memory.ts";
import type { StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { vectorIndexCounters, type VectorIndex, type VectorIndexOptions } from "../../src/store/sqlite/vector-index.ts";
import { prng, syntheticMemory } from "./synthetic.ts";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    dim: { type: "string", default: "100" },
    seed: { type: "string", default: "1" },
  },
});
const N = Number(args.rows);
const D = Number(args.dim);
const rng = prng(Number(args.seed));
const NOW = Date.now();
const USER = "bench-user";
const log = (m: string) => console.error(`[first-load] ${m}`);
const f = (ms: number) => ms.toFixed(1);

const dir = mkdtempSync(join(tmpdir(), "engram-first-load-"));
const vector = () => Float32Array.from({ length: D }, () => rng() * 2 - 1);
{
  const store = new SqliteStore(dir);
  await store.bindEmbeddingModel({ id: "bench-random", dimension: D });
  const t0 = performance.now();
  for (let i = 0; i < N; i += 5000) {
    const batch: StoredMemory[] = [];
    for (let j = i; j < Math.min(N, i + 5000); j++) {
      const s = syntheticMemory(rng);
      const at = new Date(NOW - s.age_ms).toISOString();
      const memory: Memory = {
        id: crypto.randomUUID(), user_id: USER, namespace: s.namespace, content: s.content, metadata: { tags: s.tags },
        importance: s.importance, memory_type: s.memory_type, session_id: s.session_id, agent_id: s.agent_id, pinned: s.pinned,
        immutable: false, expires_at: null, created_at: at, updated_at: at, accessed_at: at, access_count: 0, deleted_at: null,
      };
      batch.push({ memory, embedding: vector(), content_hash: `h${j}` });
    }
    await store.insertMemories(batch);
  }
  log(`filled ${N} rows at ${D}-d in ${f(performance.now() - t0)} ms`);
  await store.close();
}

/** Largest gap between ticks of a 1 ms interval while it runs. */
function ticker() {
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    max = Math.max(max, t - last);
    last = t;
  }, 1);
  return { stop: () => (clearInterval(timer), Math.max(max, performance.now() - last)) };
}

const terms = ["deploy", "database"];
async function run(label: string, options: VectorIndexOptions) {
  const store = new SqliteStore(dir, { vectorIndex: options });
  await store.bindEmbeddingModel({ id: "bench-random", dimension: D });
  const index = (store as unknown as { vectors: VectorIndex }).vectors;
  await Bun.sleep(20);
  const before = { ...vectorIndexCounters };
  const tick = ticker();
  const t0 = performance.now();
  await store.nearest(USER, vector(), {}, 40, NOW);
  const tVector = performance.now() - t0;
  const t1 = performance.now();
  await store.searchText(USER, terms, {}, 10, NOW);
  const tText = performance.now() - t1;
  const firstGap = (await Bun.sleep(5), tick.stop());
  const tick2 = ticker();
  const t2 = performance.now();
  await index.settled();
  const tLoad = performance.now() - t2;
  await Bun.sleep(5);
  const loadGap = tick2.stop();
  const t3 = performance.now();
  for (let i = 0; i < 20; i++) await store.nearest(USER, vector(), {}, 40, NOW);
  const tCachedVector = (performance.now() - t3) / 20;
  const t4 = performance.now();
  for (let i = 0; i < 20; i++) await store.searchText(USER, terms, {}, 10, NOW);
  const tCachedText = (performance.now() - t4) / 20;
  const c = vectorIndexCounters;
  console.log(
    `| ${label} | ${f(tVector)} | ${f(tText)} | ${f(firstGap)} | ${f(tLoad)} | ${f(loadGap)} | ${f(tCachedVector)} | ${f(tCachedText)} | ` +
      `${c.loads - before.loads} / ${c.backgroundLoads - before.backgroundLoads} / ${c.sqlScans - before.sqlScans} |`,
  );
  await store.close();
}

console.log(`\nFirst search of one ${N}-row wallet (${D}-d), fresh cache. Times in ms.\n`);
console.log("| load | first nearest | first keyword | max event-loop gap during first search | background load to completion | max gap during background load | cached nearest | cached keyword | loads / bg loads / sql scans |");
console.log("|---|---|---|---|---|---|---|---|---|");
await run("synchronous (syncLoadMaxRows = ∞)", { syncLoadMaxRows: Infinity });
await run("background (default)", {});
await run("background, 4096-row chunks", { loadChunkRows: 4096 });
rmSync(dir, { recursive: true, force: true });
