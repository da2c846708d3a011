import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { newMemory } from "../../src/domain/memory";

/**
 * WAL checkpoints run on the checkpointer's thread (src/store/sqlite/checkpointer.ts): committed
 * pages reach the database file without another write on the store's connection (whose own
 * auto-checkpoint only triggers far later), and the data is intact across a reopen.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("committed writes are checkpointed into the database file in the background", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-checkpoint-"));
  dirs.push(dir);
  const file = join(dir, "engram.sqlite");
  const store = new SqliteStore(dir);
  await store.bindEmbeddingModel({ id: "test", dimension: 4 });
  await Bun.sleep(1200); // the set-up's own pages are checkpointed first
  const before = statSync(file).size;
  const user = crypto.randomUUID();
  // ~300 rows: far fewer WAL pages than any auto-checkpoint threshold, so only the checkpointer copies them
  const memories = Array.from({ length: 300 }, (_, i) => newMemory({ user_id: user, content: `note ${i} ${"x".repeat(400)}` }, new Date().toISOString()));
  await store.insertMemories(memories.map((m) => ({ memory: m, embedding: new Float32Array([1, 0, 0, 0]), content_hash: m.id })));
  expect(statSync(`${file}-wal`).size).toBeGreaterThan(100_000);

  const deadline = Date.now() + 10_000;
  while (statSync(file).size <= before + 100_000 && Date.now() < deadline) await Bun.sleep(50);
  expect(statSync(file).size).toBeGreaterThan(before + 100_000);

  await store.close();
  const reopened = new SqliteStore(dir);
  expect((await reopened.listMemories(user, {}, { limit: 1, offset: 0 }, Date.now())).total).toBe(300);
  await reopened.close();
});
