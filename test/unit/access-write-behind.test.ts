import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { ACCESS_COUNT_SQL, ACCESS_JOIN, ACCESSED_AT_SQL } from "../../src/store/sqlite/schema";
import { ACCESS_FLUSH_ENTRIES } from "../../src/store/access-log";
import { newMemory, type Memory } from "../../src/domain/memory";

/**
 * Recall's access bumps are written behind (src/store/access-log.ts): every read through the
 * store sees them at once, SQL sees them after a flush (timer, size, updateMemory, stats, close).
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function open() {
  const dir = mkdtempSync(join(tmpdir(), "engram-access-"));
  dirs.push(dir);
  const store = new SqliteStore(dir);
  await store.bindEmbeddingModel({ id: "test", dimension: 4 });
  /** the committed counters, read by another connection */
  const committed = (id: string) => {
    const db = new Database(join(dir, "engram.sqlite"), { readonly: true });
    try {
      return db
        .query(`select ${ACCESS_COUNT_SQL} as access_count, ${ACCESSED_AT_SQL} as accessed_at from memories m ${ACCESS_JOIN} where m.id = ?`)
        .get(id) as { access_count: number; accessed_at: string };
    } finally {
      db.close();
    }
  };
  return { dir, store, committed };
}

const at = "2026-01-01T00:00:00.000Z";
const t1 = Date.parse("2026-01-02T00:00:00.000Z");
const t2 = Date.parse("2026-01-03T00:00:00.000Z");
async function seed(store: SqliteStore, user: string, n: number): Promise<Memory[]> {
  const memories = Array.from({ length: n }, (_, i) => newMemory({ user_id: user, content: `memory number ${i}` }, at));
  await store.insertMemories(memories.map((m) => ({ memory: m, embedding: new Float32Array([1, 0, 0, 0]), content_hash: m.id })));
  return memories;
}

test("reads see pending bumps at once; they are committed together, and on close", async () => {
  const { dir, store, committed } = await open();
  const user = crypto.randomUUID();
  const [a, b] = await seed(store, user, 2);
  await store.recordAccess(user, [a!.id, b!.id], t1);
  await store.recordAccess(user, [a!.id], t2);
  await store.recordAccess(crypto.randomUUID(), [b!.id], t2); // another wallet's id: no effect
  const [ra, rb] = await store.getMemories(user, [a!.id, b!.id], t2);
  expect([ra!.access_count, ra!.accessed_at, rb!.access_count, rb!.accessed_at]).toEqual([2, new Date(t2).toISOString(), 1, new Date(t1).toISOString()]);
  expect((await store.listMemories(user, {}, { limit: 10, offset: 0 }, t2)).memories.map((m) => m.access_count).sort()).toEqual([1, 2]);
  expect(committed(a!.id).access_count).toBe(0); // still pending: no transaction per recall
  await store.close(); // a clean stop flushes
  expect(committed(a!.id)).toEqual({ access_count: 2, accessed_at: new Date(t2).toISOString() });
  expect(committed(b!.id)).toEqual({ access_count: 1, accessed_at: new Date(t1).toISOString() });
  const reopened = new SqliteStore(dir);
  expect((await reopened.getMemories(user, [a!.id], t2))[0]!.access_count).toBe(2);
  await reopened.close();
});

test("an update of a memory with pending bumps counts them once; stats see them", async () => {
  const { store, committed } = await open();
  const user = crypto.randomUUID();
  const [a] = await seed(store, user, 1);
  await store.recordAccess(user, [a!.id], t1);
  const read = (await store.getMemories(user, [a!.id], t1))[0]!;
  expect(read.access_count).toBe(1);
  await store.updateMemory(user, { memory: { ...read, importance: 0.9, updated_at: new Date(t1).toISOString() } });
  expect(committed(a!.id).access_count).toBe(1);
  expect((await store.getMemories(user, [a!.id], t1))[0]!.access_count).toBe(1);
  await store.recordAccess(user, [a!.id], t2);
  expect((await store.stats(user, t2)).total_accesses).toBe(2);
  await store.close();
  expect(committed(a!.id).access_count).toBe(2);
});

test("the pending set is bounded: its writing starts once it holds ACCESS_FLUSH_ENTRIES memories, a chunk per turn", async () => {
  const { store, committed } = await open();
  const user = crypto.randomUUID();
  const memories = await seed(store, user, ACCESS_FLUSH_ENTRIES);
  for (let i = 0; i < memories.length; i += 100) await store.recordAccess(user, memories.slice(i, i + 100).map((m) => m.id), t1);
  const last = memories.at(-1)!.id;
  expect(committed(memories[0]!.id).access_count).toBe(1); // the first chunk at once
  expect(committed(last).access_count).toBe(0); // the last one a few turns later
  for (let i = 0; i < 200 && committed(last).access_count === 0; i++) await Bun.sleep(5);
  expect(committed(last).access_count).toBe(1);
  await store.close();
});

