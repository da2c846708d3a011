import { accessSync, constants } from "node:fs";

/**
 * Why SQLite could not open the store in DATA_DIR, in terms an operator can act on. SQLite itself
 * says only "unable to open database file" or "attempt to write a readonly database"; the usual
 * cause is a bind-mounted directory owned by root on the host while the container runs as uid 1000
 * (the image's `bun` user). `uid` and `code` (the directory's access error) are parameters for tests.
 */
export function openFailure(dataDir: string, cause: unknown, uid = process.getuid?.(), code = accessError(dataDir)): Error {
  const sqlite = cause instanceof Error ? cause.message : String(cause);
  const who = uid === undefined ? "the service's user" : `uid ${uid}, the user the service runs as`;
  return new Error(`cannot open the SQLite store in ${dataDir} (${sqlite}): ${diagnosis(dataDir, who, uid, code)}`, { cause });
}

/** The directory's access error for creating files in it (EACCES, EROFS, ENOTDIR…), or undefined. */
function accessError(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "EACCES";
  }
}

function diagnosis(dataDir: string, who: string, uid: number | undefined, code: string | undefined): string {
  switch (code) {
    case undefined:
      return `the directory is writable by ${who}; check that engram.sqlite and its -wal and -shm files in it are too, and the disk's free space`;
    case "EROFS":
      return "the directory is on a read-only file system; mount it read-write";
    case "ENOENT":
    case "ENOTDIR":
      return "no such directory (or a part of its path is not a directory); set DATA_DIR to a directory";
    default:
      return (
        `the directory is not writable by ${who}. Give it to that user: chown ${uid ?? "<uid>"} ${dataDir} ` +
        `(for a bind mount, the host directory mounted there), or on Podman add :U to the volume ` +
        `(-v ./data:${dataDir}:U); see docs/deployment.md › Data directory`
      );
  }
}
