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

/** The per-slot columns a filter reads, and the wallet's tag sets (tag-sets.ts). */
export interface FilterColumns {
  namespace: Int32Array;
  session: Int32Array;
  agent: Int32Array;
  type: Int32Array;
  pinned: Uint8Array;
  created: Float64Array;
  expires: Float64Array;
  hasVector: Uint8Array;
  /** the row's tag set number, 0 for none */
  tagSet: Int32Array;
  tagStarts: Int32Array;
  tagList: Int32Array;
}

export function slotFilter(f: FilterIds, c: FilterColumns): (slot: number) => boolean {
  const { namespace, session, agent, type, pinned, after, before, tags: tagIds, vectors, now } = f;
  const [ns, se, ag, ty, pi, cr, ex, hv, ts, starts, list] = [c.namespace, c.session, c.agent, c.type, c.pinned, c.created, c.expires, c.hasVector, c.tagSet, c.tagStarts, c.tagList];
  return (slot) => {
    if (ex[slot]! <= now) return false;
    if (vectors && hv[slot] === 0) return false;
    if (namespace >= 0 && ns[slot] !== namespace) return false;
    if (session >= 0 && se[slot] !== session) return false;
    if (agent >= 0 && ag[slot] !== agent) return false;
    if (type >= 0 && ty[slot] !== type) return false;
    if (pinned >= 0 && pi[slot] !== pinned) return false;
    const created = cr[slot]!;
    if (created <= after || created >= before) return false;
    if (tagIds !== null) {
      const set = ts[slot]!;
      if (set === 0) return false;
      let any = false;
      for (let i = starts[set - 1]!, end = starts[set]!; i < end && !any; i++) any = tagIds.has(list[i]!);
      if (!any) return false;
    }
    return true;
  };
}
