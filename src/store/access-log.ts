import type { Memory } from "../domain/memory";
import { log } from "../log";

/** Pending access bumps are written at most this long after the recall that made them. */
export const ACCESS_FLUSH_MS = 250;
/** …or as soon as this many memories have a pending bump (bounds memory and the batch). */
export const ACCESS_FLUSH_ENTRIES = 5_000;
/**
 * A synchronous writer (sqlite) is handed a flush's bumps this many at a time, one event-loop turn
 * apart. When each bump rewrote its memory's whole row (~16 µs a bump in a 100k wallet), a
 * 1,000-bump flush written at once held the thread for ~17 ms, four times a second at one
 * connection, and was most of recall's p99. Bumps now go to a narrow table (~7.5 µs each,
 * sqlite/schema.ts), and this many keep a turn to ~1 ms.
 */
export const ACCESS_WRITE_CHUNK = 128;
/**
 * …but a flush is written in this many turns at most: under a load that records counts faster
 * than 128 a turn, the chunks grow with the backlog instead of the backlog growing without bound.
 */
export const ACCESS_DRAIN_TURNS = 16;

export interface AccessBump {
  id: string;
  userId: string;
  count: number;
  /** the latest access, ISO */
  at: string;
}

/**
 * Writes a batch of bumps. Returning (or resolving to) some of them says those were not written:
 * they are kept for the next flush; throwing says none was.
 */
export type AccessWriter = (bumps: AccessBump[]) => void | AccessBump[] | Promise<void | AccessBump[]>;

/**
 * Bumps by wallet, then memory id. Nested rather than keyed by a joined string: recall looks up
 * every candidate's pending count (up to 800 per call), and building a key each time was a tenth
 * of its CPU at 10k memories.
 */
class Bumps {
  private readonly byUser = new Map<string, Map<string, AccessBump>>();
  size = 0;

  get(userId: string, id: string): AccessBump | undefined {
    return this.byUser.get(userId)?.get(id);
  }

  /** Adds `count` accesses at `at` to the memory's bump (a new one when it has none). */
  add(userId: string, id: string, count: number, at: string): void {
    let own = this.byUser.get(userId);
    if (!own) this.byUser.set(userId, (own = new Map()));
    const bump = own.get(id);
    if (bump) {
      bump.count += count;
      if (at > bump.at) bump.at = at;
      return;
    }
    own.set(id, { id, userId, count, at });
    this.size++;
  }

  delete(userId: string, id: string): void {
    const own = this.byUser.get(userId);
    if (own?.delete(id)) this.size--;
  }

  all(): AccessBump[] {
    return [...this.byUser.values()].flatMap((own) => [...own.values()]);
  }

  /** Removes and returns up to `n` bumps. */
  takeSome(n: number): AccessBump[] {
    const taken: AccessBump[] = [];
    for (const [userId, own] of this.byUser) {
      for (const [id, bump] of own) {
        if (taken.length === n) return taken;
        taken.push(bump);
        own.delete(id);
        this.size--;
      }
      if (own.size === 0) this.byUser.delete(userId);
    }
    return taken;
  }

  clear(): void {
    this.byUser.clear();
    this.size = 0;
  }
}

/** The bumps recorded between two flushes; `next` is the generation that replaced it. */
interface Generation {
  bumps: Bumps;
  next: Generation | null;
}

/** The fields a bump changes, and what identifies its memory. */
export type Counted = Pick<Memory, "id" | "user_id" | "access_count" | "accessed_at">;

/** Adds a memory's bumps not yet visible in what was read (see `AccessLog.view`); whole records or parts of them. */
export type AccessView = <T extends Counted>(memory: T) => T;

/**
 * Access bumps (access_count + n, accessed_at = the latest access) written behind in batches, for
 * both engines: a recall used to write its own counters (a SQLite transaction; on Redis a JSON write
 * per memory, each re-indexing the whole document); now the bumps of every recall within
 * ACCESS_FLUSH_MS are written together (SQLite transactions of ACCESS_WRITE_CHUNK, a turn apart;
 * one Redis pipeline).
 *
 * Reads see pending bumps: the store passes every memory it returns through `overlay` (or a `view`
 * taken just before its read was sent, for a store whose reads are asynchronous), and flushes first
 * where the engine itself reads the counters (stats, and updateMemory, whose record carries the
 * overlaid count). A clean stop flushes (`close`). A crash (kill -9, power loss) loses at most the
 * bumps of the last ACCESS_FLUSH_MS (and never more than ACCESS_FLUSH_ENTRIES memories' worth):
 * access counts only, never a memory or an acknowledged write. A failed write keeps its bumps for
 * the next flush and says so in the log.
 */
