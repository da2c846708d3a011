/**
 * A store SQLite cannot open says which directory, as which uid, and how to grant it
 * (src/store/sqlite/open-failure.ts), not only "unable to open database file".
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { openFailure } from "../../src/store/sqlite/open-failure";

const dir = mkdtempSync(join(tmpdir(), "engram-open-failure-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const openError = (dataDir: string) => {
  try {
    void new SqliteStore(dataDir).close();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`opened a store in ${dataDir}`);
};

test("a directory the service's user cannot write: the directory, the uid, chown and Podman's :U", () => {
  const message = openFailure("/data", new Error("unable to open database file"), 1000, "EACCES").message;
  expect(message).toStartWith("cannot open the SQLite store in /data (unable to open database file)");
  expect(message).toContain("not writable by uid 1000");
  expect(message).toContain("chown 1000 /data");
  expect(message).toContain("-v ./data:/data:U");
});

test("a read-only file system says so instead of asking for a chown", () => {
  const message = openFailure("/data", new Error("unable to open database file"), 1000, "EROFS").message;
  expect(message).toContain("read-only file system");
  expect(message).not.toContain("chown");
});

test("a DATA_DIR under a regular file: the store's error names the directory and the missing directory", () => {
  const file = join(dir, "a-file");
  writeFileSync(file, "");
  const message = openError(join(file, "data"));
  expect(message).toContain(`cannot open the SQLite store in ${join(file, "data")} (unable to open database file)`);
  expect(message).toContain("no such directory");
});

test.skipIf(process.getuid?.() === 0)("a directory without write permission (not as root, where permissions do not apply)", () => {
  const locked = join(dir, "locked");
  mkdirSync(locked);
  chmodSync(locked, 0o555);
  try {
    const message = openError(locked);
    expect(message).toContain(`not writable by uid ${process.getuid!()}`);
    expect(message).toContain(`chown ${process.getuid!()} ${locked}`);
  } finally {
    chmodSync(locked, 0o755);
  }
});
