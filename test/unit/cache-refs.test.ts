import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prng } from "../../scripts/bench/synthetic";
import { newMemory, type MemoryType } from "../../src/domain/memory";
import type { MemoryRef } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { ACCESS_COUNT_SQL, ACCESS_JOIN } from "../../src/store/sqlite/schema";
import { IdColumn, TimestampColumn } from "../../src/store/sqlite/compact-strings";

/**
 * The sqlite engine's cache keeps memory ids and created_at compactly (compact-strings.ts: packed
 * UUIDs, timestamps rebuilt from their instant) and shares one tag array between rows with the same
 * tags. What it hands to ranking (MemoryRef) must be the stored text exactly, canonical or not, and
 * tag filters must match as SQL does, also after deletes move rows between slots.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const rng = prng(77);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const now = Date.parse("2026-03-01T00:00:00.000Z");

test("IdColumn and TimestampColumn return what was set, through moves, clears and growth", () => {
  const ids = new IdColumn(2);
  const times = new TimestampColumn();
  const values: { id: string; text: string; ms: number }[] = [];
  const idOf = (i: number) => {
    const uuid = crypto.randomUUID();
    return [uuid, uuid.toUpperCase(), `mem-${i}`, "", `${uuid}x`, uuid.replaceAll("-", "")][i % 6]!;
  };
  const textOf = (i: number) => {
    const ms = Date.parse("2025-01-01T00:00:00.000Z") + i * 1234567;
    const iso = new Date(ms).toISOString();
    return [iso, iso.replace(".000Z", "Z").replace(/\.\d+Z$/, "Z"), iso.replace("T", " "), iso.replace("Z", "+00:00"), "not a date"][i % 5]!;
  };
  for (let i = 0; i < 200; i++) {
    ids.reserve(i + 1);
    const id = idOf(i);
    const text = textOf(i);
    values.push({ id, text, ms: Date.parse(text) });
    ids.set(i, id);
    times.set(i, text, Date.parse(text));
  }
  const check = () => values.forEach((v, slot) => (expect(ids.get(slot)).toBe(v.id), expect(times.get(slot, v.ms)).toBe(v.text)));
  check();
  // the cache's delete: the last row moves into the hole, the last slot is cleared
  for (let n = 0; n < 120; n++) {
    const slot = Math.floor(rng() * values.length);
    const last = values.length - 1;
    if (slot !== last) {
      ids.move(last, slot);
      times.move(last, slot);
      values[slot] = values[last]!;
    }
    ids.clear(last);
    times.clear(last);
    values.pop();
    check();
  }
  // a slot set again with the other kind of value
  ids.set(0, "custom-id");
  ids.set(1, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
  expect(ids.get(0)).toBe("custom-id");
  expect(ids.get(1)).toBe("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
});

test("refs and tag filters answered from the cache equal the stored rows, canonical or not, after deletes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "engram-cache-refs-"));
  dirs.push(dir);
  const store = new SqliteStore(dir);
  const D = 4;
  await store.bindEmbeddingModel({ id: "test", dimension: D });
  const user = crypto.randomUUID();
  const TAGS = [[], ["a"], ["a", "b"], ["b", "a"], ["c"], ["a"], ["a", "b"]];
  for (const [batch, count] of [[0, 300], [1, 2500]] as const) {
    // the second batch takes the wallet past the int8 kernel's threshold (2048 rows)
    const items = Array.from({ length: count }, (_, i) => {
      const n = batch * 1000 + i;
      const uuid = crypto.randomUUID();
      const id = [uuid, uuid, uuid, uuid.toUpperCase(), `imported-${n}`][n % 5]!;
      const ms = now - Math.floor(rng() * 1e9);
      const iso = new Date(ms).toISOString();
      const created = [iso, iso, iso, iso.replace(/\.\d+Z$/, "Z"), iso.replace("T", " ").replace("Z", "")][Math.floor(rng() * 5)]!;
      const memory = newMemory(
        { id, user_id: user, content: `note ${n} about ${pick(["deploys", "lunch", "billing"])}`, metadata: { tags: pick(TAGS) }, memory_type: pick<MemoryType>(["general", "decision"]), importance: rng() },
        created,
      );
      const embedding = Float32Array.from({ length: D }, () => rng() - 0.5);
      return { memory, embedding, content_hash: `h${n}` };
    });
    await store.insertMemories(items);
  }
  const db = new Database(join(dir, "engram.sqlite"), { readonly: true });
  const stored = () =>
    new Map(
      (db.query(`select m.id, m.created_at, m.memory_type, m.pinned, m.importance, ${ACCESS_COUNT_SQL} as access_count, m.metadata from memories m ${ACCESS_JOIN} where m.user_id = ? and m.deleted_at is null`).all(user) as Record<string, unknown>[]).map((r) => [
        r.id as string,
        r,
      ]),
    );
  const check = async () => {
    const rows = stored();
    const query = Float32Array.from({ length: D }, () => rng() - 0.5);
    const hits = await store.nearest(user, query, {}, rows.size, now);
    expect(hits.length).toBe(rows.size);
    for (const { memory } of hits) {
      const row = rows.get(memory.id)!;
      expect(row).toBeDefined();
      expect(memory).toEqual({ id: row.id, created_at: row.created_at, memory_type: row.memory_type, pinned: row.pinned === 1, importance: row.importance, access_count: row.access_count } as MemoryRef);
    }
    for (const tags of [["a"], ["b"], ["c"], ["a", "c"], ["d"]]) {
      const want = [...rows.values()].filter((r) => ((JSON.parse(r.metadata as string).tags ?? []) as string[]).some((t) => tags.includes(t))).map((r) => r.id as string).sort();
      const got = (await store.nearest(user, query, { tags }, rows.size, now)).map((h) => h.memory.id).sort();
      expect(got).toEqual(want);
      const text = (await store.searchText(user, ["note"], { tags }, rows.size, now)).map((h) => h.memory.id).sort();
      expect(text).toEqual(want);
    }
  };
  await check();
  // deletes move the last rows into the holes
  const ids = [...stored().keys()];
  await store.softDelete(user, ids.filter(() => rng() < 0.3), now);
  await check();
  db.close();
  await store.close();
});
