import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, withSessionSecret } from "../src/config";
import { createApp } from "../src/http/app";
import { buildDeps } from "../src/http/deps";
import { newMemory, type Memory } from "../src/domain/memory";
import type { MemoryStore } from "../src/domain/store-port";
import { contentHash } from "../src/domain/text";
import { RedisStore } from "../src/store/redis/redis-store";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { connectRaw, dropPrefix } from "./helpers/engines";
import { embedder, MODEL_CACHE_DIR, TestWallet } from "./helpers/harness";
import { seededRandom } from "./helpers/seeded-random";

/**
 * The same random data, written into every engine that is reachable, answers alike through HTTP:
 * sqlite always; a standalone Redis at REDIS_URL; a Redis Cluster at REDIS_CLUSTER_URL (or at
 * REDIS_URL when that names a cluster). The clock is fixed, records are inserted with the same ids
 * everywhere, and each engine's user ids are replaced by the wallet's number before comparing. The
 * seed is in the test names (EQUALITY_SEED=n repeats a run).
 *
 * The Redis engines answer every question identically: lists, stats, keyword search and recall.
 * sqlite answers lists and stats identically; its keyword scores are FTS5's BM25 over the wallet's
 * own rows where RediSearch's BM25STD counts the whole index (docs/retrieval.md), so a search there
 * finds the same memories (same total; the same set when all fit in the page) in an order that may
 * differ, and recall, which weighs that score, may rank differently (and so count accesses of other
 * memories).
 */
const SEED = Number(process.env.EQUALITY_SEED ?? Math.floor(Math.random() * 1e9));
/** Fixed for the run, and the real time: Redis removes an expired key by its own clock. */
const NOW = Math.floor(Date.now() / 1000) * 1000;
const DAY = 86_400_000;


const WORDS = ["deploy", "database", "billing", "rollback", "cache", "release", "invoice", "backup", "latency", "queue", "schema", "alert", "budget", "coffee", "meeting", "travel", "python", "rust", "kubernetes", "postgres"];
const NAMESPACES = ["default", "work", "home"];
const TYPES = ["general", "decision", "preference", "correction", "project", "observation"] as const;
const TAGS = ["a", "b", "c", "d"];

interface Dataset {
  wallets: TestWallet[];
  memories: Memory[][];
  deleted: string[][];
  relations: { source: number; target: number; id: string; created_at: string }[][];
  accessed: string[][];
}

function dataset(seed: number): Dataset {
  const r = seededRandom(seed);
  const wallets = Array.from({ length: 4 }, () => new TestWallet());
  const memories = wallets.map(() => {
    const offsets = new Set<number>();
    while (offsets.size < 30 + r.int(30)) offsets.add(1 + r.int(200 * 24) * 3_600_000 + r.int(3_600_000));
    return [...offsets].map((offset) => {
      const words = Array.from({ length: 4 + r.int(8) }, () => r.pick(WORDS));
      const expiry = r.next();
      return newMemory(
        {
          user_id: "placeholder",
          content: `${words.join(" ")} ${r.int(1000)}`,
          namespace: r.pick(NAMESPACES),
          memory_type: r.pick(TYPES),
          importance: Math.round(r.next() * 100) / 100,
          pinned: r.chance(0.1),
          metadata: { tags: TAGS.filter(() => r.chance(0.3)) },
          session_id: r.chance(0.3) ? `s${r.int(3)}` : null,
          expires_at: expiry < 0.1 ? new Date(NOW - r.int(DAY) - 1).toISOString() : expiry < 0.2 ? new Date(NOW + r.int(30 * DAY) + 1).toISOString() : null,
        },
        new Date(NOW - offset).toISOString(),
      );
    });
  });
  const deleted = memories.map((own) => own.filter(() => r.chance(0.1)).map((m) => m.id));
  const relations = memories.map((own) =>
    Array.from({ length: 8 }, (_, i) => ({ source: r.int(own.length), target: r.int(own.length), id: crypto.randomUUID(), created_at: new Date(NOW - DAY + i * 1000).toISOString() })).filter(
      (rel) => rel.source !== rel.target,
    ),
  );
  const accessed = memories.map((own) => own.filter(() => r.chance(0.2)).map((m) => m.id));
  return { wallets, memories, deleted, relations, accessed };
}

interface Engine {
  name: string;
  open(): Promise<{ store: MemoryStore; drop(): Promise<void> }>;
}

