import type { Memory } from "../../domain/memory";

/** Pending access bumps are written at most this long after the recall that made them. */
export const ACCESS_FLUSH_MS = 250;
/** …or as soon as this many memories have a pending bump (bounds memory and the batch). */
export const ACCESS_FLUSH_ENTRIES = 5_000;

interface PendingBump {
  id: string;
  userId: string;
  count: number;
  /** the latest access, ISO */
  at: string;
}

/**
 * Access bumps (access_count + 1, accessed_at = now) written behind in batches: a recall used to
 * commit its own transaction just for these counters; now the bumps of every recall within
 * ACCESS_FLUSH_MS go to SQLite in one transaction (group commit).
 *
 * Reads see pending bumps: the store passes every memory it returns through `overlay`, and
 * flushes first where SQL itself reads the counters (stats, and updateMemory, whose record carries
 * the overlaid count). A clean stop flushes (SqliteStore.close). A crash (kill -9, power loss)
 * loses at most the bumps of the last ACCESS_FLUSH_MS (and never more than ACCESS_FLUSH_ENTRIES
 * memories' worth): access counts only, never a memory or an acknowledged write.
 */
export class AccessLog {
  private pending = new Map<string, PendingBump>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** keyed by user id and memory id: a bump only ever applies to the wallet's own memory */
  constructor(private readonly write: (bumps: PendingBump[]) => void) {}

  get size(): number {
    return this.pending.size;
  }

  record(userId: string, ids: string[], at: string): void {
    for (const id of new Set(ids)) {
      const key = `${userId}/${id}`;
      const bump = this.pending.get(key);
      if (!bump) this.pending.set(key, { id, userId, count: 1, at });
      else {
        bump.count++;
        if (at > bump.at) bump.at = at;
      }
    }
    if (this.pending.size >= ACCESS_FLUSH_ENTRIES) this.flush();
    else if (this.pending.size > 0 && !this.timer) {
      this.timer = setTimeout(() => this.flush(), ACCESS_FLUSH_MS);
      this.timer.unref?.();
    }
  }

  /** The memory as it will be once its pending bumps are written (the same object when none). */
  overlay(memory: Memory): Memory {
    const bump = this.pending.get(`${memory.user_id}/${memory.id}`);
    if (!bump) return memory;
    memory.access_count += bump.count;
    if (bump.at > memory.accessed_at) memory.accessed_at = bump.at;
    return memory;
  }

  /** Writes every pending bump now (one transaction). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.write(batch);
  }
}
