import { expect, test } from "bun:test";
import { ACCESS_DRAIN_TURNS, AccessLog, type AccessBump } from "../../src/store/access-log";
import { newMemory } from "../../src/domain/memory";

/** The write-behind log both engines share (src/store/access-log.ts), with a fake asynchronous writer. */
const user = "u1";
const at = "2026-01-01T00:00:00.000Z";
const later = "2026-01-02T00:00:00.000Z";
const fresh = (id: string) => ({ ...newMemory({ user_id: user, content: id }, at), id });

test("an asynchronous writer: flush resolves once written; a view taken before the flush still counts the batch once", async () => {
  const written: AccessBump[][] = [];
  let release!: () => void;
  const log = new AccessLog((bumps) => new Promise<void>((resolve) => (release = () => (written.push(bumps), resolve()))));
  log.record(user, ["a", "a", "b"], at); // the same id twice in one recall counts once
  log.record(user, ["a"], later);
  const before = log.view();
  const flushing = log.flush();
  const after = log.view();
  expect(log.size).toBe(0);
  log.record(user, ["b"], later); // recorded while the write is under way
  const second = log.flush(); // waits for the first write, then writes b's new bump
  release();
  await flushing;
  expect(written).toEqual([[{ id: "a", userId: user, count: 2, at: later }, { id: "b", userId: user, count: 1, at }]]);
  expect(before(fresh("a")).access_count).toBe(2); // read sent before the write: sees the batch
  expect(after(fresh("a")).access_count).toBe(0); // read sent after it: the document has it
  expect(before(fresh("b")).access_count).toBe(2);
  await Bun.sleep(0);
  release();
  await second;
  expect(written[1]).toEqual([{ id: "b", userId: user, count: 1, at: later }]);
  await log.close();
});

test("a failed write, or the part of it the writer reports unwritten, is kept for the next flush", async () => {
  let mode: "throw" | "partial" | "ok" = "throw";
  const written: AccessBump[] = [];
  const log = new AccessLog(async (bumps) => {
    if (mode === "throw") throw new Error("down");
    if (mode === "partial") {
      written.push(...bumps.slice(1));
      return bumps.slice(0, 1);
    }
    written.push(...bumps);
  });
  log.record(user, ["a", "b"], at);
  const view = log.view();
  await expect(log.flush()).rejects.toThrow("down");
  expect(log.size).toBe(2);
  expect(view(fresh("a")).access_count).toBe(1); // once, not twice
  log.record(user, ["a"], later);
  mode = "partial";
  await log.flush();
  expect(written).toEqual([{ id: "b", userId: user, count: 1, at }]);
  expect(log.overlay(fresh("a"))).toMatchObject({ access_count: 2, accessed_at: later });
  mode = "ok";
  await log.close();
  expect(written).toEqual([{ id: "b", userId: user, count: 1, at }, { id: "a", userId: user, count: 2, at: later }]);
  log.record(user, ["a"], later); // after close: ignored
  expect(log.size).toBe(0);
});

/** A synchronous writer over an in-memory table of committed counts, as the sqlite store's is. */
function syncTable() {
  const committed = new Map<string, number>();
  const written: string[][] = [];
  let failing = false;
  const write = (bumps: AccessBump[]) => {
    if (failing) throw new Error("database is locked");
    written.push(bumps.map((b) => b.id));
    for (const b of bumps) committed.set(b.id, (committed.get(b.id) ?? 0) + b.count);
  };
  return { committed, written, write, fail: (on: boolean) => (failing = on) };
}
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("a synchronous writer with chunk: a chunk per turn, reads between count each bump once, flushSync writes the rest", async () => {
  const table = syncTable();
  const log = new AccessLog(table.write, { chunk: 2 });
  const read = (id: string) => log.overlay({ ...fresh(id), access_count: table.committed.get(id) ?? 0 }).access_count;
  const ids = ["a", "b", "c", "d", "e"];
  log.record(user, ids, at);
  const flushing = log.flush();
  expect(table.written).toEqual([["a", "b"]]); // the first chunk before flush returns
  expect(ids.map(read)).toEqual([1, 1, 1, 1, 1]);
  log.record(user, ["c"], later); // recorded during the drain
  expect([read("c"), log.pendingCount(user, "c"), log.pendingCount(user, "a")]).toEqual([2, 2, 0]);
  await nextTurn();
  expect(table.written).toEqual([["a", "b"], ["c", "d"]]);
  expect(ids.map(read)).toEqual([1, 1, 2, 1, 1]);
  log.flushSync(); // the draining rest, then the bump recorded meanwhile
  expect(table.written).toEqual([["a", "b"], ["c", "d"], ["e"], ["c"]]);
  expect(ids.map(read)).toEqual([1, 1, 2, 1, 1]);
  expect(ids.map((id) => log.pendingCount(user, id))).toEqual([0, 0, 0, 0, 0]);
  await flushing; // the drain ends at its next turn without writing anything again
  expect(table.written).toHaveLength(4);
  await log.close();
});

test("a chunk that fails is kept, with the chunks after it, for the next flush", async () => {
  const table = syncTable();
  const log = new AccessLog(table.write, { chunk: 2 });
  const read = (id: string) => log.overlay({ ...fresh(id), access_count: table.committed.get(id) ?? 0 }).access_count;
  log.record(user, ["a", "b", "c", "d", "e"], at);
  const flushing = log.flush();
  table.fail(true);
  await expect(flushing).rejects.toThrow("database is locked");
  expect(log.size).toBe(3); // c, d and e wait in the current generation
  expect(["a", "c", "e"].map(read)).toEqual([1, 1, 1]);
  table.fail(false);
  await log.close(); // writes them before it returns
  expect(table.written).toEqual([["a", "b"], ["c", "d", "e"]]);
  expect(["a", "c", "e"].map(read)).toEqual([1, 1, 1]);
});

test("a flush drains in ACCESS_DRAIN_TURNS turns at most: a backlog larger than chunk × turns gets larger chunks", async () => {
  const table = syncTable();
  const log = new AccessLog(table.write, { chunk: 2 });
  const ids = Array.from({ length: 10 * ACCESS_DRAIN_TURNS }, (_, i) => `m${i}`);
  log.record(user, ids, at);
  await log.flush();
  expect(table.written).toHaveLength(ACCESS_DRAIN_TURNS);
  expect(table.written.every((chunk) => chunk.length === 10)).toBe(true);
  expect(table.committed.size).toBe(ids.length);
  await log.close();
});