/** The Redis engines reachable from the environment, or why each is not. */
async function redisEngines(): Promise<{ engines: Engine[]; skipped: string[] }> {
  const engines: Engine[] = [];
  const skipped: string[] = [];
  const candidates = [
    { url: process.env.REDIS_URL, role: "standalone" },
    { url: process.env.REDIS_CLUSTER_URL, role: "cluster" },
  ];
  const seen = new Set<string>();
  for (const { url, role } of candidates) {
    if (!url) {
      skipped.push(`redis ${role}: ${role === "standalone" ? "REDIS_URL" : "REDIS_CLUSTER_URL"} not set`);
      continue;
    }
    try {
      const nodes = await connectRaw(url);
      const name = nodes.cluster ? "redis-cluster" : "redis";
      await nodes.close();
      if (seen.has(name)) continue;
      seen.add(name);
      engines.push({
        name,
        open: async () => {
          const keyPrefix = `engram-test:equal-${crypto.randomUUID().slice(0, 8)}:`;
          const store = await RedisStore.connect(url, { keyPrefix });
          return { store, drop: () => dropPrefix(url, keyPrefix) };
        },
      });
    } catch (error) {
      skipped.push(`redis ${role} at ${url}: ${(error as Error).message}`);
    }
  }
  return { engines, skipped };
}