export class AccessLog {
  private current: Generation = { bumps: new Bumps(), next: null };
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** the write under way (settles, never rejects); writes run one at a time, in order */
  private writing: Promise<void> | null = null;
  /**
   * With `chunk`: the generation being written a chunk per turn. It holds only its bumps not yet
   * written, so reads count it (view, pendingCount) exactly as they count the current one.
   */
  private draining: Generation | null = null;
  private closed = false;

  /**
   * Keyed by user id and memory id: a bump only ever applies to the wallet's own memory.
   * `chunk`: for a synchronous writer, how many bumps it is handed per event-loop turn (see
   * ACCESS_WRITE_CHUNK); without it a flush hands over all of them at once.
   */
  constructor(
    private readonly write: AccessWriter,
    private readonly options: { chunk?: number } = {},
  ) {}

  /** Memories with a bump not yet handed to the writer. */
  get size(): number {
    return this.current.bumps.size;
  }

  record(userId: string, ids: string[], at: string): void {
    if (this.closed) return;
    for (const id of new Set(ids)) this.current.bumps.add(userId, id, 1, at);
    if (this.size >= ACCESS_FLUSH_ENTRIES) this.flushInBackground();
    else this.schedule();
  }

  /** The memory as it will be once its pending bumps are written (the same object when none). */
  overlay(memory: Memory): Memory {
    return this.view()(memory);
  }

  /**
   * Bumps of the memory not yet written, for a store whose writer is synchronous (sqlite: each chunk
   * is written within the call that takes it, so pending bumps are in the current generation or in
   * the one still draining, or moved back by a failed write). An asynchronous store reads through
   * `view` instead.
   */
  pendingCount(userId: string, id: string): number {
    return (this.draining?.bumps.get(userId, id)?.count ?? 0) + (this.current.bumps.get(userId, id)?.count ?? 0);
  }

  /**
   * For a read sent right after this call (same tick, same connection as the writer's): adds the
   * bumps pending now and any recorded later, including those a flush hands to the writer in the
   * meantime, whose write the engine runs after this read. A failed write moves its bumps to the
   * current generation, where the view still finds them once.
   */
  view(): AccessView {
    const from = this.draining ?? this.current;
    return <T extends Counted>(memory: T): T => {
      for (let generation: Generation | null = from; generation; generation = generation.next) {
        const bump = generation.bumps.get(memory.user_id, memory.id);
        if (!bump) continue;
        memory.access_count += bump.count;
        if (bump.at > memory.accessed_at) memory.accessed_at = bump.at;
      }
      return memory;
    };
  }

  /**
   * Writes every pending bump now, after any write under way: once it resolves, every bump recorded
   * before the call is written. A synchronous writer without `chunk` has run when this returns; with
   * it, the first chunk has. Rejects (after keeping the bumps for the next flush and logging) when
   * the write failed.
   */
  async flush(): Promise<void> {
    this.clearTimer();
    while (this.writing) await this.writing;
    const batch = this.take();
    if (!batch) return;
    if (this.options.chunk) return this.drain(batch, this.options.chunk);
    const bumps = batch.bumps.all();
    // the writer is called synchronously here (right after the swap): see `view`
    const written = (async () => this.write(bumps))();
    const settled = written.then(
      () => {},
      () => {},
    );
    this.writing = settled;
    try {
      const unwritten = await written;
      this.keepUnwritten(batch, bumps, unwritten);
    } catch (error) {
      this.keepFailed(batch, bumps, error);
      throw error;
    } finally {
      if (this.writing === settled) this.writing = null;
    }
  }

