/**
 * How long the start-up move from key layout 1 to the current layout takes (src/store/redis/layout.ts):
 * a store written as layout 1 wrote it (test/helpers/legacy-layout.ts), with its search index live,
 * then moved, timed, and checked.
 *
 *   bun scripts/bench/layout-move.ts --redis-url redis://127.0.0.1:6379 [--memories 100000] [--wallets 100] [--dim 128]
 *
 * Per memory: its document (a `--dim` vector), in every fifth a history entry and an access count,
 * in every tenth an expiry; one relation per ten memories. The move runs on a standalone server
 * (layout 1 never ran on a cluster), over one connection, as at start-up. The prefix is removed
 * afterwards.
 */
import { parseArgs } from "node:util";
import { newMemory } from "../../src/domain/memory.ts";
import type { HistoryEntry } from "../../src/domain/history.ts";
import { connectRedis } from "../../src/store/redis/client.ts";
import { Keys } from "../../src/store/redis/keys.ts";
import { migrateLayout } from "../../src/store/redis/layout.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";
import { writeLayout1, type LegacyWallet } from "../../test/helpers/legacy-layout.ts";
import { printTable } from "./bench-util.ts";

const { values: args } = parseArgs({
  options: {
    "redis-url": { type: "string", default: process.env.REDIS_URL },
    memories: { type: "string", default: "100000" },
    wallets: { type: "string", default: "100" },
    dim: { type: "string", default: "128" },
  },
});
const url = args["redis-url"];
if (!url) throw new Error("give --redis-url (a standalone server) or REDIS_URL");
const total = Number(args.memories);
const walletCount = Number(args.wallets);
const dim = Number(args.dim);
const prefix = `engram-bench-layout-${Date.now()}:`;
const keys = new Keys(prefix);

const nodes = await connectRedis(url);
if (nodes.cluster) throw new Error(`${url} is a cluster: layout 1 only ever ran on a standalone server`);
const node = nodes.at(keys.meta);

// layout 1 as it was left: the index and the bound model in meta, no layout recorded
const first = await RedisStore.connect(url, { keyPrefix: prefix });
await first.bindEmbeddingModel({ id: "layout-bench", dimension: dim });
await first.close();
await node.sendCommand(["HDEL", keys.meta, "layout"]);

const now = Date.now();
const written = Date.now();
const perWallet = Math.ceil(total / walletCount);
for (let w = 0; w < walletCount; w++) {
  await writeLayout1(node, prefix, [wallet(w, Math.min(perWallet, total - w * perWallet))]);
  process.stderr.write(`\r[layout-move] writing layout 1: ${Math.min((w + 1) * perWallet, total)}/${total} memories`);
}
process.stderr.write(`\n[layout-move] written in ${((Date.now() - written) / 1000).toFixed(1)} s; moving\n`);

const info = async () => {
  const reply = (await node.sendCommand(["INFO", "memory"])) as string;
  return Number(/used_memory:(\d+)/.exec(reply)?.[1] ?? 0);
};
const memoryBefore = await info();
const started = performance.now();
await migrateLayout(nodes, prefix);
const seconds = (performance.now() - started) / 1000;

const moved = Number(((await node.sendCommand(["FT.SEARCH", keys.index, "*", "LIMIT", "0", "0"])) as unknown[])[0]);
console.log(`\nlayout 1 → ${await node.sendCommand(["HGET", keys.meta, "layout"])}: ${total} memories in ${walletCount} wallets, ${dim}-d, index live (${url})\n`);
printTable(
  ["memories", "wallets", "move (s)", "memories/s", "per million (extrapolated)", "Redis used memory"],
  [[String(total), String(walletCount), seconds.toFixed(1), String(Math.round(total / seconds)), `${((1e6 / total) * seconds / 60).toFixed(1)} min`, `${(memoryBefore / 2 ** 20).toFixed(0)} MiB`]],
);
console.log(`\nindexed after the move: ${moved} documents (expected ${total})`);

await dropAll();
await nodes.close();

function wallet(w: number, n: number): LegacyWallet {
  const userId = crypto.randomUUID();
  const memories = Array.from({ length: n }, (_, i) => {
    const at = new Date(now - (n - i) * 1000).toISOString();
    const memory = newMemory({ user_id: userId, content: `wallet ${w} memory ${i} about the deploy window`, expires_at: i % 10 === 0 ? new Date(now + 86_400_000).toISOString() : null }, at);
    const history = i % 5 === 0 ? [{ id: crypto.randomUUID(), memory_id: memory.id, changes: { importance: 0.7 }, created_at: at } as unknown as HistoryEntry] : [];
    const embedding = Float32Array.from({ length: dim }, () => Math.random() - 0.5);
    return { memory, embedding, contentHash: memory.id, history, access: i % 5 === 0 ? { count: 2, at } : undefined };
  });
  const relations = memories.flatMap((m, i) =>
    i % 10 === 1 ? [{ id: crypto.randomUUID(), source_id: memories[i - 1]!.memory.id, target_id: m.memory.id, relation_type: "related_to" as const, metadata: {}, created_at: m.memory.created_at }] : [],
  );
  return { address: `0x${w.toString(16).padStart(40, "0")}`, userId, freeCallsUsed: 1, memories, relations };
}

async function dropAll(): Promise<void> {
  await node.sendCommand(["FT.DROPINDEX", keys.index]).catch(() => {});
  let cursor = "0";
  do {
    const [next, found] = (await node.sendCommand(["SCAN", cursor, "MATCH", `${prefix}*`, "COUNT", "5000"])) as [string, string[]];
    cursor = next;
    if (found.length > 0) await node.sendCommand(["UNLINK", ...found]);
  } while (cursor !== "0");
}
