import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { copyStore, type CopyCheckpoint } from "../src/domain/copy-store";
import { CopyRefused } from "../src/domain/store-transfer";
import { MigrateCheckpoint } from "../scripts/migrate-store-checkpoint";
import { seedStore } from "../scripts/bench/seeded-store";
import { walletDigests } from "../scripts/bench/store-digest";
import { Client, MODEL_CACHE_DIR, TestWallet } from "./helpers/harness";

const ROOT = resolve(import.meta.dir, "..");
const MODEL = { id: "use-lite-128d", dimension: 128 };

/** `bun run migrate-store` as a child process in `cwd` (where its checkpoint goes). */
function migrate(cwd: string, from: string, to: string) {
  const child = Bun.spawn(["bun", join(ROOT, "scripts/migrate-store.ts"), "--from", from, "--to", to], { cwd, stdout: "pipe", stderr: "pipe" });
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { child, done: child.exited.then(async (code) => ({ code, stdout: (await output)[0], stderr: (await output)[1] })) };
}

const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `engram-migrate-${name}-`));

/** A seeded sqlite store in a fresh directory. */
async function seeded(wallets: number, memoriesPerWallet: number): Promise<string> {
  const dir = tempDir("seed");
  const store = new SqliteStore(dir);
  await store.bindEmbeddingModel(MODEL);
  await seedStore(store, { wallets, memoriesPerWallet, dimension: MODEL.dimension });
  await store.close();
  return dir;
}