  /**
   * `flush` for a synchronous writer (sqlite), with no await before the write: the caller's next
   * statement sees it. Throws (after keeping the bumps for the next flush and logging) when it failed.
   */
  flushSync(): void {
    this.clearTimer();
    if (this.writing && !this.options.chunk) throw new Error("AccessLog.flushSync: an asynchronous write is under way");
    const draining = this.draining;
    if (draining) {
      this.draining = null; // the drain stops at its next turn
      this.writeSync(draining, draining.bumps.takeSome(Infinity));
    }
    const batch = this.take();
    if (batch) this.writeSync(batch, batch.bumps.all());
  }

  /**
   * Writes `batch` a chunk per event-loop turn; between chunks the requests waiting are served, and
   * reads count the chunks not written yet (`draining`). flushSync may write the rest meanwhile.
   */
  private async drain(batch: Generation, chunk: number): Promise<void> {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.draining = batch;
    this.writing = settled;
    const perTurn = Math.max(chunk, Math.ceil(batch.bumps.size / ACCESS_DRAIN_TURNS));
    try {
      while (this.draining === batch && batch.bumps.size > 0) {
        this.writeSync(batch, batch.bumps.takeSome(perTurn));
        if (batch.bumps.size > 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      // writeSync kept the failed chunk for the next flush; the chunks after it wait with it
      if (this.draining === batch) this.requeue(batch.bumps.takeSome(Infinity));
      throw error;
    } finally {
      if (this.draining === batch) this.draining = null;
      if (this.writing === settled) this.writing = null;
      settle();
    }
  }

  /** Hands `bumps` to the writer, which must write them before it returns. */
  private writeSync(batch: Generation, bumps: AccessBump[]): void {
    let unwritten: ReturnType<AccessWriter>;
    try {
      unwritten = this.write(bumps);
      if (unwritten instanceof Promise) throw new Error("AccessLog: flushSync and chunked writes need a synchronous writer");
    } catch (error) {
      this.keepFailed(batch, bumps, error);
      throw error;
    }
    this.keepUnwritten(batch, bumps, unwritten);
  }

  /** Hands the current generation over for writing and opens the next; null when nothing is pending. */
  private take(): Generation | null {
    if (this.size === 0) return null;
    const batch = this.current;
    this.current = { bumps: new Bumps(), next: null };
    batch.next = this.current;
    return batch;
  }

  private keepUnwritten(batch: Generation, bumps: AccessBump[], unwritten: void | AccessBump[]): void {
    if (Array.isArray(unwritten) && unwritten.length > 0) {
      this.keep(batch, unwritten, `${unwritten.length} of ${bumps.length} memories' access bumps were not written`);
    }
  }

  private keepFailed(batch: Generation, bumps: AccessBump[], error: unknown): void {
    this.keep(batch, bumps, `writing ${bumps.length} memories' access bumps failed (${error instanceof Error ? error.message : error})`);
  }

  /**
   * Stops the timer and writes what is pending; later bumps are ignored. Never rejects: a failure is
   * logged. A synchronous writer has run when this returns (the store may close its database next).
   */
  async close(): Promise<void> {
    this.closed = true;
    try {
      if (this.options.chunk) this.flushSync(); // all of it before the store closes its database
      else await this.flush();
    } catch {
      // flush logged the failure
    } finally {
      this.clearTimer();
      if (this.size > 0) log.error(`[engram] access counts: ${this.size} memories' access bumps lost at close`);
      this.current.bumps.clear();
    }
  }

  /** Puts bumps the writer did not write back into the current generation (one view still counts them once). */
  private keep(batch: Generation, bumps: AccessBump[], reason: string): void {
    for (const bump of bumps) batch.bumps.delete(bump.userId, bump.id);
    this.requeue(bumps);
    log.error(`[engram] access counts: ${reason}; kept for the next flush`);
  }

  /** Bumps out of any generation, back into the current one for the next flush. */
  private requeue(bumps: AccessBump[]): void {
    for (const bump of bumps) this.current.bumps.add(bump.userId, bump.id, bump.count, bump.at);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.size === 0) return;
    this.timer = setTimeout(() => this.flushInBackground(), ACCESS_FLUSH_MS);
    this.timer.unref?.();
  }

  private flushInBackground(): void {
    this.flush().catch(() => {}); // logged, and the bumps kept, by flush
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
