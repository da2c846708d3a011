import type { Commands } from "../../src/store/redis/nodes";

/**
 * Whether the server knows `command`: COMMAND INFO answers nil for one it does not have. Tests that
 * read what only a newer server keeps check this and skip (or write without it) with a stated
 * reason, so the suite runs on every server the engine supports.
 */
export async function hasCommand(node: Commands, command: string): Promise<boolean> {
  const [info] = (await node.sendCommand(["COMMAND", "INFO", command])) as unknown[];
  return Array.isArray(info);
}

/**
 * Hash field expiry (HPEXPIREAT, HPEXPIRETIME) came with Redis 7.4. The engine copes without it: a
 * recalled memory's access field then outlives the memory until a stats call removes it
 * (scripts.ts RECORD_ACCESS pcalls HPEXPIREAT; redis-store.ts accessCorrection).
 */
export const FIELD_EXPIRY = "HPEXPIRETIME";

/** Prints once why a check is left out on this server. */
export function noticeMissing(file: string, command: string, what: string): void {
  console.log(`[${file}] the Redis server has no ${command} (Redis 7.4+): ${what} skipped`);
}