/** The two stores' per-wallet digests (store-digest.ts), read at one instant. */
async function digestsOf(...dirs: string[]) {
  const now = Date.now();
  const stores = dirs.map((dir) => new SqliteStore(dir));
  try {
    return await Promise.all(stores.map((store) => walletDigests(store, now)));
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

describe("migrate-store sqlite → sqlite: what the service answered on the source, it answers on the copy", () => {
  const from = tempDir("from");
  const to = join(tempDir("to"), "data"); // created by the copy
  const work = tempDir("work");
  const env = (dir: string) => ({ DATA_DIR: dir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1", EMBEDDING_MODEL: "glove-sif-100d" });
  const wallets = [new TestWallet(), new TestWallet()];
  let editedIds: string[] = [];

  async function withService<T>(dir: string, work: (clients: Client[]) => Promise<T>): Promise<T> {
    const server = await startServer(loadConfig(env(dir)));
    try {
      return await work(wallets.map((w) => new Client({ url: server.url, now: Date.now }, w)));
    } finally {
      await server.stop();
    }
  }

  /** What the service answers a wallet (`id`: its edited memory); the recall comes last, as it counts accesses. */
  async function answers(client: Client, id: string) {
    const replies = {
      export: await client.get("/v1/export?include_deleted=true"),
      history: await client.get(`/v1/memories/${id}/history`),
      relations: await client.get(`/v1/memories/${id}/relations`),
      stats: await client.get("/v1/stats"),
      search: await client.post("/v1/search", { query: "billing Postgres" }),
      recall: await client.post("/v1/recall", { query: "which database does the billing service use", limit: 3 }),
    };
    for (const reply of Object.values(replies)) expect(reply.status).toBe(200);
    // recency moves with the clock: the recall's own signals are compared, not its final scores
    const recalled = replies.recall.body.memories.map((m: { id: string; access_count: number; _signals: { vector: number; keyword: number } }) => [m.id, m.access_count, m._signals.vector, m._signals.keyword]);
    const { export: exp, history, relations, stats, search } = replies;
    return { export: exp.body, history: history.body, relations: relations.body, stats: stats.body, search: search.body, recall: recalled };
  }

  /** Per wallet: stores, edits (history), relates, deletes and recalls (access counts) through the API. */
  beforeAll(async () => {
    editedIds = await withService(from, async (clients) => {
      const ids: string[] = [];
      for (const [w, client] of clients.entries()) {
        const batch = await client.post("/v1/store/batch", {
          memories: [
            { content: `The billing service of wallet ${w} runs on Postgres 16`, tags: ["infra"], namespace: "work" },
            { content: `Wallet ${w} prefers dark mode in every editor`, memory_type: "preference", pinned: true },
            { content: `Wallet ${w} ships releases on Fridays`, expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString() },
            { content: `Wallet ${w} deprecated the old search cluster`, session_id: "s1", agent_id: "a1" },
          ],
        });
        expect(batch.status).toBe(201);
        const [billing, editor, , old] = batch.body.ids as string[];
        expect((await client.patch(`/v1/memories/${billing}`, { importance: 0.9, content: `The billing service of wallet ${w} runs on Postgres 17` })).status).toBe(200);
        expect((await client.post(`/v1/memories/${billing}/relations`, { target_id: editor, relation_type: "related_to", metadata: { why: "test" } })).status).toBe(201);
        expect((await client.del(`/v1/memories/${old}`)).status).toBe(200);
        expect((await client.post("/v1/recall", { query: "dark mode editor", limit: 2 })).status).toBe(200);
        ids.push(billing!);
      }
      return ids;
    });
  }, 120_000);

  afterAll(() => {
    for (const dir of [from, resolve(to, ".."), work]) rmSync(dir, { recursive: true, force: true });
  });

  test("the copy reports equal counts per wallet, and the service on it answers as on the source", async () => {
    const source = new SqliteStore(from);
    const freeUsed = await Promise.all(wallets.map((w) => source.freeCallsUsed(w.address)));
    await source.close();
    expect(Math.min(...freeUsed)).toBeGreaterThan(0);

    const { code, stdout, stderr } = await migrate(work, `sqlite:${from}`, `sqlite:${to}`).done;
    expect(stderr).toContain("done: every wallet's counts match");
    expect(code).toBe(0);
    const rows = stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^wallet\s+memories\s+relations\s+history\s+free calls\s+check$/);
    for (const [w, wallet] of wallets.entries()) {
      expect(rows.find((r) => r.startsWith(wallet.address.toLowerCase()))).toMatch(new RegExp(`\\s4\\s+1\\s+1\\s+${freeUsed[w]}\\s+ok$`));
    }
    expect(rows.at(-1)).toMatch(/^total\s+8\s+2\s+2\s+\d+\s+ok$/);
    expect(readdirSync(to).filter((f) => f.endsWith(".progress"))).toEqual([]); // a finished copy leaves no checkpoint

    const copy = new SqliteStore(to);
    expect(await Promise.all(wallets.map((w) => copy.freeCallsUsed(w.address)))).toEqual(freeUsed);
    await copy.close();
    // both from the same state: the source's answers are read after the copy was taken
    const before = await withService(from, (clients) => Promise.all(clients.map((client, w) => answers(client, editedIds[w]!))));
    const after = await withService(to, (clients) => Promise.all(clients.map((client, w) => answers(client, editedIds[w]!))));
    expect(after).toEqual(before);
    expect(before[0]!.stats.total_accesses).toBeGreaterThan(0);
    expect(before[0]!.export.memories.some((m: { deleted_at: string | null }) => m.deleted_at !== null)).toBe(true);
    expect(before[0]!.history.history).toHaveLength(1);
  }, 120_000);
});

describe("migrate-store resumes where it stopped and never duplicates", () => {
  let from: string;
  const dirs: string[] = [];
  beforeAll(async () => {
    from = await seeded(4, 400);
  }, 60_000);
  afterAll(() => {
    for (const dir of [from, ...dirs]) rmSync(dir, { recursive: true, force: true });
  });

  /** A checkpoint whose `crashAfter`-th memory mark fails, as a crash right after the target committed a batch. */
  function crashing(file: MigrateCheckpoint, crashAfter: number): CopyCheckpoint {
    let marks = 0;
    return {
      load: () => file.load(),
      walletsCopied: () => file.walletsCopied(),
      finished: (user) => file.finished(user),
      copied: (user, next) => {
        if (++marks === crashAfter) throw new Error("crash");
        file.copied(user, next);
      },
    };
  }

  test("a run stopped mid-copy continues from its checkpoint; a full run again changes nothing", async () => {
    const to = tempDir("to");
    const work = tempDir("work");
    dirs.push(to, work);
    const checkpoint = new MigrateCheckpoint(`sqlite:${from}`, `sqlite:${to}`, work);
    const [source, target] = [new SqliteStore(from), new SqliteStore(to)];
    try {
      // 100-memory batches: wallet 1 takes 4 (+ 1 empty), the crash hits the 7th mark, inside wallet 2
      await expect(copyStore(source, target, crashing(checkpoint, 7), { batch: 100 })).rejects.toThrow("crash");
      const progress = checkpoint.load();
      expect(progress.finished.size).toBe(1);
      expect(progress.positions.size).toBe(2);

      const resumed = await copyStore(source, target, checkpoint, { batch: 100 });
      expect(resumed.ok).toBe(true);
      const total = resumed.users.reduce((n, u) => n + u.source.memories, 0);
      // the batch whose mark failed is copied again; wallet 1 and wallet 2's first batch are not
      const [first, second] = resumed.users;
      const secondsFirstBatch = (await (await source.transfer()).memories(second!.user_id, null, 100, Date.now())).items.length;
      expect(resumed.copied).toBe(total - first!.source.memories - secondsFirstBatch);
      checkpoint.remove();

      const again = await copyStore(source, target, checkpoint, { batch: 100 });
      expect(again.ok).toBe(true);
      expect(again.copied).toBe(total);
      expect(again.users.map((u) => u.target)).toEqual(resumed.users.map((u) => u.target));
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
    const [a, b] = await digestsOf(from, to);
    expect(b).toEqual(a);
    expect(a!.size).toBe(4);
  }, 60_000);

  test("killed (SIGKILL) while copying, the same command continues and ends with equal stores", async () => {
    const big = await seeded(3, 3000);
    const to = tempDir("to");
    const work = tempDir("work");
    dirs.push(big, to, work);
    const first = Bun.spawn(["bun", join(ROOT, "scripts/migrate-store.ts"), "--from", `sqlite:${big}`, "--to", `sqlite:${to}`], { cwd: work, stdout: "ignore", stderr: "pipe" });
    let stderr = "";
    const reader = first.stderr.getReader();
    // kill once the copy reached the second wallet
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += new TextDecoder().decode(value);
      if (/copying: wallet 2\//.test(stderr)) {
        first.kill("SIGKILL");
        break;
      }
    }
    expect(await first.exited).not.toBe(0);
    expect(readdirSync(to).filter((f) => f.endsWith(".progress"))).toHaveLength(1); // beside the target store

    const second = await migrate(work, `sqlite:${big}`, `sqlite:${to}`).done;
    expect(second.stderr).toMatch(/resuming: [1-3] wallets copied/);
    expect(second.code).toBe(0);
    const copied = Number(/(\d+) memories copied in/.exec(second.stderr)![1]);
    const [a, b] = await digestsOf(big, to);
    expect(b).toEqual(a);
    expect(copied).toBeLessThan(3 * 3000 - 2000); // the first wallet (≈3000) was not copied again
  }, 120_000);
});

describe("migrate-store refuses what it cannot copy faithfully", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("a target bound to another embedding model is refused, and left as it was", async () => {
    const from = await seeded(2, 20);
    const to = tempDir("to");
    const work = tempDir("work");
    dirs.push(from, to, work);
    const target = new SqliteStore(to);
    await target.bindEmbeddingModel({ id: "glove-sif-100d", dimension: 100 });
    await target.close();

    const { code, stderr } = await migrate(work, `sqlite:${from}`, `sqlite:${to}`).done;
    expect(code).toBe(1);
    expect(stderr).toContain('the target is bound to the embedding model "glove-sif-100d" (100-d), the source\'s memories are embedded with "use-lite-128d" (128-d)');
    expect(stderr).toContain("copy into an empty store");
    expect(stderr).not.toContain("run the same command again");
    const after = new SqliteStore(to);
    const transfer = await after.transfer();
    expect(await transfer.wallets()).toEqual([]);
    expect(await transfer.boundModel()).toEqual({ id: "glove-sif-100d", dimension: 100 });
    await after.close();
  }, 60_000);

  test("a source in the middle of a re-embedding is refused (its old vectors would be copied as the new model's)", async () => {
    const from = await seeded(1, 10);
    const to = tempDir("to");
    dirs.push(from, to);
    const source = new SqliteStore(from);
    await source.bindEmbeddingModel({ id: "glove-sif-100d", dimension: 100 }, true);
    const target = new SqliteStore(to);
    try {
      const checkpoint = new MigrateCheckpoint(`sqlite:${from}`, `sqlite:${to}`, to);
      const run = copyStore(source, target, checkpoint);
      await expect(run).rejects.toBeInstanceOf(CopyRefused);
      await expect(run).rejects.toThrow(/10 memories of the source have no 100-d vector of "glove-sif-100d".*bun run reembed/);
    } finally {
      await Promise.all([source.close(), target.close()]);
    }
  });

  test("bad arguments are explained", async () => {
    const work = tempDir("work");
    dirs.push(work);
    for (const [from, to, message] of [
      ["sqlite:/nonexistent/engram", `sqlite:${work}/x`, "--from: no store in /nonexistent/engram"],
      ["postgres://x", `sqlite:${work}/x`, '--from: "postgres://x" is neither sqlite:<DATA_DIR> nor a redis:// URL'],
      [`sqlite:${work}`, `sqlite:${work}/`, "--from and --to name the same store"],
    ]) {
      const { code, stderr } = await migrate(work, from!, to!).done;
      expect(code).toBe(1);
      expect(stderr).toContain(message!);
    }
  }, 60_000);
});

describe("the checkpoint file", () => {
  test("ignores a line cut off by a kill, and a file written for another pair of stores", () => {
    const dir = tempDir("ckpt");
    try {
      const checkpoint = new MigrateCheckpoint("sqlite:/a", "sqlite:/b", dir);
      checkpoint.walletsCopied();
      checkpoint.copied("u1", '["2026-01-01T00:00:00.000Z",7]');
      checkpoint.copied("u1", null);
      checkpoint.finished("u1");
      checkpoint.copied("u2", "12");
      appendFileSync(checkpoint.path, "done u2"); // no newline: the kill came first
      const progress = checkpoint.load();
      expect(progress).toEqual({ wallets: true, positions: new Map([["u1", null], ["u2", "12"]]), finished: new Set(["u1"]) });

      const other = new MigrateCheckpoint("sqlite:/a", "sqlite:/c", dir);
      expect(other.path).not.toBe(checkpoint.path);
      writeFileSync(other.path, "# engram migrate-store sqlite:/a → sqlite:/b\nwallets\n");
      expect(other.load()).toEqual({ wallets: false, positions: new Map(), finished: new Set() });
      checkpoint.remove();
      expect(existsSync(checkpoint.path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
