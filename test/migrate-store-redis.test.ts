import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { newMemory } from "../src/domain/memory";
import { RedisStore } from "../src/store/redis/redis-store";
import { copyStore, type CopyCheckpoint, type CopyProgress } from "../src/domain/copy-store";
import { CopyRefused, type TransferableStore } from "../src/domain/store-transfer";
import { seedStore } from "../scripts/bench/seeded-store";
import { walletDigests } from "../scripts/bench/store-digest";
import { dropPrefix, ENGINES } from "./helpers/engines";

/**
 * sqlite → Redis → sqlite through the copy (src/domain/copy-store.ts), against the server at
 * REDIS_URL; skipped (with the reason printed once by ./helpers/engines) when there is none.
 */
const REDIS_URL = process.env.REDIS_URL ?? "";
const hasRedis = ENGINES.some((e) => e.name === "redis");
const MODEL = { id: "use-lite-128d", dimension: 128 };

/** A checkpoint in memory; `crashAfter`: the n-th memory mark fails, as a crash right after the target committed a batch. */
function memoryCheckpoint(crashAfter = Infinity): CopyCheckpoint & { progress: CopyProgress; arm(n: number): void } {
  let marks = 0;
  let limit = crashAfter;
  const progress: CopyProgress = { wallets: false, positions: new Map(), finished: new Set() };
  return {
    progress,
    arm: (n) => {
      marks = 0;
      limit = n;
    },
    load: () => ({ wallets: progress.wallets, positions: new Map(progress.positions), finished: new Set(progress.finished) }),
    walletsCopied: () => void (progress.wallets = true),
    finished: (user) => void progress.finished.add(user),
    copied: (user, next) => {
      if (++marks === limit) throw new Error("crash");
      progress.positions.set(user, next);
    },
  };
}

describe.skipIf(!hasRedis)("migrate-store with Redis", () => {
  const dirs: string[] = [];
  const prefixes: string[] = [];
  const open: TransferableStore[] = [];

  const sqlite = (dir = mkdtempSync(join(tmpdir(), "engram-migrate-redis-"))) => {
    dirs.push(dir);
    const store = new SqliteStore(dir);
    open.push(store);
    return store;
  };
  const redis = async () => {
    const keyPrefix = `engram-test:${crypto.randomUUID().slice(0, 8)}:`;
    prefixes.push(keyPrefix);
    const store = await RedisStore.connect(REDIS_URL, { keyPrefix });
    open.push(store);
    return store;
  };

  let seeded: SqliteStore;
  beforeAll(async () => {
    seeded = sqlite();
    await seeded.bindEmbeddingModel(MODEL);
    await seedStore(seeded, { wallets: 6, memoriesPerWallet: 300, dimension: MODEL.dimension });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((store) => store.close().catch(() => {})));
    for (const prefix of prefixes) await dropPrefix(REDIS_URL, prefix);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("sqlite → Redis → sqlite: every wallet's export and every copied field are the same in all three", async () => {
    const middle = await redis();
    const back = sqlite();
    // small batches: runs of memories created in the same millisecond are cut between batches
    const there = await copyStore(seeded, middle, memoryCheckpoint(), { batch: 7 });
    const again = await copyStore(middle, back, memoryCheckpoint(), { batch: 11 });
    for (const report of [there, again]) {
      expect(report.ok).toBe(true);
      expect(report.model).toEqual(MODEL);
    }
    expect(again.users.map((u) => u.target)).toEqual(there.users.map((u) => u.source));
    expect(there.users.reduce((n, u) => n + u.source.relations, 0)).toBeGreaterThan(0);
    expect(there.users.reduce((n, u) => n + u.source.history, 0)).toBeGreaterThan(0);

    const now = Date.now();
    const [a, b, c] = [await walletDigests(seeded, now), await walletDigests(middle, now), await walletDigests(back, now)];
    expect(a.size).toBe(6);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  }, 120_000);

  test("into Redis: a run stopped after a committed batch continues, and copying again duplicates nothing", async () => {
    const target = await redis();
    const checkpoint = memoryCheckpoint(9);
    await expect(copyStore(seeded, target, checkpoint, { batch: 100 })).rejects.toThrow("crash");
    expect(checkpoint.progress.finished.size).toBeGreaterThan(0);

    checkpoint.arm(Infinity);
    const resumed = await copyStore(seeded, target, checkpoint, { batch: 100 });
    expect(resumed.ok).toBe(true);
    const total = resumed.users.reduce((n, u) => n + u.source.memories, 0);
    expect(resumed.copied).toBeLessThan(total);

    const again = await copyStore(seeded, target, memoryCheckpoint(), { batch: 100 });
    expect(again.ok).toBe(true);
    expect(again.copied).toBe(total);
    const now = Date.now();
    expect(await walletDigests(target, now)).toEqual(await walletDigests(seeded, now));
  }, 120_000);

  test("more memories in one millisecond than the sequence's 1024 slots (equal sort keys) are all copied, across batch boundaries", async () => {
    const source = await redis();
    await source.bindEmbeddingModel(MODEL);
    const userId = await source.userIdForWallet(`0x${"ab".repeat(20)}`);
    const at = new Date().toISOString();
    const vector = new Float32Array(MODEL.dimension).fill(1 / Math.sqrt(MODEL.dimension));
    const memories = Array.from({ length: 1100 }, (_, i) => newMemory({ user_id: userId, content: `burst ${i}` }, at));
    for (let i = 0; i < memories.length; i += 100) {
      await source.insertMemories(memories.slice(i, i + 100).map((memory) => ({ memory, embedding: vector, content_hash: `h${memory.content}` })));
    }
    const report = await copyStore(source, sqlite(), memoryCheckpoint(), { batch: 50 });
    expect(report.ok).toBe(true);
    expect(report.users.map((u) => u.target.memories)).toEqual([1100]);
  }, 120_000);

  test("a Redis target bound to another model is refused; so is a Redis source whose vectors were cleared by a model change", async () => {
    const bound = await redis();
    await bound.bindEmbeddingModel({ id: "glove-sif-100d", dimension: 100 });
    await expect(copyStore(seeded, bound, memoryCheckpoint())).rejects.toThrow(
      'the target is bound to the embedding model "glove-sif-100d" (100-d), the source\'s memories are embedded with "use-lite-128d" (128-d)',
    );
    expect(await (await bound.transfer()).wallets()).toEqual([]);

    const source = await redis();
    await copyStore(seeded, source, memoryCheckpoint());
    await source.bindEmbeddingModel({ id: "glove-sif-100d", dimension: 100 }, true);
    const run = copyStore(source, sqlite(), memoryCheckpoint());
    await expect(run).rejects.toBeInstanceOf(CopyRefused);
    await expect(run).rejects.toThrow(/memories of the source have no 100-d vector of "glove-sif-100d"/);
  }, 120_000);
});
