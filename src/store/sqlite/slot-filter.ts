import { AGENT, CREATED, EXPIRES, HAS_VECTOR, NAMESPACE, PINNED, SESSION, TAG_SET, TYPE, type SlotColumns } from "./slot-columns";

/**
 * A MemoryFilter as a wallet's cache evaluates it, per slot, on the main thread and on the scan
 * thread alike (wallet-cache.ts, scan-worker.ts): the filter's strings as the wallet's interned ids.
 */
export interface FilterIds {
  /** interned ids; -1: any */
  namespace: number;
  session: number;
  agent: number;
  type: number;
  /** 1, 0, or -1: any */
  pinned: number;
  /** created_at strictly between these (ms) */
  after: number;
  before: number;
  /** any of these tag ids; null: any */
  tags: Set<number> | null;
  /** rows without a vector are left out (vector search) */
  vectors: boolean;
  /** rows expired at this instant are left out */
  now: number;
}

/** The per-slot columns a filter reads (slot-columns.ts), and the wallet's tag sets (tag-sets.ts). */
export interface FilterColumns extends SlotColumns {
  tagStarts: Int32Array;
  tagList: Int32Array;
}

export function slotFilter(f: FilterIds, c: FilterColumns): (slot: number) => boolean {
  const { namespace, session, agent, type, pinned, after, before, tags: tagIds, vectors, now } = f;
  const { num, ints, flags, capacity, tagStarts: starts, tagList: list } = c;
  // where each column starts
  const ns = NAMESPACE * capacity, se = SESSION * capacity, ag = AGENT * capacity, ty = TYPE * capacity, ts = TAG_SET * capacity;
  const cr = CREATED * capacity, ex = EXPIRES * capacity, pi = PINNED * capacity, hv = HAS_VECTOR * capacity;
  return (slot) => {
    if (num[ex + slot]! <= now) return false;
    if (vectors && flags[hv + slot] === 0) return false;
    if (namespace >= 0 && ints[ns + slot] !== namespace) return false;
    if (session >= 0 && ints[se + slot] !== session) return false;
    if (agent >= 0 && ints[ag + slot] !== agent) return false;
    if (type >= 0 && ints[ty + slot] !== type) return false;
    if (pinned >= 0 && flags[pi + slot] !== pinned) return false;
    const created = num[cr + slot]!;
    if (created <= after || created >= before) return false;
    if (tagIds !== null) {
      const set = ints[ts + slot]!;
      if (set === 0) return false;
      let any = false;
      for (let i = starts[set - 1]!, end = starts[set]!; i < end && !any; i++) any = tagIds.has(list[i]!);
      if (!any) return false;
    }
    return true;
  };
}
