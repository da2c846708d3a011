import type { Counted } from "../access-log";

/**
 * A memory's access hash field (scripts.ts RECORD_ACCESS writes it): "{count} {accessed_at}". It is
 * kept out of the indexed document, so every read of a memory applies it (redis-store.ts, and a
 * whole-store copy's reads in transfer.ts).
 */
export function parseAccess(field: string): { count: number; at: string } {
  const space = field.indexOf(" ");
  return { count: Number(field.slice(0, space)), at: field.slice(space + 1) };
}

/** The item with an access hash field applied (it overrides the document's counters), or unchanged. */
export function withAccess<T extends Counted>(item: T, field: string | null): T {
  if (field === null) return item;
  const { count, at } = parseAccess(field);
  item.access_count = count;
  item.accessed_at = at;
  return item;
}
