/**
 * The embedded engine's cache within its byte budget (CACHE_MAX_MB), through the HTTP API: with more
 * wallets than the budget holds, the cache's accounted bytes never exceed it, wallets dropped from
 * it load again from the database and answer search, recall and list as before, and no wallet ever
 * sees another's memories. (How the process's memory lowers the budget is test/unit/rss-watch.test.ts.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../src/config";
import { openStore } from "../src/store/open-store";
import type { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { vectorIndexCounters, type VectorIndex } from "../src/store/sqlite/vector-index";
import { prng, syntheticMemory } from "../scripts/bench/synthetic";
import { Client, startService, type TestService } from "./helpers/harness";

const WALLETS = 40;
const MEMORIES = 100; // per wallet: ~45 KB cached at 100-d, so 1 MiB holds about half of them
const BUDGET = 2 ** 20;

let service: TestService;
let index: VectorIndex;
const wallets: { client: Client; marker: string; ids: Set<string> }[] = [];

beforeAll(async () => {
  let opened: SqliteStore | undefined;
  const engine = {
    name: "sqlite",
    open: async (dataDir: string) => {
      const store = await openStore(loadConfig({ DATA_DIR: dataDir, CACHE_MAX_MB: "1" }));
      opened = store as SqliteStore;
      return store;
    },
  };
  service = await startService(engine, { FREE_TIER_CALLS: "100000" });
  index = (opened as unknown as { vectors: VectorIndex }).vectors;
  const rng = prng(26);
  for (let w = 0; w < WALLETS; w++) {
    const client = new Client(service);
    // a word only this wallet's memories have (unknown to the embedding model: vectors are unchanged)
    const marker = `qz${w}marker`;
    const memories = Array.from({ length: MEMORIES }, () => {
      const s = syntheticMemory(rng);
      return { content: `${s.content} ${marker}`, namespace: s.namespace, memory_type: s.memory_type, metadata: { tags: s.tags } };
    });
    const res = await client.post("/v1/store/batch", { memories });
    expect(res.status).toBe(201);
    // a memory close enough to an earlier one of the batch merges into it: its id is that one's
    wallets.push({ client, marker, ids: new Set(res.body.ids as string[]) });
    expect(index.cached().bytes).toBeLessThanOrEqual(BUDGET);
  }
}, 120_000);

afterAll(() => service?.stop());

test("the budget is read from CACHE_MAX_MB and holds fewer wallets than were written", () => {
  expect(index.cached().maxBytes).toBe(BUDGET);
  // the test process grows by far more than 1 MiB beyond its first load: the process's memory has
  // lowered what the cache may hold (rss-watch.ts), down to the last wallet used
  expect(index.cached().capBytes).toBeLessThanOrEqual(BUDGET);
  expect(index.cached().users).toBeLessThan(WALLETS);
  expect(index.cached().users).toBeGreaterThanOrEqual(1);
});

test("every wallet answers search, recall and list from its own memories, dropped from the cache or not, within the budget", async () => {
  const loads = vectorIndexCounters.loads;
  const evictions = vectorIndexCounters.evictions;
  for (let round = 0; round < 2; round++) {
    for (const { client, marker, ids } of wallets) {
      const own = (res: { body: { memories: { id: string }[] } }) => res.body.memories.map((m) => m.id).filter((id) => !ids.has(id));

      const search = await client.post("/v1/search", { query: marker, limit: 50 });
      expect(search.status).toBe(200);
      expect(search.body.total).toBe(ids.size); // every memory of the wallet has its marker, no other's does
      expect(search.body.memories).toHaveLength(Math.min(50, ids.size));
      expect(own(search)).toEqual([]);

      const recall = await client.post("/v1/recall", { query: "which database does the team prefer", limit: 10 });
      expect(recall.status).toBe(200);
      expect(recall.body.memories.length).toBeGreaterThan(0);
      expect(own(recall)).toEqual([]);

      const list = await client.get("/v1/memories?limit=100");
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(ids.size);
      expect(new Set(list.body.memories.map((m: { id: string }) => m.id))).toEqual(ids);

      expect(index.cached().bytes).toBeLessThanOrEqual(BUDGET);
    }
  }
  // wallets were dropped to stay within the budget, and loaded again from the database
  expect(vectorIndexCounters.evictions - evictions).toBeGreaterThan(WALLETS);
  expect(vectorIndexCounters.loads - loads).toBeGreaterThan(WALLETS);
}, 120_000);
