import { expect, test } from "bun:test";
import { AccessLog, type AccessBump } from "../../src/store/access-log";
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
