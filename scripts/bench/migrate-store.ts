/**
 * Engine migration, measured: a seeded sqlite store (seeded-store.ts: random unit vectors of the
 * default model's dimension, no model runs) copied sqlite → Redis → sqlite, and sqlite → sqlite,
 * with the copy `bun run migrate-store` runs (copyStore and its file checkpoint), each way timed;
 * then every wallet's export (GET /v1/export?include_deleted=true, as the service answers it) and
 * everything a copy carries are hashed per wallet (store-digest.ts) and compared with the original.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 bun scripts/bench/migrate-store.ts [--wallets 100] [--memories 1000]
 *
 * REDIS_URL may name a cluster (docs/configuration.md › Redis Cluster); the Redis CPU is then every master's.
 *
 * --memories is per wallet. The Redis side uses a fresh key prefix, removed at the end. Without
 * REDIS_URL only sqlite → sqlite runs. Prints a markdown table.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { RedisStore } from "../../src/store/redis/redis-store";
import { connectRedis } from "../../src/store/redis/client";
import type { RedisNodes } from "../../src/store/redis/nodes";
import { scanNode } from "../../src/store/redis/walk";
import { globEscape, Keys } from "../../src/store/redis/keys";
import { copyStore } from "../../src/domain/copy-store";
import type { TransferableStore } from "../../src/domain/store-transfer";
import { MigrateCheckpoint } from "../migrate-store-checkpoint";
import { seedStore } from "./seeded-store";
import { walletDigests, type WalletDigest } from "./store-digest";
import { printTable } from "./bench-util";

const { values } = parseArgs({ options: { wallets: { type: "string", default: "100" }, memories: { type: "string", default: "1000" } } });
const WALLETS = Number(values.wallets);
const PER_WALLET = Number(values.memories);
const MODEL = { id: "use-lite-128d", dimension: 128 };
const REDIS_URL = process.env.REDIS_URL;
/** Raw access to the Redis side, for its CPU counters and the clean-up. */
const admin: RedisNodes | null = REDIS_URL ? await connectRedis(REDIS_URL) : null;
const log = (text: string) => process.stderr.write(`[bench] ${text}\n`);

const work = mkdtempSync(join(tmpdir(), "engram-bench-migrate-"));
const sqliteAt = (name: string) => {
  mkdirSync(join(work, name));
  return new SqliteStore(join(work, name));
};

/** The Redis servers' CPU seconds so far (INFO cpu of every master), or 0 without Redis. */
async function redisCpu(): Promise<number> {
  if (!admin) return 0;
  let seconds = 0;
  for (const { commands } of await admin.masters()) {
    const info = String(await commands.sendCommand(["INFO", "cpu"]));
    seconds += ["used_cpu_sys", "used_cpu_user"].reduce((sum, name) => sum + Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0), 0);
  }
  return seconds;
}

async function timedCopy(from: TransferableStore, to: TransferableStore, name: string) {
  const checkpoint = new MigrateCheckpoint(`bench:${name}:from`, `bench:${name}:to`, work);
  const cpu = process.cpuUsage();
  const redisBefore = await redisCpu();
  const started = performance.now();
  const report = await copyStore(from, to, checkpoint);
  const seconds = (performance.now() - started) / 1000;
  const redisSeconds = (await redisCpu()) - redisBefore;
  const cpuSeconds = (() => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1e6;
  })();
  checkpoint.remove();
  if (!report.ok) throw new Error(`${name}: the counts differ`);
  log(`${name}: ${report.copied} memories in ${seconds.toFixed(1)} s`);
  return { report, seconds, cpuSeconds, redisSeconds };
}

/** Wallets whose export, and whose whole copy, hash the same as the original's. */
function compare(original: Map<string, WalletDigest>, copy: Map<string, WalletDigest>) {
  let exports = 0;
  let full = 0;
  for (const [address, digest] of original) {
    exports += Number(copy.get(address)?.export === digest.export);
    full += Number(copy.get(address)?.full === digest.full);
  }
  return { exports: `${exports}/${original.size}`, full: `${full}/${original.size}`, extra: copy.size - original.size };
}

/** Every key under `prefix` and its index, on every master (one key per UNLINK: a cluster refuses cross-slot ones). */
async function dropRedisPrefix(nodes: RedisNodes, prefix: string): Promise<void> {
  const { index } = new Keys(prefix);
  for (const { commands } of await nodes.masters()) {
    await commands.sendCommand(["FT.DROPINDEX", index]).catch(() => {});
    for await (const keys of scanNode(commands, `${globEscape(prefix)}*`)) await Promise.all(keys.map((key) => commands.sendCommand(["UNLINK", key])));
  }
}

const source = sqliteAt("source");
await source.bindEmbeddingModel(MODEL);
let started = performance.now();
await seedStore(source, { wallets: WALLETS, memoriesPerWallet: PER_WALLET, dimension: MODEL.dimension });
log(`seeded ${WALLETS} wallets × ${PER_WALLET} memories in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const now = Date.now();
const original = await walletDigests(source, now);

const rows: string[][] = [];
const row = (name: string, run: Awaited<ReturnType<typeof timedCopy>>, digests: Map<string, WalletDigest>) => {
  const copied = run.report.copied;
  const same = compare(original, digests);
  const counts = run.report.users.reduce((sum, u) => ({ relations: sum.relations + u.target.relations, history: sum.history + u.target.history }), { relations: 0, history: 0 });
  rows.push([
    name, String(copied), String(counts.relations), String(counts.history), run.seconds.toFixed(1), String(Math.round(copied / run.seconds)),
    (run.cpuSeconds / copied * 1e6).toFixed(0), REDIS_URL ? (run.redisSeconds / copied * 1e6).toFixed(0) : "-", same.exports, same.full,
  ]);
};

const flat = sqliteAt("flat");
row("sqlite → sqlite", await timedCopy(source, flat, "sqlite-sqlite"), await walletDigests(flat, now));

let redisVersion = "-";
if (REDIS_URL) {
  const prefix = `engram-bench:${crypto.randomUUID().slice(0, 8)}:`;
  const redis = await RedisStore.connect(REDIS_URL, { keyPrefix: prefix });
  try {
    const [first] = await admin!.masters();
    redisVersion = String(/redis_version:(\S+)/.exec(String(await first!.commands.sendCommand(["INFO", "server"])))?.[1]);
    if (admin!.cluster) redisVersion += ` cluster (${(await admin!.masters()).length} masters)`;
    row("sqlite → Redis", await timedCopy(source, redis, "sqlite-redis"), await walletDigests(redis, now));
    const back = sqliteAt("back");
    row("Redis → sqlite", await timedCopy(redis, back, "redis-sqlite"), await walletDigests(back, now));
    await back.close();
  } finally {
    await redis.close();
    await dropRedisPrefix(admin!, prefix);
    await admin!.close();
  }
} else log("REDIS_URL not set: sqlite → sqlite only");

await Promise.all([source.close(), flat.close()]);
rmSync(work, { recursive: true, force: true });

const commit = (await Bun.$`git rev-parse --short HEAD`.quiet().nothrow()).stdout.toString().trim();
console.log(`${WALLETS} wallets × ${PER_WALLET} memories (${MODEL.dimension}-d random unit vectors), ${cpus()[0]?.model ?? "?"} × ${cpus().length}, Redis ${redisVersion}, commit ${commit}\n`);
printTable(["copy", "memories", "relations", "history", "seconds", "memories/s", "bun CPU µs/memory", "Redis CPU µs/memory", "exports equal", "all fields equal"], rows);
