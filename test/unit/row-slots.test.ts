/**
 * The wallet cache's rowid → slot table (src/store/sqlite/row-slots.ts) against a Map, through seeded
 * random adds, deletes and the cache's hole filling (the last row moves into a deleted row's slot),
 * with rowids that collide in the table's low bits and rowids past 2^32.
 */
import { expect, test } from "bun:test";
import { prng } from "../../scripts/bench/synthetic";
import { RowSlots } from "../../src/store/sqlite/row-slots";
import { InternedNames } from "../../src/store/sqlite/interned-names";

test("RowSlots answers as a Map would through adds, deletes that move the last row, growth and shrinking", () => {
  const rng = prng(7);
  const rowids: number[] = []; // the cache's rowid column: slot → rowid
  const slots = new RowSlots({ rowidOf: (slot) => rowids[slot]! });
  const reference = new Map<number, number>();
  const kinds = [() => Math.floor(rng() * 5000), () => 1024 * Math.floor(rng() * 300), () => 2 ** 32 + Math.floor(rng() * 1000), () => 2 ** 52 - Math.floor(rng() * 1000)];
  for (let step = 0; step < 40_000; step++) {
    // grow for a while, then shrink, then grow again: the table doubles and halves
    const adding = step < 15_000 ? rng() < 0.8 : step < 30_000 ? rng() < 0.2 : rng() < 0.6;
    if (adding) {
      const rowid = kinds[Math.floor(rng() * kinds.length)]!();
      if (reference.has(rowid)) continue;
      rowids.push(rowid);
      slots.add(rowid, rowids.length - 1);
      reference.set(rowid, rowids.length - 1);
    } else if (rowids.length > 0) {
      const slot = Math.floor(rng() * rowids.length);
      const rowid = rowids[slot]!;
      slots.delete(rowid);
      reference.delete(rowid);
      const last = rowids.length - 1;
      if (slot !== last) {
        const moved = rowids[last]!;
        slots.move(moved, slot);
        rowids[slot] = moved;
        reference.set(moved, slot);
      }
      rowids.pop();
    }
    if (step % 1000 === 0) {
      for (const [rowid, slot] of reference) expect(slots.get(rowid)).toBe(slot);
      for (let i = 0; i < 50; i++) {
        const absent = -1 - Math.floor(rng() * 1e6);
        expect(slots.has(absent)).toBe(false);
      }
    }
    expect(slots.size).toBe(reference.size);
  }
  for (const [rowid, slot] of reference) expect(slots.get(rowid)).toBe(slot);
  // held at most half full, at least an eighth (when larger than its minimum)
  expect(slots.bytes() / 4).toBeGreaterThanOrEqual(2 * slots.size);
  expect(slots.bytes() / 4 <= 8 || slots.bytes() / 4 <= 8 * slots.size).toBe(true);
});

test("InternedNames numbers names in order of first use, the same before and after its index is built", () => {
  const names = new InternedNames();
  const all = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? `session-${i}` : `ns-${i}`));
  all.forEach((name, i) => expect(names.intern(name)).toBe(i));
  all.forEach((name, i) => {
    expect(names.intern(name)).toBe(i);
    expect(names.idOf(name)).toBe(i);
    expect(names.nameOf(i)).toBe(name);
  });
  expect(names.idOf("absent")).toBeUndefined();
  expect(names.size).toBe(200);
});
