import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { newMemory } from "../../src/domain/memory";
import { historyEntry } from "../../src/domain/history";
import { dbOf } from "../helpers/store-reference";

const dir = mkdtempSync(join(tmpdir(), "engram-history-"));
const store = new SqliteStore(dir);
await store.bindEmbeddingModel({ id: "test", dimension: 4 });
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("sqlite keeps a history entry whole (snapshots in their own column); entries from before that column read as the spec's four fields", async () => {
  const user = crypto.randomUUID();
  const memory = newMemory({ user_id: user, content: "The deploy key rotates every Friday.", metadata: { tags: ["ops"] } }, "2026-01-01T00:00:00.000Z");
  await store.insertMemories([{ memory, embedding: new Float32Array([1, 0, 0, 0]), content_hash: memory.id }]);
  const old = { id: crypto.randomUUID(), memory_id: memory.id, changes: { importance: 0.7 }, created_at: "2026-01-02T00:00:00.000Z" };
  dbOf(store)
    .query("insert into history (id, user_id, memory_id, changes, created_at) values (?, ?, ?, ?, ?)")
    .run(old.id, user, old.memory_id, JSON.stringify(old.changes), old.created_at);
  const after = { ...memory, importance: 0.9, pinned: true, updated_at: "2026-01-03T00:00:00.000Z" };
  const entry = historyEntry(memory, after, { importance: 0.9, pinned: true }, after.updated_at);
  await store.updateMemory(user, { memory: after, history: entry });
  expect(await store.history(user, memory.id)).toEqual([entry, old]);
  expect(await store.history(crypto.randomUUID(), memory.id)).toEqual([]);
});
