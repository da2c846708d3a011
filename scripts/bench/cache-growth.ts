/**
 * Anonymous memory per memory added to cached wallets, in process: the embedded engine alone (no
 * HTTP, no model), next to the cache's own accounting. What `scripts/soak.ts --writes add` measures
 * through the service, without the service around it.
 *
 *   bun scripts/bench/cache-growth.ts [--wallets 8] [--start 4000] [--add 10000] [--batch 20] [--idle 10]
 *
 * Fills --wallets wallets with --start synthetic memories each (random 128-d vectors), has each
 * cached (a keyword and a vector search, as a recall makes), then adds --add more to each in batches
 * of --batch, searching each wallet every 2,000 so it stays cached and current (wallets past
 * 16,384 rows have their vector searches run by the scan thread, which is sent their columns). RssAnon, the cache's accounting and the JS
 * heap are read after --idle s without work, then again after forced collections.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heapStats } from "bun:jsc";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import { newMemory } from "../../src/domain/memory.ts";
import { fillRandomVectors, prng, syntheticMemory } from "./synthetic.ts";
import { printTable } from "./bench-util.ts";

const { values: args } = parseArgs({
  options: {
    wallets: { type: "string", default: "8" },
    start: { type: "string", default: "4000" },
    add: { type: "string", default: "10000" },
    batch: { type: "string", default: "20" },
    idle: { type: "string", default: "10" },
  },
});
const [wallets, start, add, batch, idle] = [args.wallets, args.start, args.add, args.batch, args.idle].map(Number) as [number, number, number, number, number];
if (!(wallets >= 1 && start >= 1 && add >= batch && batch >= 1 && idle >= 0)) throw new Error("--wallets ≥ 1, --start ≥ 1, --batch ≥ 1, --add ≥ --batch, --idle ≥ 0");
const log = (line: string) => process.stderr.write(`[cache-growth] ${line}\n`);

const dir = mkdtempSync(join(tmpdir(), "engram-cache-growth-"));
const store = new SqliteStore(dir);
const rng = prng(7);
const users = Array.from({ length: wallets }, (_, i) => `user-${i}`);
const cache = () => (store as unknown as { vectors: { cached(): { rows: number; bytes: number } } }).vectors.cached();
const rssAnon = () => anonymousRss() ?? 0;

/** What a recall asks of a wallet's cache: a keyword search and a vector search (large wallets' on the scan thread). */
async function search(user: string): Promise<void> {
  await store.searchText(user, ["coffee"], {}, 10, Date.now());
  await store.nearest(user, Float32Array.from({ length: 128 }, () => rng() - 0.5), {}, 10, Date.now());
}

/** Searches every wallet until each is cached with `rows` memories (a large wallet loads in the background). */
async function cachedWith(rows: number): Promise<void> {
  for (let i = 0; ; i++) {
    for (const u of users) await search(u);
    if (cache().rows >= rows) return;
    if (i > 600) throw new Error(`the wallets are not cached after 60 s (${cache().rows} of ${rows} rows)`);
    await Bun.sleep(100);
  }
}

async function reading(): Promise<{ idle: Snapshot; collected: Snapshot }> {
  await Bun.sleep(idle * 1000);
  const at = snapshot();
  for (let i = 0; i < 3; i++) {
    Bun.gc(true);
    await Bun.sleep(300);
  }
  return { idle: at, collected: snapshot() };
}
type Snapshot = { rss: number; accounted: number; heap: number };
const snapshot = (): Snapshot => ({ rss: rssAnon(), accounted: cache().bytes, heap: heapStats().heapSize });

for (const [i, u] of users.entries()) {
  await fillRandomVectors(store, u, start, 128, rng, Date.now());
  log(`filled ${i + 1}/${wallets} wallets with ${start}`);
}
await cachedWith(wallets * start);
const before = await reading();
for (let done = 0; done < add; done += batch) {
  for (const u of users) {
    await store.insertMemories(
      Array.from({ length: batch }, () => {
        const s = syntheticMemory(rng);
        const memory = newMemory({ user_id: u, content: s.content, namespace: s.namespace, memory_type: s.memory_type, importance: s.importance }, new Date().toISOString());
        return { memory, embedding: Float32Array.from({ length: 128 }, () => rng() - 0.5), content_hash: memory.id };
      }),
    );
  }
  if ((done + batch) % 2000 === 0) {
    for (const u of users) await search(u);
    log(`added ${done + batch}/${add} to each wallet, RssAnon ${(rssAnon() / 2 ** 20).toFixed(1)} MiB`);
  }
}
await cachedWith(wallets * (start + add));
const after = await reading();
await store.close();
rmSync(dir, { recursive: true, force: true });

const added = wallets * add;
const per = (a: number, b: number) => ((b - a) / added).toFixed(0);
console.log(`\n${wallets} wallets, ${start} → ${start + add} synthetic memories each (128-d), added in batches of ${batch}; per memory added (bytes):\n`);
printTable(
  ["reading", "RssAnon", "the cache's accounting", "ratio", "JS heap (live)"],
  (["idle", "collected"] as const).map((k) => [
    k === "idle" ? `after ${idle} s idle` : "after forced collections",
    per(before[k].rss, after[k].rss),
    per(before[k].accounted, after[k].accounted),
    ((after[k].rss - before[k].rss) / (after[k].accounted - before[k].accounted)).toFixed(2),
    per(before[k].heap, after[k].heap),
  ]),
);
process.exit(0);