const sqlite: Engine = {
  name: "sqlite",
  open: async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-equal-"));
    return { store: new SqliteStore(dir), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

const { engines: REDIS, skipped: SKIPPED } = await redisEngines();
const ENGINES = [sqlite, ...REDIS];
if (SKIPPED.length > 0) console.log(`[equality] left out: ${SKIPPED.join("; ")}`);

/** One engine loaded with the dataset, answering through the HTTP app on a fixed clock. */
interface Loaded {
  name: string;
  request(wallet: number, method: string, path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * One store per wallet: keyword scores count the statistics of the index a wallet is searched in
 * (RediSearch: the whole index, on a cluster the shard's part; sqlite: the wallet's rows), so only
 * a wallet alone in its store has the same statistics on every engine. Isolation between wallets of
 * one store is the contract suite's (test/contract/isolation.test.ts).
 */
async function load(engine: Engine, data: Dataset): Promise<Loaded> {
  const emb = await embedder();
  const dir = mkdtempSync(join(tmpdir(), "engram-equal-config-"));
  const wallets = await Promise.all(data.wallets.map((_, w) => loadWallet(engine, data, w, emb, dir)));
  return {
    name: engine.name,
    async request(wallet, method, path, body) {
      const { app, userId } = wallets[wallet]!;
      const headers: Record<string, string> = { "x-wallet-auth": await data.wallets[wallet]!.header(Math.floor(NOW / 1000)) };
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await app.handle(new Request(`http://engram.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
      const text = (await res.text()).replaceAll(userId, "user");
      return { status: res.status, body: JSON.parse(text) as unknown };
    },
    async close() {
      for (const { close } of wallets) await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function loadWallet(engine: Engine, data: Dataset, w: number, emb: Awaited<ReturnType<typeof embedder>>, dir: string) {
  const { store, drop } = await engine.open();
  await store.bindEmbeddingModel({ id: emb.modelId, dimension: emb.dimension });
  const config = await withSessionSecret(loadConfig({ DATA_DIR: dir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1" }), store);
  const app = createApp(buildDeps(config, store, emb, () => NOW));
  const userId = await store.userIdForWallet(data.wallets[w]!.address);
  const own = data.memories[w]!;
  const mine = own.map((m) => ({ ...m, user_id: userId }));
  const { vectors } = await emb.embed(mine.map((m) => m.content));
  await store.insertMemories(mine.map((memory, i) => ({ memory, embedding: vectors[i]!, content_hash: contentHash(memory.content) })));
  await store.softDelete(userId, data.deleted[w]!, NOW);
  for (const rel of data.relations[w]!) {
    const relation = { id: rel.id, source_id: own[rel.source]!.id, target_id: own[rel.target]!.id, relation_type: "related_to" as const, metadata: {}, created_at: rel.created_at };
    await store.createRelation(userId, relation);
  }
  await store.recordAccess(userId, data.accessed[w]!, NOW - DAY);
  return {
    app,
    userId,
    close: async () => {
      await store.close();
      await drop();
    },
  };
}

/** What is compared with sqlite's answer (see the top): all of it, or what a search found. */
type Kind = "exact" | "search" | "recall" | "after-recall";
interface Question {
  kind: Kind;
  wallet: number;
  method: string;
  path: string;
  body?: unknown;
}

/** The questions asked of every engine: lists with filters and pages, stats, keyword searches, recalls. */
function questions(seed: number): Question[] {
  const r = seededRandom(seed + 1);
  const asked: Question[] = [];
  for (let wallet = 0; wallet < 4; wallet++) {
    const list = (path: string) => asked.push({ kind: "exact", wallet, method: "GET", path });
    list("/v1/memories?limit=100");
    list(`/v1/memories?limit=7&offset=${r.int(20)}&namespace=${r.pick(NAMESPACES)}`);
    list(`/v1/memories?limit=50&tags=${r.pick(TAGS)}`);
    list(`/v1/memories?limit=50&memory_type=${r.pick(TYPES)}`);
    list("/v1/stats");
    for (let q = 0; q < 3; q++) {
      const query = `${r.pick(WORDS)} ${r.pick(WORDS)}`;
      asked.push({ kind: "search", wallet, method: "POST", path: "/v1/search", body: { query, limit: 10 } });
      asked.push({ kind: "search", wallet, method: "POST", path: "/v1/search", body: { query, limit: 100 } });
      asked.push({ kind: "recall", wallet, method: "POST", path: "/v1/recall", body: { query, limit: 8, include_relations: true } });
      asked.push({ kind: "recall", wallet, method: "POST", path: "/v1/recall", body: { query, limit: 5, namespace: r.pick(NAMESPACES) } });
    }
    // the recalls counted accesses of the memories they returned, which may differ on sqlite (see the top)
    for (const path of ["/v1/memories?limit=100", "/v1/stats"]) asked.push({ kind: "after-recall", wallet, method: "GET", path });
  }
  return asked;
}

interface Answer {
  status: number;
  body: { memories?: { id: string }[]; total?: number };
}

/** The answer with fractions to 12 significant digits: sums (stats' averages) add in another order on each engine. */
const sameFloats = (answer: unknown): unknown =>
  JSON.parse(JSON.stringify(answer, (_key, value: unknown) => (typeof value === "number" && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value)));

/** What of an answer sqlite must share with Redis for a question of `kind`. */
function comparable(kind: Kind, answer: Answer, limit: number): unknown {
  if (kind === "exact") return sameFloats(answer);
  if (kind === "after-recall") return { status: answer.status };
  const ids = (answer.body.memories ?? []).map((m) => m.id);
  if (kind === "recall") return { status: answer.status, count: ids.length };
  const total = answer.body.total ?? 0;
  return { status: answer.status, total, found: total <= limit ? ids.sort() : ids.length };
}

describe.skipIf(ENGINES.length < 2)(`engines answer alike on random data (seed ${SEED})`, () => {
  const data = dataset(SEED);
  const loaded: Loaded[] = [];

  beforeAll(async () => {
    for (const engine of ENGINES) loaded.push(await load(engine, data));
  });

  afterAll(async () => {
    for (const engine of loaded) await engine.close();
  });

  test(`the Redis engines answer every question identically, sqlite its lists and stats, and its searches find the same (seed ${SEED})`, async () => {
    const redis = loaded.filter((engine) => engine.name !== "sqlite");
    for (const ask of questions(SEED)) {
      const answers = new Map<string, Answer>();
      for (const engine of loaded) answers.set(engine.name, (await engine.request(ask.wallet, ask.method, ask.path, ask.body)) as Answer);
      const sqliteAnswer = answers.get("sqlite")!;
      expect({ ask, status: sqliteAnswer.status }).toEqual({ ask, status: 200 });
      const [first, ...others] = redis;
      for (const engine of others) expect({ engine: engine.name, ask, answer: answers.get(engine.name) }).toEqual({ engine: engine.name, ask, answer: answers.get(first!.name) });
      if (!first) continue;
      const limit = (ask.body as { limit?: number } | undefined)?.limit ?? 0;
      expect({ engine: first.name, ask, answer: comparable(ask.kind, answers.get(first.name)!, limit) }).toEqual({ engine: first.name, ask, answer: comparable(ask.kind, sqliteAnswer, limit) });
    }
  });
});
