/**
 * How evenly a Redis Cluster holds the wallets: many wallets written through the engine (each
 * wallet's keys share its hash tag, so a wallet is one slot on one master), then the keys under the
 * bench's prefix counted on every master, against the mean.
 *
 *   bun scripts/bench/cluster-balance.ts --redis-url redis://127.0.0.1:7001 [--wallets 1000] [--memories 3]
 *
 * Per wallet: its id (the wallet hash, in the address's own slot), `--memories` memories (documents,
 * the wallet's sequence counter), one relation (record and two adjacency sets), one history entry
 * and one recalled memory (the access hash). Keys are counted with SCAN on each master; the prefix
 * is removed afterwards.
 */
import { parseArgs } from "node:util";
import { newMemory } from "../../src/domain/memory.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { connectRedis } from "../../src/store/redis/client.ts";
import { Keys } from "../../src/store/redis/keys.ts";
import { printTable } from "./bench-util.ts";

const { values: args } = parseArgs({
  options: {
    "redis-url": { type: "string", default: process.env.REDIS_URL },
    wallets: { type: "string", default: "1000" },
    memories: { type: "string", default: "3" },
  },
});
const url = args["redis-url"];
if (!url) throw new Error("give --redis-url (a node of the cluster) or REDIS_URL");
const wallets = Number(args.wallets);
const perWallet = Number(args.memories);
const prefix = `engram-bench-balance-${Date.now()}:`;
const keys = new Keys(prefix);
const DIM = 8;

const nodes = await connectRedis(url);
if (!nodes.cluster) console.error(`[balance] ${url} is a standalone server: one master holds everything`);
const store = await RedisStore.connect(url, { keyPrefix: prefix });
await store.bindEmbeddingModel({ id: "balance-bench", dimension: DIM });

const started = Date.now();
const walletsOn = new Map<string, number>();
for (let w = 0; w < wallets; w++) {
  const address = `0x${w.toString(16).padStart(40, "0")}`;
  const userId = await store.userIdForWallet(address);
  walletsOn.set(nodes.nodeOf(keys.slot(userId)), (walletsOn.get(nodes.nodeOf(keys.slot(userId))) ?? 0) + 1);
  const at = new Date().toISOString();
  const memories = Array.from({ length: perWallet }, (_, i) => newMemory({ user_id: userId, content: `wallet ${w} memory ${i}` }, at));
  await store.insertMemories(memories.map((memory) => ({ memory, embedding: Float32Array.from({ length: DIM }, () => Math.random()), content_hash: memory.id })));
  const [a, b] = memories;
  if (a && b) await store.createRelation(userId, { id: crypto.randomUUID(), source_id: a.id, target_id: b.id, relation_type: "related_to", metadata: {}, created_at: at });
  if (a) {
    await store.updateMemory(userId, { memory: { ...a, importance: 0.9 }, history: { id: crypto.randomUUID(), memory_id: a.id, changes: { importance: 0.9 }, created_at: at } as never });
    await store.recordAccess(userId, [a.id], Date.now());
  }
  if ((w + 1) % 100 === 0) process.stderr.write(`\r[balance] ${w + 1}/${wallets} wallets written`);
}
await store.close(); // writes the pending access counts
process.stderr.write(`\n[balance] written in ${((Date.now() - started) / 1000).toFixed(1)} s; counting keys per master\n`);

const counts: { name: string; keys: number }[] = [];
for (const master of await nodes.masters()) {
  let n = 0;
  let cursor = "0";
  do {
    const [next, found] = (await master.commands.sendCommand(["SCAN", cursor, "MATCH", `${prefix}*`, "COUNT", "1000"])) as [string, string[]];
    cursor = next;
    n += found.length;
    await Promise.all(found.map((key) => master.commands.sendCommand(["UNLINK", key])));
  } while (cursor !== "0");
  await master.commands.sendCommand(["FT.DROPINDEX", keys.index]).catch(() => {});
  counts.push({ name: master.name, keys: n });
}
await nodes.close();

const mean = counts.reduce((s, c) => s + c.keys, 0) / counts.length;
console.log(`\n${wallets} wallets × ${perWallet} memories on ${counts.length} masters (${url})\n`);
printTable(
  ["master", "wallets", "keys", "vs mean"],
  counts.map((c) => [c.name, String(walletsOn.get(c.name) ?? 0), String(c.keys), `${(((c.keys - mean) / mean) * 100).toFixed(1)}%`]),
);
const worst = Math.max(...counts.map((c) => Math.abs(c.keys - mean) / mean));
console.log(`\nlargest deviation from the mean: ${(worst * 100).toFixed(1)}% (${worst <= 0.15 ? "within" : "outside"} ±15%)`);