test("while a flush is written chunk by chunk, reads count every bump once, and stats write the rest at once", async () => {
  const { store, committed } = await open();
  const user = crypto.randomUUID();
  const memories = await seed(store, user, ACCESS_FLUSH_ENTRIES);
  const ids = memories.map((m) => m.id);
  await store.recordAccess(user, ids.slice(0, 10), t1); // below the bound: pending
  for (let i = 0; i < ids.length; i += 100) await store.recordAccess(user, ids.slice(i, i + 100), t2); // the bound: the drain starts
  const [first, last] = [ids[0]!, ids.at(-1)!];
  expect([committed(first).access_count, committed(last).access_count]).toEqual([2, 0]); // written / still pending
  await store.recordAccess(user, [last], t2); // recorded during the drain
  const read = await store.getMemories(user, [first, ids[10]!, last], t2);
  expect(read.map((m) => m.access_count)).toEqual([2, 1, 2]);
  expect((await store.stats(user, t2)).total_accesses).toBe(10 + ids.length + 1);
  expect(committed(last).access_count).toBe(2);
  await Bun.sleep(20); // the drain's next turn finds nothing left: nothing is written twice
  expect((await store.getMemories(user, [first, last], t2)).map((m) => m.access_count)).toEqual([2, 2]);
  expect([committed(first).access_count, committed(last).access_count]).toEqual([2, 2]);
  await store.close();
});

test("pending bumps are written within the flush interval without any other call", async () => {
  const { store, committed } = await open();
  const user = crypto.randomUUID();
  const [a] = await seed(store, user, 1);
  await store.recordAccess(user, [a!.id], t1);
  for (let i = 0; i < 100 && committed(a!.id).access_count === 0; i++) await Bun.sleep(50);
  expect(committed(a!.id).access_count).toBe(1);
  await store.close();
});

test("committed bumps live in memory_access, overriding the row's counters until the row is written again", async () => {
  const { dir, store, committed } = await open();
  const user = crypto.randomUUID();
  const [a] = await seed(store, user, 1);
  const raw = new Database(join(dir, "engram.sqlite"), { readonly: true });
  const row = () => raw.query("select access_count, accessed_at from memories where id = ?").get(a!.id);
  const side = () => raw.query("select a.count, a.accessed_at from memory_access a join memories m on m.rowid = a.row_id where m.id = ?").get(a!.id);
  try {
    await store.recordAccess(user, [a!.id], t1);
    await store.recordAccess(user, [a!.id], t2);
    await store.stats(user, t2); // writes the bumps
    expect(row()).toEqual({ access_count: 0, accessed_at: at }); // the memory row is not rewritten
    expect(side()).toEqual({ count: 2, accessed_at: new Date(t2).toISOString() });
    expect(committed(a!.id)).toEqual({ access_count: 2, accessed_at: new Date(t2).toISOString() });
    const read = (await store.getMemories(user, [a!.id], t2))[0]!;
    await store.updateMemory(user, { memory: { ...read, importance: 0.7, updated_at: new Date(t2).toISOString() } });
    expect(row()).toEqual({ access_count: 2, accessed_at: new Date(t2).toISOString() }); // the row holds them again
    expect(side()).toBeNull();
    await store.recordAccess(user, [a!.id], t1); // an older time does not move accessed_at back
    await store.stats(user, t2);
    expect(side()).toEqual({ count: 3, accessed_at: new Date(t2).toISOString() });
    expect((await store.getMemories(user, [a!.id], t2))[0]!.access_count).toBe(3);
  } finally {
    raw.close();
    await store.close();
  }
});

test("a store written before memory_access keeps its counters and counts on from them", async () => {
  const { dir, store } = await open();
  const user = crypto.randomUUID();
  const [a] = await seed(store, user, 1);
  await store.close();
  // the schema one step back, with counters in the memory row as that version wrote them
  const raw = new Database(join(dir, "engram.sqlite"));
  raw.exec("drop table memory_access");
  // migrations are appended, never edited: the sixth step made memory_access, so a store written
  // before it is at version 5 (the later steps run again at the open: they create only what is missing)
  raw.exec("pragma user_version = 5");
  raw.query("update memories set access_count = 5, accessed_at = ? where id = ?").run(new Date(t1).toISOString(), a!.id);
  raw.close();
  const reopened = new SqliteStore(dir);
  await reopened.bindEmbeddingModel({ id: "test", dimension: 4 });
  try {
    const before = (await reopened.getMemories(user, [a!.id], t2))[0]!;
    expect([before.access_count, before.accessed_at]).toEqual([5, new Date(t1).toISOString()]);
    await reopened.recordAccess(user, [a!.id], t2);
    expect((await reopened.stats(user, t2)).total_accesses).toBe(6);
    expect((await reopened.getMemories(user, [a!.id], t2))[0]!.accessed_at).toBe(new Date(t2).toISOString());
  } finally {
    await reopened.close();
  }
});

test("a copied memory (store transfer) takes the copy's counters over committed bumps, and exports its own", async () => {
  const { store, committed } = await open();
  const user = crypto.randomUUID();
  const [a] = await seed(store, user, 1);
  await store.recordAccess(user, [a!.id], t1);
  await store.recordAccess(user, [a!.id], t1);
  const transfer = await store.transfer(); // writes the bumps first
  const { items } = await transfer.memories(user, null, 10, t2);
  expect([items[0]!.memory.access_count, items[0]!.memory.accessed_at]).toEqual([2, new Date(t1).toISOString()]);
  await transfer.importMemories(user, [{ ...items[0]!, memory: { ...items[0]!.memory, access_count: 9, accessed_at: at } }]);
  expect(committed(a!.id)).toEqual({ access_count: 9, accessed_at: at });
  expect((await store.getMemories(user, [a!.id], t2))[0]!.access_count).toBe(9);
  await store.close();
});
