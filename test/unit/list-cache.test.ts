/**
 * listMemories from the per-user cache (vector-index.ts UserVectors.page) against its SQL answer
 * (listMemoriesSql): same ids in the same order and the same total, for every filter the cache
 * evaluates, at several offsets, with created_at ties (broken by rowid), expired and deleted rows,
 * and after writes (the sorted order is rebuilt).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng } from "../../scripts/bench/synthetic";
import { newMemory, type Memory, type MemoryType } from "../../src/domain/memory";
import type { MemoryFilter } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";

const dir = mkdtempSync(join(tmpdir(), "engram-list-"));
const store = new SqliteStore(dir);
await store.bindEmbeddingModel({ id: "test", dimension: 2 });
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const rng = prng(14);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const NOW = Date.parse("2026-03-01T00:00:00.000Z");
const DAY = 86_400_000;
const user = crypto.randomUUID();

function memory(): Memory {
  // few distinct instants: many created_at ties
  const created = new Date(NOW - Math.floor(rng() * 40) * DAY).toISOString();
  const tags = ["x", "y", "z"].filter(() => rng() < 0.3);
  return newMemory(
    {
      user_id: user,
      content: `memory ${rng()}`,
      namespace: pick(["a", "b"]),
      memory_type: pick<MemoryType>(["general", "decision"]),
      session_id: pick([null, "s1", "s2"]),
      agent_id: pick([null, "bot"]),
      pinned: rng() < 0.2,
      metadata: tags.length ? { tags } : {},
      expires_at: rng() < 0.1 ? new Date(NOW + (rng() < 0.5 ? -DAY : DAY)).toISOString() : null,
    },
    created,
  );
}

async function insert(n: number): Promise<Memory[]> {
  const memories = Array.from({ length: n }, memory);
  await store.insertMemories(memories.map((m) => ({ memory: m, embedding: new Float32Array([rng(), rng()]), content_hash: m.id })));
  return memories;
}

const filters: MemoryFilter[] = [
  {},
  { namespace: "a" },
  { namespace: "missing" },
  { tags: ["x", "z"] },
  { session_id: "s1", pinned: false },
  { agent_id: "bot", memory_type: "decision" },
  { created_after: new Date(NOW - 10 * DAY).toISOString(), created_before: new Date(NOW - 2 * DAY).toISOString() },
];

async function compareAll(now = NOW): Promise<void> {
  for (const filter of filters) {
    for (const [offset, limit] of [[0, 20], [0, 100], [7, 13], [150, 50], [10_000, 5]] as const) {
      const cached = await store.listMemories(user, filter, { offset, limit }, now);
      const sql = store.listMemoriesSql(user, filter, { offset, limit }, now);
      expect({ filter, offset, ids: cached.memories.map((m) => m.id), total: cached.total }).toEqual({ filter, offset, ids: sql.memories.map((m) => m.id), total: sql.total });
      expect(cached.memories).toEqual(sql.memories);
    }
  }
}

test("cache pages equal SQL's, before and after writes", async () => {
  const memories = await insert(300);
  await compareAll();
  await store.softDelete(user, memories.slice(0, 40).map((m) => m.id), NOW);
  await insert(25);
  const target = memories[100]!;
  await store.updateMemory(user, { memory: { ...target, namespace: "b", pinned: !target.pinned, updated_at: new Date(NOW).toISOString() } });
  await compareAll();
});

test("totals counted once per change and filter follow the clock past expiries, forward and back", async () => {
  // rows expire at NOW - DAY and NOW + DAY: each instant below is on another side of some of them
  for (const now of [NOW, NOW + DAY - 1, NOW + DAY, NOW + 2 * DAY, NOW - 2 * DAY, NOW - DAY, NOW]) await compareAll(now);
});

test("a filter field the cache does not know is answered by SQL", async () => {
  // a field added to MemoryFilter later (e.g. by another change) must not be silently ignored
  const filter = { namespace: "a", unknown_field: "value" } as MemoryFilter;
  const listed = await store.listMemories(user, filter, { offset: 0, limit: 5 }, NOW);
  expect(listed.total).toBe(store.listMemoriesSql(user, filter, { offset: 0, limit: 5 }, NOW).total);
});
