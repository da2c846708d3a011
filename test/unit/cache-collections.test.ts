/** The collections the cache's budget asks for (cache-budget.ts): an asynchronous one each MiB the cache grows by. */
import { expect, test } from "bun:test";
import { CacheBudget } from "../../src/store/sqlite/cache-budget";
import type { UserVectors } from "../../src/store/sqlite/wallet-cache";

const KIB = 1024;

/** A wallet that reports the bytes it is given. */
function wallet(): { user: UserVectors; grow: (bytes: number) => void } {
  let bytes = 0;
  const user = { bytes: () => bytes } as unknown as UserVectors;
  return { user, grow: (more) => (bytes += more) };
}

test("an asynchronous collection each MiB of growth, none for shrinking", () => {
  const asked: boolean[] = [];
  const budget = new CacheBudget(2 ** 30, null, () => asked.push(false));
  const { user, grow } = wallet();
  for (let i = 0; i < 1023; i++) {
    grow(KIB);
    budget.charge(user);
  }
  expect(asked).toEqual([]);
  grow(KIB);
  budget.charge(user);
  expect(asked).toEqual([false]);
  grow(-512 * KIB);
  budget.charge(user);
  grow(-512 * KIB);
  budget.charge(user);
  expect(asked).toEqual([false]);
});
