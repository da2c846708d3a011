import type { Database } from "bun:sqlite";
import type { Memory } from "../../domain/memory";
import type { MemoryFilter, MemoryRef } from "../../domain/store-port";
import { memoryWhere } from "./filter-sql";
import { kernelFor, kernelMemory, type GatherFn, type Kernel, type ScoreFn } from "./vector-kernel";
import { LAYOUT_WORDS, layoutGeneration, scanThread, withLayoutLock, type ScanResult, type SharedColumns } from "./scan-thread";
import { slotFilter, type FilterIds } from "./slot-filter";
import { TagSets } from "./tag-sets";
import { byDistance, exactTopK, rescore, siftDown, siftUp, type Ranked, type RankedRows } from "./top-k";
import { IdColumn, TimestampColumn } from "./compact-strings";
import { fixedPointCosine, fixedPointUnit, toFixedPoint } from "./fixed-point";
import { keywordIndexCounters, queryTokens, WalletKeywords, type KeywordHit, type SlotFilter } from "./keyword-index";

export interface Neighbour extends Ranked {
  /** what ranking reads of the row (committed state: no pending access bumps), when the cache answered */
  ref?: MemoryRef;
}

export interface VectorIndexOptions {
  /** Rows kept in memory across all users; least recently searched users are dropped beyond it (default 1,000,000: ~540 MB at 100-d by the cache's own accounting, ~535 MB more anonymous memory measured, README › Performance). */
  maxCachedRows?: number;
  /**
   * Users with at most this many active rows are loaded synchronously on their first search
   * (default 4,096, ~55 ms at 100-d); larger ones are loaded in the background in chunks while
   * their searches are answered exactly by SQL (vectors) and FTS5 (keywords).
   */
  syncLoadMaxRows?: number;
  /** Rows read per chunk of a background load, i.e. per event-loop turn (default 1,024, ~15 ms at 100-d). */
  loadChunkRows?: number;
  /**
   * Wallets with at least this many rows have their top-k scans (not dedup's minimum-similarity ones) run by the scan thread
   * (scan-thread.ts) while the main thread serves other requests (default OFFLOAD_MIN_ROWS).
   */
  offloadMinRows?: number;
}

/** Process-wide counters, for benchmarks and diagnostics. */
export const vectorIndexCounters = {
  /** searches answered from the cache */
  searches: 0,
  /** searches with a minimum similarity answered by rescoring only the rows that may reach it */
  withinMinimum: 0,
  /** of those, searches that scored only the rows of the filter's namespace */
  namespaceScans: 0,
  /** searches that needed the second (bound) pass */
  secondPasses: 0,
  /** searches the scan thread ran (kernel scan, first pass, exact rescoring) */
  offloadedScans: 0,
  /** of those, answers dropped because the wallet's rows changed meanwhile (the search ran again on the main thread) */
  offloadDiscards: 0,
  /** searches answered by the SQL scan (inside a transaction, include_deleted, unparsable dates) */
  sqlScans: 0,
  /** users loaded from `memories` (counted when a background load completes) */
  loads: 0,
  /** background loads started */
  backgroundLoads: 0,
  /** background loads discarded (the cache was reset meanwhile) */
  backgroundDiscards: 0,
  /** other connections' row changes read from memory_changes */
  changesApplied: 0,
  /** caches dropped because memory_changes could not tell what changed (gap or long backlog) */
  changeLogResets: 0,
  /** rows whose access count alone was read again (another connection's access bumps) */
  accessCountsRead: 0,
};

/** Users with fewer rows are searched with a plain exact scan; from this size on with the int8 SIMD kernel. */
const KERNEL_MIN_ROWS = 2048;
/**
 * From this many rows on, a wallet's top-k scans go to the scan thread. Below it, the
 * message round trip costs the main thread about what the scan would.
 */
const OFFLOAD_MIN_ROWS = 16_384;
/** Candidates rescored exactly in the first pass: k + max(MIN_EXTRA_CANDIDATES, k). */
const MIN_EXTRA_CANDIDATES = 64;
/** Slack for float rounding in the quantization bound (cosine units). */
const ROUNDING_SLACK = 1e-5;
/**
 * Spare slots a wallet's arrays start with, as a share of the rows expected (writes during and after
 * its load use them before the arrays grow), and the factor they grow by. At ~600 bytes per slot
 * (100-d), a 25% spare held ~150 MB of a 1M-row cache empty, and doubling a 100k-row wallet's arrays
 * for one insert took ~60 MB at once.
 */
const SPARE_SHARE = 0.05;
const GROWTH = 1.25;
/** A user whose pending changes exceed this share of its rows is reloaded instead of patched. */
const RELOAD_SHARE = 0.25;
/** Other connections' changes read per sync at most; a longer backlog drops the cache instead. */
const MAX_CHANGES_PER_SYNC = 50_000;

/** A user being loaded in the background: rows read so far, and where the next chunk starts. */
interface Loading {
  user: UserVectors;
  /** writes to the user's rows since the load started, this connection's and others' (re-read when it completes) */
  pending: Set<number>;
  /** where the next chunk starts */
  after: { created_at: string; rowid: number };
  done: Promise<void>;
}

/**
 * A cache's bytes by part. Typed arrays count their allocated length (capacity, not rows); the JS
 * objects are estimates from measuring Bun 1.x (JSC): a string from SQLite ~32 bytes plus one per
 * (Latin-1) character, an array slot 8, a Map entry ~48, a small Int32Array ~72 plus its data.
 */
export interface CacheBytes {
  /** unit vectors in 16-bit fixed point and their factors (fixed-point.ts) */
  vectors: number;
  /** the WebAssembly memory of the int8 copy (rows, scales, scores scratch) */
  int8: number;
  /** rowids, ranking and filter columns */
  columns: number;
  /** per-row tag id arrays */
  tags: number;
  /** memory ids and created_at strings */
  strings: number;
  /** rowid → slot */
  slotMap: number;
  /** the keyword inverted index (keyword-index.ts bytes()) */
  keywords: number;
}

/** The columns the index mirrors, as read from `memories`. */
interface IndexedRow {
  rowid: number;
  id: string;
  user_id: string;
  embedding: Uint8Array;
  content: string;
  namespace: string;
  session_id: string | null;
  agent_id: string | null;
  memory_type: string;
  pinned: number;
  importance: number;
  access_count: number;
  created_at: string;
  expires_at: string | null;
  /** JSON text of metadata.tags when it is an array, else null */
  tags: string | null;
  deleted_at: string | null;
}

const ROW_COLUMNS = `rowid, id, user_id, embedding, content, namespace, session_id, agent_id, memory_type, pinned, importance, access_count,
  created_at, expires_at,
  case when json_type(metadata, '$.tags') = 'array' then json_extract(metadata, '$.tags') end as tags, deleted_at`;

/**
 * Exact k-nearest-neighbour search over each user's active memories, with every MemoryFilter field
 * applied while scanning (so k results come back whenever k rows match).
 *
 * The `memories` table stays the only source of truth; this is a cache derived from its committed
 * rows. A user's vectors are loaded on their first search into a per-user matrix: unit vectors in
 * 16-bit fixed point (fixed-point.ts: the cosine every search of this engine ranks by, within 3e-4
 * of the f32 one) plus, from KERNEL_MIN_ROWS rows on, an int8 copy (per-row scale) that a WebAssembly
 * SIMD kernel scans in one pass. The int8 scores pick candidates and a proven bound on their
 * quantization error decides how many to rescore, so the top k are exactly the top k by that cosine.
 *
 * Consistency: `upsert`/`remove` are called inside the store's write transactions, which may roll
 * back, so they only mark the row as pending; before the next search outside a transaction every
 * pending row is re-read from `memories` and applied as committed. Writes by other connections
 * (another process on the same file) are noticed through `pragma data_version`; the rows they
 * changed are read from `memory_changes` (filled by triggers, in commit order, schema.ts) and made
 * pending the same way, so only those rows are re-read. A gap in that log (pruned past this
 * connection's position) or a backlog over MAX_CHANGES_PER_SYNC drops the whole cache instead. Every
 * write to a filter column or to the embedding must be reported through upsert/remove
 * (sqlite-store's indexActive/unindex do).
 *
 * The same per-user cache also answers keyword search (BM25, keyword-index.ts): each user's rows
 * carry their tokenized content in a WalletKeywords inverted index addressed by the same slots, so
 * loading, pending writes, other connections' writes, the transaction fallback and eviction are the
 * logic above, shared. Rows whose embedding has another dimension than the bound model stay cached
 * (for keyword search and filters) but are skipped by vector search. Content changes must therefore
 * be reported through upsert too (indexActive does).
 */
export class VectorIndex {
  private dimension = 0;
  private readonly users = new Map<string, UserVectors>();
  /** rowid → owning user, for rows written since the last sync (only for loaded and loading users). */
  private readonly pending = new Map<number, string>();
  /** rowid → owning user, for loaded users' rows whose access count another connection changed since the last sync */
  private readonly accessPending = new Map<number, string>();
  /** Users being loaded in the background (at most one load per user). */
  private readonly loading = new Map<string, Loading>();
  private dataVersion: number | null = null;
  /** the last `memory_changes.seq` applied (or known not to concern the cache) */
  private changeSeq = 0;
  private loadQuery: ReturnType<Database["query"]> | null = null;
  private changesQuery: ReturnType<Database["query"]> | null = null;
  private readonly maxCachedRows: number;
  private readonly syncLoadMaxRows: number;
  private readonly loadChunkRows: number;
  private readonly offloadMinRows: number;

  constructor(
    private readonly db: Database,
    options: VectorIndexOptions = {},
  ) {
    this.maxCachedRows = options.maxCachedRows ?? 1_000_000;
    this.syncLoadMaxRows = options.syncLoadMaxRows ?? 4_096;
    this.loadChunkRows = Math.max(1, options.loadChunkRows ?? 1_024);
    this.offloadMinRows = options.offloadMinRows ?? OFFLOAD_MIN_ROWS;
  }

  create(dimension: number): void {
    if (dimension !== this.dimension) this.reset();
    this.dimension = dimension;
  }

  drop(): void {
    this.reset();
    this.dimension = 0;
  }

  upsert(rowid: number, memory: Memory, _embedding: Float32Array): void {
    if (this.users.has(memory.user_id) || this.loading.has(memory.user_id)) this.pending.set(rowid, memory.user_id);
  }

  remove(rowid: number): void {
    for (const [userId, user] of this.users) {
      if (user.has(rowid)) {
        this.pending.set(rowid, userId);
        return;
      }
    }
    // a row a background load has not read yet is read in its committed state when (if) it is reached
    for (const [userId, { user }] of this.loading) {
      if (user.has(rowid)) {
        this.pending.set(rowid, userId);
        return;
      }
    }
  }

  /**
   * The k nearest active rows of the user under the filter, nearest first (ties by rowid). With
   * `min`, rows whose cosine is below it may be left out (see MemoryStore.nearest). A promise only
   * when the scan thread answers (a large wallet, no minimum); every other answer is computed before
   * returning, so a search inside the caller's transaction reads within it.
   */
  nearest(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number, min = -Infinity): Neighbour[] | Promise<Neighbour[]> {
    if (k <= 0 || this.dimension === 0 || vector.length !== this.dimension) return [];
    // Inside a write transaction the cache may not reflect what this connection sees; deleted rows are not cached.
    if (this.db.inTransaction || filter.include_deleted || !cacheable(filter)) {
      vectorIndexCounters.sqlScans++;
      return this.nearestExact(userId, vector, filter, k, now);
    }
    this.sync();
    // The exact SQL scan reads every embedding of the user: at 100k rows ~0.7 s, a fifth of the whole
    // load (~3.6 s on a loaded machine), so a few searches during a load cost more than finishing it.
    // Advancing it a chunk per search left a 100k wallet answering 0 recalls in 10 s under 64
    // concurrent clients (each waiting on the others' scans) after a restart.
    const user = this.load(userId, "complete");
    if (!user) {
      // a large user still loading in the background: the exact SQL scan answers meanwhile
      vectorIndexCounters.sqlScans++;
      return this.nearestExact(userId, vector, filter, k, now);
    }
    vectorIndexCounters.searches++;
    if (user.size >= this.offloadMinRows && min === -Infinity) return user.nearestOffloaded(vector, filter, k, now);
    return user.withRefs(user.nearest(vector, filter, k, now, min));
  }

  /** The reference answer: an exact scan of the user's rows in SQLite with the filter as SQL. */
  nearestExact(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number): Neighbour[] {
    if (k <= 0) return [];
    const query = unit(vector);
    // The user's rowids come from the covering index, then rows are read in rowid order (sequential
    // pages): walking the index order reads the table at random, ~3x slower at 100k rows.
    const where = memoryWhere(userId, filter, now, { driving: false });
    const own = `select rowid from memories where user_id = ?${filter.include_deleted ? "" : " and deleted_at is null"}`;
    const rows = this.db
      .query(`select m.rowid, m.embedding from memories m where m.rowid in (${own}) and ${where.sql}`)
      .values(userId, ...where.params) as [number, Uint8Array][];
    const found: Neighbour[] = [];
    const fixed = new Int16Array(query.length);
    for (const [rowid, blob] of rows) {
      const v = asFloats(blob);
      if (v.length === query.length) found.push({ rowid, distance: 1 - fixedPointCosine(query, fixed, 0, toFixedPoint(v, fixed, 0)) });
    }
    return found.sort(byDistance).slice(0, k);
  }

  /**
   * The `limit` best BM25 matches (any term) among the user's active rows under the filter, best
   * first (ties by rowid), from the cache; null when FTS5 must answer instead: inside a transaction
   * (same rule as vectors), for include_deleted or unparsable filter dates, or when a term is not
   * exactly one word (FTS5 would match it as a phrase).
   */
  keywordSearch(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number): KeywordHit[] | null {
    const query = this.keywordQuery(userId, terms, filter, now);
    if (!query) return null;
    const { user, tokens, accept } = query;
    if (!accept) return [];
    const { hits, matched } = user.keywords.search(tokens, user.size, user.rowidsView(), accept, limit);
    this.lastMatch = { user, version: user.version, tokens, filter: { ...filter }, now, matched };
    for (const hit of hits) hit.ref = user.refOf(hit.rowid);
    return hits;
  }

  /**
   * Sets each hit's cosine to `vector` from the cached vectors: recall needs these and would otherwise
   * read the embeddings from SQLite. A hit whose row has no vector (or is no longer cached) gets none.
   */
  addCosines(userId: string, hits: KeywordHit[], vector: Float32Array): void {
    const user = this.users.get(userId);
    if (!user || vector.length !== this.dimension) return;
    const q = unit(vector);
    for (const hit of hits) hit.similarity = user.similarity(q, hit.rowid);
  }

  /**
   * A page of the user's active rows under the filter, newest first (created_at, then rowid, both
   * descending: the order of listMemories' SQL), and how many rows match; null when SQL must answer
   * (the same cases as keywordSearch, and while a large user is still loading).
   */
  list(userId: string, filter: MemoryFilter, offset: number, limit: number, now: number): { rowids: number[]; total: number } | null {
    if (this.db.inTransaction || filter.include_deleted || !cacheable(filter)) return null;
    this.sync();
    // a list's SQL answer (a count and a sort of every row) costs about as much as the whole load
    const user = this.load(userId, "complete");
    return user ? user.page(filter, now, offset, limit) : null;
  }

  /** How many of the user's active rows under the filter match any term; null as for keywordSearch. */
  keywordCount(userId: string, terms: string[], filter: MemoryFilter, now: number): number | null {
    const query = this.keywordQuery(userId, terms, filter, now);
    if (!query) return null;
    const { user, tokens, accept } = query;
    if (!accept) return 0;
    // the search endpoint counts right after searching (same terms, filter and instant): that pass counted already
    const last = this.lastMatch;
    if (last && last.user === user && last.version === user.version && last.now === now && sameMatch(last, tokens, filter)) return last.matched;
    return user.keywords.count(tokens, user.size, accept);
  }

  /** The last keyword search's number of matches (see keywordCount). */
  private lastMatch: { user: UserVectors; version: number; tokens: string[]; filter: MemoryFilter; now: number; matched: number } | null = null;

  private keywordQuery(userId: string, terms: string[], filter: MemoryFilter, now: number) {
    const tokens = queryTokens(terms);
    if (tokens === null || this.db.inTransaction || filter.include_deleted || !cacheable(filter)) {
      keywordIndexCounters.sqlFallbacks++;
      return null;
    }
    this.sync();
    // FTS5 answers meanwhile (~15 ms at 100k), about what a chunk of the load costs: read one
    const user = this.load(userId, "chunk");
    if (!user) {
      keywordIndexCounters.sqlFallbacks++;
      return null;
    }
    keywordIndexCounters.searches++;
    return { user, tokens, accept: user.accepting(filter, now, false) };
  }

  /** Approximate bytes held by the keyword indexes, for benchmarks and diagnostics. */
  keywordBytes(): number {
    let bytes = 0;
    for (const user of this.users.values()) bytes += user.keywords.bytes();
    return bytes;
  }

  /** Approximate bytes held by the cached wallets, by part (for benchmarks and diagnostics; see CacheBytes). */
  memory(): CacheBytes {
    const total: CacheBytes = { vectors: 0, int8: 0, columns: 0, tags: 0, strings: 0, slotMap: 0, keywords: 0 };
    for (const user of this.users.values()) {
      const part = user.memory();
      for (const key of Object.keys(total) as (keyof CacheBytes)[]) total[key] += part[key];
    }
    return total;
  }

  /** Rows and users currently cached (for benchmarks and diagnostics). */
  cached(): { users: number; rows: number } {
    let rows = 0;
    for (const user of this.users.values()) rows += user.size;
    return { users: this.users.size, rows };
  }

  /** Resolves once every background load under way has completed or been discarded (for tests and benchmarks). */
  async settled(): Promise<void> {
    while (this.loading.size > 0) await Promise.all([...this.loading.values()].map((l) => l.done));
  }

  /** Drops every cached wallet (they load again on their next search); for tests and benchmarks. */
  clear(): void {
    this.reset();
  }

  private reset(): void {
    // everything loaded from now on reads rows committed after this point of the log
    this.changeSeq = this.latestChange();
    this.users.clear();
    this.pending.clear();
    this.accessPending.clear();
    if (this.loading.size > 0) vectorIndexCounters.backgroundDiscards += this.loading.size;
    this.loading.clear(); // the loaders notice and stop
  }

  /**
   * Access bumps this connection has just committed: the cached counts follow (ranking reads them
   * from the cache). A row a background load has not read yet is read with them.
   */
  accessed(rowid: number, userId: string, count: number): void {
    (this.users.get(userId) ?? this.loading.get(userId)?.user)?.access(rowid, count, "add");
  }

  /** Applies committed changes, other connections' and this one's, to the cached users. */
  private sync(): void {
    this.pullOtherWrites();
    if (this.accessPending.size > 0) this.refreshAccessCounts();
    if (this.pending.size === 0) return;
    const byUser = new Map<string, number[]>();
    for (const [rowid, userId] of this.pending) {
      const list = byUser.get(userId);
      if (list) list.push(rowid);
      else byUser.set(userId, [rowid]);
    }
    this.pending.clear();
    for (const [userId, rowids] of byUser) {
      const loading = this.loading.get(userId);
      if (loading) {
        for (const rowid of rowids) loading.pending.add(rowid);
        continue;
      }
      const user = this.users.get(userId);
      if (!user) continue;
      if (rowids.length > RELOAD_SHARE * Math.max(user.size, 4096)) {
        this.users.delete(userId); // cheaper to load afresh
        continue;
      }
      this.patch(user, userId, rowids);
    }
  }

  /**
   * When another connection has committed since the last look (data_version), makes the rows it
   * changed pending for the cached and loading users (or drops the cache: see the class comment).
   */
  private pullOtherWrites(): void {
    const version = this.currentVersion();
    if (this.dataVersion === version) return;
    if (this.dataVersion === null) {
      // first look: nothing is cached yet
      this.dataVersion = version;
      this.changeSeq = this.latestChange();
      return;
    }
    this.dataVersion = version;
    this.changesQuery ??= this.db.query("select seq, row_id, user_id, access from memory_changes where seq > ? order by seq limit ?");
    const changes = this.changesQuery.values(this.changeSeq, MAX_CHANGES_PER_SYNC + 1) as [number, number, string, number][];
    if (changes.length === 0) return;
    if (changes.length > MAX_CHANGES_PER_SYNC || changes[0]![0] !== this.changeSeq + 1) {
      vectorIndexCounters.changeLogResets++;
      this.reset();
      return;
    }
    for (const [, rowid, userId, access] of changes) {
      // an access bump of a loaded user's row needs only its count; anything else, or a loading user's row, the whole row
      if (access === 1 && this.users.has(userId)) this.accessPending.set(rowid, userId);
      else if (this.users.has(userId) || this.loading.has(userId)) this.pending.set(rowid, userId);
    }
    this.changeSeq = changes.at(-1)![0];
    vectorIndexCounters.changesApplied += changes.length;
  }

  /** Re-reads the access counts other connections changed (one narrow query per 500 rows). */
  private refreshAccessCounts(): void {
    const rowids = [...this.accessPending.keys()];
    this.accessPending.clear();
    for (let i = 0; i < rowids.length; i += 500) {
      const chunk = rowids.slice(i, i + 500);
      const rows = this.db.query(`select rowid, user_id, access_count from memories where rowid in (${chunk.map(() => "?").join(", ")})`).values(...chunk) as [number, string, number][];
      for (const [rowid, userId, count] of rows) this.users.get(userId)?.access(rowid, count, "set");
      vectorIndexCounters.accessCountsRead += rows.length;
    }
  }

  private latestChange(): number {
    return (this.db.query("select coalesce(max(seq), 0) as seq from memory_changes").get() as { seq: number }).seq;
  }

  /** Re-reads the rows (committed state) into the user's cache. */
  private patch(user: UserVectors, userId: string, rowids: number[]): void {
    const seen = new Set<number>();
    for (let i = 0; i < rowids.length; i += 500) {
      const chunk = rowids.slice(i, i + 500);
      const rows = this.db.query(`select ${ROW_COLUMNS} from memories where rowid in (${chunk.map(() => "?").join(", ")})`).all(...chunk) as IndexedRow[];
      for (const row of rows) {
        seen.add(row.rowid);
        if (row.user_id === userId && row.deleted_at === null) user.put(row);
        else user.delete(row.rowid);
      }
    }
    for (const rowid of rowids) if (!seen.has(rowid)) user.delete(rowid);
  }

  /**
   * The user's cached vectors, loading them from `memories` on first use: synchronously for users of
   * at most syncLoadMaxRows active rows; for larger ones a background load starts (if none is under
   * way) and null is returned until it completes. `progress` is what the caller's SQL alternative is
   * worth: "chunk" reads its next chunk now (a keyword search), "complete" finishes it now (a list or
   * a vector search: their SQL answers cost a good part of the whole load). Between requests the
   * load goes on by itself, a chunk per event-loop turn.
   */
  private load(userId: string, progress: "chunk" | "complete"): UserVectors | null {
    let user = this.users.get(userId);
    if (user) {
      this.users.delete(userId); // most recently used goes last
      this.users.set(userId, user);
      return user;
    }
    let loading = this.loading.get(userId);
    if (!loading) {
      const { n } = this.db.query("select count(*) as n from memories where user_id = ? and deleted_at is null").get(userId) as { n: number };
      if (n <= this.syncLoadMaxRows) return this.loadNow(userId);
      loading = this.startLoad(userId, n);
    }
    // callers are outside transactions (they check), so the chunks read committed rows
    if (progress === "chunk") this.loadChunk(userId, loading);
    if (progress === "complete") while (this.loadChunk(userId, loading));
    return this.users.get(userId) ?? null;
  }

  private loadNow(userId: string): UserVectors {
    const rows = this.db.query(`select ${ROW_COLUMNS} from memories where user_id = ? and deleted_at is null`).all(userId) as IndexedRow[];
    vectorIndexCounters.loads++;
    const user = new UserVectors(this.dimension, rows.length);
    for (const row of rows) user.put(row);
    user.loaded();
    this.evictFor(user.size);
    this.users.set(userId, user);
    return user;
  }

  /**
   * Reads the user's active rows in chunks of loadChunkRows (in index order: created_at, rowid),
   * yielding to the event loop between chunks. No transaction spans the chunks, so the rows read are
   * not one snapshot; they are made exact on completion: every write to the user's rows meanwhile,
   * this connection's (upsert/remove) and other connections' (memory_changes), is pending and
   * re-read as in sync(). Rows that did not change during the load are read exactly once, in their
   * only state.
   */
  private startLoad(userId: string, expected: number): Loading {
    const state = {
      user: new UserVectors(this.dimension, expected),
      pending: new Set<number>(),
      after: { created_at: "", rowid: -Infinity },
    } as Loading;
    this.loading.set(userId, state);
    vectorIndexCounters.backgroundLoads++;
    state.done = this.runLoad(userId, state).catch(() => {
      if (this.loading.get(userId) === state) this.loading.delete(userId); // e.g. the database was closed
    });
    return state;
  }

  private async runLoad(userId: string, state: Loading): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.loading.get(userId) !== state) return; // reset, dropped or completed meanwhile
      if (this.db.inTransaction) continue; // uncommitted rows would be read: wait for the transaction to end
      if (!this.loadChunk(userId, state)) return;
    }
  }

  /**
   * Reads the next chunk of a load; false once the load is over (completed and published, or
   * discarded). Called between event-loop turns by runLoad, and by the searches and lists that find
   * the user loading (load's `progress`): under load a turn of the event loop serves many requests,
   * so turns alone let a busy wallet's load crawl while SQL answers every request (an exact vector
   * scan ~15 ms at 10k and ~0.7 s at 100k, a list ~50 ms at 10k, against ~5 ms per chunk).
   */
  private loadChunk(userId: string, state: Loading): boolean {
    this.loadQuery ??= this.db.query(
      `select ${ROW_COLUMNS} from memories where user_id = ? and deleted_at is null and (created_at, rowid) > (?, ?)
       order by created_at, rowid limit ?`,
    );
    const rows = this.loadQuery.all(userId, state.after.created_at, state.after.rowid, this.loadChunkRows) as IndexedRow[];
    for (const row of rows) state.user.put(row);
    if (rows.length === this.loadChunkRows) {
      state.after = rows.at(-1)!;
      return true;
    }
    // complete: apply the writes made during the load, then publish
    this.pullOtherWrites();
    if (this.loading.get(userId) !== state) return false; // the cache was dropped meanwhile
    for (const [rowid, owner] of this.pending) {
      if (owner !== userId) continue;
      state.pending.add(rowid);
      this.pending.delete(rowid);
    }
    this.loading.delete(userId);
    this.patch(state.user, userId, [...state.pending]);
    state.user.loaded();
    vectorIndexCounters.loads++;
    this.evictFor(state.user.size);
    this.users.set(userId, state.user);
    return false;
  }

  private currentVersion(): number {
    return (this.db.query("pragma data_version").get() as { data_version: number }).data_version;
  }

  private evictFor(incoming: number): void {
    let total = incoming;
    for (const user of this.users.values()) total += user.size;
    for (const [userId, user] of this.users) {
      if (total <= this.maxCachedRows) break;
      total -= user.size;
      this.users.delete(userId);
    }
    for (const [rowid, userId] of this.pending) if (!this.users.has(userId) && !this.loading.has(userId)) this.pending.delete(rowid);
  }
}

/** The same terms and filter (compared only when a count asks: a recall's search is never followed by one). */
const sameMatch = (last: { tokens: string[]; filter: MemoryFilter }, tokens: string[], filter: MemoryFilter) =>
  last.tokens.length === tokens.length && last.tokens.every((t, i) => t === tokens[i]) && JSON.stringify(last.filter) === JSON.stringify(filter);

/** The MemoryFilter fields the cache evaluates (accepting); a filter using any other goes to SQL. */
const CACHED_FILTER_FIELDS = new Set(["namespace", "session_id", "agent_id", "memory_type", "tags", "created_after", "created_before", "pinned", "include_deleted"]);

/** Filters the cache evaluates exactly as memoryWhere does (dates must parse, as stored ones do; no field it does not know). */
function cacheable(filter: MemoryFilter): boolean {
  const date = (value: string | undefined) => value === undefined || !Number.isNaN(Date.parse(value));
  for (const [key, value] of Object.entries(filter)) if (value !== undefined && !CACHED_FILTER_FIELDS.has(key)) return false;
  return date(filter.created_after) && date(filter.created_before);
}

function asFloats(blob: Uint8Array): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2);
  return new Float32Array(blob.slice().buffer);
}

/** A typed array over a SharedArrayBuffer: the scan thread reads it where the main thread writes it. */
function shared<T>(Type: { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number): T {
  return new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT));
}

/** The vector scaled to unit length (all zeros stays all zeros). */
function unit(vector: Float32Array): Float64Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  const out = new Float64Array(vector.length);
  if (norm > 0) for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/** One user's active rows: unit vectors, their int8 copy (large users), the filter columns and the keyword index. */
class UserVectors {
  readonly keywords: WalletKeywords;
  size = 0;
  private capacity: number;
  private readonly slotOf = new Map<number, number>();
  /** interned strings (namespace, session, agent, type, tags) → small ints */
  private readonly dict = new Map<string, number>();
  /** shared with the scan thread (SharedColumns), like the vectors and the filter columns */
  private rowids: Float64Array;
  /** what ranking reads (MemoryRef): memory id and created_at as stored (compact-strings.ts), importance, access count (committed) */
  private readonly ids: IdColumn;
  private readonly createdAt = new TimestampColumn();
  private importance: Float64Array;
  private accessCount: Float64Array;
  /** interned ids → strings (memory types) */
  private readonly names: string[] = [];
  /** unit vectors in 16-bit fixed point, `dim` per slot, and each row's factor 1/‖x‖ (fixed-point.ts) */
  private vectors: Int16Array;
  private factors: Float64Array;
  /** scratch: one row's unit direction, for the int8 copy */
  private readonly unitRow: Float32Array;
  private namespace: Int32Array;
  private session: Int32Array;
  private agent: Int32Array;
  private type: Int32Array;
  private pinned: Uint8Array;
  /** 1 when the row's embedding has the index's dimension (others are kept for keyword search only) */
  private hasVector: Uint8Array;
  private created: Float64Array;
  private expires: Float64Array;
  /** the row's tag set number (0: no tags) in tagSets, where rows with the same tags share one entry */
  private tagSet: Int32Array;
  private readonly tagSets = new TagSets((n) => shared(Int32Array, n));
  private quantized: Quantized | null = null;
  /** slots newest first, for list pages; rebuilt on the first page after any change */
  private order: Int32Array | null = null;
  /**
   * List totals by filter, dropped on any change of the rows: a total counted at `from` holds until
   * `until`, the first expiry among the rows it counted (an earlier `now`, as a test clock may ask
   * for, counts again). With it a page reads offset + limit slots instead of all of them.
   */
  private totals = new Map<string, { total: number; from: number; until: number }>();
  /**
   * No row expires before this instant: a lower bound (exact while `expiryExact`). With it, an
   * unfiltered search knows every row passes without asking each: the per-row predicate was a
   * fifth of a keyword search at 100k rows.
   */
  private expiryFloor = Infinity;
  private expiryExact = true;
  /** rows without a vector of the index's dimension */
  private vectorless = 0;

  constructor(
    private readonly dim: number,
    expected: number,
  ) {
    this.capacity = Math.max(16, Math.ceil(expected * (1 + SPARE_SHARE)));
    this.rowids = shared(Float64Array, this.capacity);
    this.importance = new Float64Array(this.capacity);
    this.accessCount = new Float64Array(this.capacity);
    this.vectors = shared(Int16Array, this.capacity * dim);
    this.factors = shared(Float64Array, this.capacity);
    this.unitRow = new Float32Array(dim);
    this.namespace = shared(Int32Array, this.capacity);
    this.session = shared(Int32Array, this.capacity);
    this.agent = shared(Int32Array, this.capacity);
    this.type = shared(Int32Array, this.capacity);
    this.pinned = shared(Uint8Array, this.capacity);
    this.hasVector = shared(Uint8Array, this.capacity);
    this.created = shared(Float64Array, this.capacity);
    this.expires = shared(Float64Array, this.capacity);
    this.tagSet = shared(Int32Array, this.capacity);
    this.ids = new IdColumn(this.capacity);
    this.keywords = new WalletKeywords(this.capacity);
  }

  /** A load is complete: the keyword lists' spare room goes (the slot arrays keep theirs, for the writes to come). */
  loaded(): void {
    this.keywords.trim();
  }

  memory(): CacheBytes {
    const columns = [this.rowids, this.importance, this.accessCount, this.namespace, this.session, this.agent, this.type, this.pinned, this.hasVector, this.created, this.expires];
    const tags = this.tagSet.byteLength + this.tagSets.bytes();
    const strings = this.ids.bytes() + this.createdAt.bytes();
    return {
      vectors: this.vectors.byteLength + this.factors.byteLength,
      int8: this.quantized?.bytes() ?? 0,
      columns: columns.reduce((sum, column) => sum + column.byteLength, 0),
      tags,
      strings,
      slotMap: this.slotOf.size * 48,
      keywords: this.keywords.bytes(),
    };
  }

  rowidsView(): Float64Array {
    return this.rowids;
  }

  has(rowid: number): boolean {
    return this.slotOf.has(rowid);
  }

  private intern(value: string): number {
    let id = this.dict.get(value);
    if (id === undefined) {
      this.dict.set(value, (id = this.dict.size));
      this.names.push(value);
    }
    return id;
  }

  /** What ranking reads of the row, as committed (the store adds pending access bumps). */
  refOf(rowid: number): MemoryRef | undefined {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return undefined;
    return {
      id: this.ids.get(slot),
      created_at: this.createdAt.get(slot, this.created[slot]!),
      memory_type: this.names[this.type[slot]!] as MemoryRef["memory_type"],
      pinned: this.pinned[slot] === 1,
      importance: this.importance[slot]!,
      access_count: this.accessCount[slot]!,
    };
  }

  /** Access bumps committed for the row: `add` to the cached count (this connection wrote them), or `set` it (as read). */
  access(rowid: number, count: number, how: "add" | "set"): void {
    const slot = this.slotOf.get(rowid);
    if (slot !== undefined) this.accessCount[slot] = (how === "add" ? this.accessCount[slot]! : 0) + count;
  }

  /** Adds or replaces the row (rows whose embedding has another dimension get no vector: keyword search only). */
  put(row: IndexedRow): void {
    this.changed();
    const embedding = asFloats(row.embedding);
    const vector = embedding.length === this.dim && this.dim > 0;
    let slot = this.slotOf.get(row.rowid);
    const replacing = slot !== undefined;
    if (slot !== undefined) this.forgetBounds(slot);
    else {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.slotOf.set(row.rowid, slot);
    }
    this.rowids[slot] = row.rowid;
    this.ids.set(slot, row.id);
    this.importance[slot] = row.importance;
    this.accessCount[slot] = row.access_count;
    const base = slot * this.dim;
    if (vector) this.factors[slot] = toFixedPoint(embedding, this.vectors, base);
    else {
      this.vectors.fill(0, base, base + this.dim);
      this.factors[slot] = 0;
    }
    this.hasVector[slot] = vector ? 1 : 0;
    if (!vector) this.vectorless++;
    this.keywords.put(slot, row.content, replacing, this.size);
    this.namespace[slot] = this.intern(row.namespace);
    this.session[slot] = row.session_id === null ? -1 : this.intern(row.session_id);
    this.agent[slot] = row.agent_id === null ? -1 : this.intern(row.agent_id);
    this.type[slot] = this.intern(row.memory_type);
    this.pinned[slot] = row.pinned;
    this.created[slot] = Date.parse(row.created_at);
    this.createdAt.set(slot, row.created_at, this.created[slot]!);
    this.expires[slot] = row.expires_at === null ? Infinity : Date.parse(row.expires_at);
    this.expiryFloor = Math.min(this.expiryFloor, this.expires[slot]!);
    const tags = row.tags === null ? [] : (JSON.parse(row.tags) as unknown[]);
    this.tagSet[slot] = tags.length === 0 ? 0 : this.tagSets.numberOf(row.tags!, () => tags.map((t) => this.intern(String(t))));
    if (this.quantized) this.quantized.set(slot, this.unitOf(slot));
    else if (this.size >= KERNEL_MIN_ROWS && this.dim > 0) this.quantize();
  }

  delete(rowid: number): void {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return;
    this.changed();
    this.forgetBounds(slot);
    this.slotOf.delete(rowid);
    const last = --this.size;
    if (slot !== last) {
      // move the last row into the hole
      const moved = this.rowids[last]!;
      this.slotOf.set(moved, slot);
      this.rowids[slot] = moved;
      this.ids.move(last, slot);
      this.createdAt.move(last, slot);
      this.importance[slot] = this.importance[last]!;
      this.accessCount[slot] = this.accessCount[last]!;
      this.vectors.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.factors[slot] = this.factors[last]!;
      this.namespace[slot] = this.namespace[last]!;
      this.session[slot] = this.session[last]!;
      this.agent[slot] = this.agent[last]!;
      this.type[slot] = this.type[last]!;
      this.pinned[slot] = this.pinned[last]!;
      this.hasVector[slot] = this.hasVector[last]!;
      this.created[slot] = this.created[last]!;
      this.expires[slot] = this.expires[last]!;
      this.tagSet[slot] = this.tagSet[last]!;
      this.quantized?.move(last, slot);
    }
    this.tagSet[last] = 0;
    this.ids.clear(last);
    this.createdAt.clear(last);
    this.keywords.delete(slot, last);
  }

  /** The row at `slot` is leaving (deleted or replaced): the bounds stop counting it. */
  private forgetBounds(slot: number): void {
    if (this.hasVector[slot] === 0) this.vectorless--;
    if (this.expires[slot] === this.expiryFloor) this.expiryExact = false;
  }

  /** True when no row has expired at `now`. */
  private noneExpired(now: number): boolean {
    if (now < this.expiryFloor) return true;
    if (!this.expiryExact) {
      let floor = Infinity;
      for (let slot = 0; slot < this.size; slot++) floor = Math.min(floor, this.expires[slot]!);
      this.expiryFloor = floor;
      this.expiryExact = true;
    }
    return now < this.expiryFloor;
  }

  private grow(): void {
    const capacity = Math.max(this.capacity + 16, Math.ceil(this.capacity * GROWTH));
    const widen = <T extends Float64Array | Int32Array | Int16Array | Uint8Array>(old: T, make: (n: number) => T, per = 1): T => {
      // a scan thread reading the old arrays meanwhile reads them whole; its answer is dropped (version)
      const next = make(capacity * per);
      next.set(old);
      return next;
    };
    this.rowids = widen(this.rowids, (n) => shared(Float64Array, n));
    this.importance = widen(this.importance, (n) => new Float64Array(n));
    this.accessCount = widen(this.accessCount, (n) => new Float64Array(n));
    this.vectors = widen(this.vectors, (n) => shared(Int16Array, n), this.dim);
    this.factors = widen(this.factors, (n) => shared(Float64Array, n));
    this.namespace = widen(this.namespace, (n) => shared(Int32Array, n));
    this.session = widen(this.session, (n) => shared(Int32Array, n));
    this.agent = widen(this.agent, (n) => shared(Int32Array, n));
    this.type = widen(this.type, (n) => shared(Int32Array, n));
    this.pinned = widen(this.pinned, (n) => shared(Uint8Array, n));
    this.hasVector = widen(this.hasVector, (n) => shared(Uint8Array, n));
    this.created = widen(this.created, (n) => shared(Float64Array, n));
    this.expires = widen(this.expires, (n) => shared(Float64Array, n));
    this.tagSet = widen(this.tagSet, (n) => shared(Int32Array, n));
    this.capacity = capacity;
    this.ids.reserve(capacity);
    this.quantized?.reserve(capacity, this.size);
    this.keywords.reserve(capacity);
  }

  private quantize(): void {
    this.quantized = new Quantized(kernelFor(Math.ceil(this.dim / 8) * 8), this.dim, this.capacity);
    for (let slot = 0; slot < this.size; slot++) this.quantized.set(slot, this.unitOf(slot));
  }

  /** The row's unit direction as the fixed-point form holds it (in a scratch array: use before the next call). */
  private unitOf(slot: number): Float32Array {
    return fixedPointUnit(this.vectors, slot * this.dim, this.factors[slot]!, this.unitRow);
  }

  /** Counts changes of the rows (a search's memo of its match count holds within one version). */
  version = 0;

  private changed(): void {
    this.version++;
    this.order = null;
    if (this.totals.size > 0) this.totals = new Map();
  }

  /**
   * Rows offset…offset+limit of the accepted rows newest first, and their number. The order is
   * sorted once per change of the user's rows (10k rows: ~2 ms) and the total counted once per
   * change and filter (a pass over the slots), so a page reads only the slots up to its end: what
   * replaces SQL's count and sort of every page.
   */
  page(filter: MemoryFilter, now: number, offset: number, limit: number): { rowids: number[]; total: number } {
    const accept = this.accepting(filter, now, false);
    if (!accept) return { rowids: [], total: 0 };
    const order = this.sorted();
    const key = JSON.stringify(filter);
    const known = this.totals.get(key);
    const counted = known && now >= known.from && now < known.until ? known : null;
    const rowids: number[] = [];
    let seen = 0;
    let until = Infinity;
    for (let i = 0; i < order.length; i++) {
      if (counted && rowids.length === limit) break;
      const slot = order[i]!;
      if (accept !== true && !accept(slot)) continue;
      if (seen >= offset && rowids.length < limit) rowids.push(this.rowids[slot]!);
      seen++;
      until = Math.min(until, this.expires[slot]!);
    }
    if (counted) return { rowids, total: counted.total };
    if (this.totals.size >= 64) this.totals.clear(); // a bound for wallets listed with many filters
    this.totals.set(key, { total: seen, from: now, until });
    return { rowids, total: seen };
  }

  private sorted(): Int32Array {
    if (this.order && this.order.length === this.size) return this.order;
    const order = new Int32Array(this.size);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const created = this.created;
    const rowids = this.rowids;
    order.sort((a, b) => created[b]! - created[a]! || rowids[b]! - rowids[a]!);
    return (this.order = order);
  }

  /**
   * The row filter as a predicate over slots, `true` when every row passes, or null when no row can
   * match; `vectors`: rows without a vector never match.
   */
  accepting(filter: MemoryFilter, now: number, vectors: boolean): SlotFilter | null {
    const ids = this.filterIds(filter, now, vectors);
    if (!ids) return null;
    return this.passesAll(ids) ? true : slotFilter(ids, this.sharedColumns());
  }

  /** The filter in this wallet's interned ids; null when it can match no row (a value no row has). */
  private filterIds(filter: MemoryFilter, now: number, vectors: boolean): FilterIds | null {
    // text columns come back from SQLite as UTF-8 (a lone surrogate became U+FFFD), and SQL compares
    // the filter's UTF-8 form: compare the same form here
    const id = (value: string | undefined) => (value === undefined ? -1 : (this.dict.get(value.toWellFormed()) ?? -2));
    const namespace = id(filter.namespace);
    const session = id(filter.session_id);
    const agent = id(filter.agent_id);
    const type = id(filter.memory_type);
    if (namespace === -2 || session === -2 || agent === -2 || type === -2) return null;
    let tags: Set<number> | null = null;
    if (filter.tags?.length) {
      tags = new Set(filter.tags.flatMap((tag) => this.dict.get(tag) ?? []));
      if (tags.size === 0) return null;
    }
    const pinned = filter.pinned === undefined ? -1 : filter.pinned ? 1 : 0;
    const after = filter.created_after === undefined ? -Infinity : Date.parse(filter.created_after);
    const before = filter.created_before === undefined ? Infinity : Date.parse(filter.created_before);
    return { namespace, session, agent, type, pinned, after, before, tags, vectors, now };
  }

  /** Every row passes: no filter, and no row expired or (for vector search) without a vector. */
  private passesAll(f: FilterIds): boolean {
    const unfiltered = f.namespace === -1 && f.session === -1 && f.agent === -1 && f.type === -1 && f.tags === null && f.pinned === -1 && f.after === -Infinity && f.before === Infinity;
    return unfiltered && (!f.vectors || this.vectorless === 0) && this.noneExpired(f.now);
  }

  /** The columns the scan thread reads (as they are now: they are new arrays after they grow). */
  private sharedColumns(): SharedColumns {
    const { vectors, factors, rowids, namespace, session, agent, type, pinned, created, expires, hasVector, tagSet } = this;
    const { starts: tagStarts, list: tagList } = this.tagSets;
    return { vectors, factors, rowids, namespace, session, agent, type, pinned, created, expires, hasVector, tagSet, tagStarts, tagList };
  }

  /** Cosine of the unit `query` with the row's vector; undefined when the row has none. */
  similarity(query: Float64Array, rowid: number): number | undefined {
    const slot = this.slotOf.get(rowid);
    return slot !== undefined && this.hasVector[slot] === 1 ? this.exact(query, slot) : undefined;
  }

  private exact(query: Float64Array, slot: number): number {
    return fixedPointCosine(query, this.vectors, slot * this.dim, this.factors[slot]!);
  }

  nearest(vector: Float32Array, filter: MemoryFilter, k: number, now: number, min = -Infinity): Neighbour[] {
    const accept = this.accepting(filter, now, true);
    if (!accept || this.size === 0) return [];
    const query = unit(vector);
    const n = this.size;
    if (query.every((x) => x === 0)) return this.anyK(accept, k);
    const want = Math.min(n, k + Math.max(MIN_EXTRA_CANDIDATES, k));
    const subset = min > -Infinity && this.quantized ? this.namespaceSlots(filter) : null;
    if (subset) {
      vectorIndexCounters.namespaceScans++;
      const scan = this.quantized!.scanSlots(query, subset);
      const close = this.within(query, scan.scores, accept, min, scan.unitScale, scan.bound, want, subset);
      if (close) return close.slice(0, k);
    }
    // First-pass scores (approximate when quantized) and their worst-case error, in cosine units.
    let approx: Float32Array;
    let unitScale = 1;
    // Unquantized first-pass scores are exact but stored as f32: rounding is the only error, and a
    // nonzero bound sends rows tied with the k-th to the second pass, so ties resolve by rowid.
    let bound = ROUNDING_SLACK;
    if (this.quantized) {
      const scan = this.quantized.scan(query, n);
      approx = scan.scores;
      unitScale = scan.unitScale;
      bound = scan.bound;
    } else {
      approx = new Float32Array(n);
      for (let slot = 0; slot < n; slot++) approx[slot] = this.exact(query, slot);
    }
    const close = min > -Infinity && !subset ? this.within(query, approx, accept, min, unitScale, bound, want) : null;
    if (close) return close.slice(0, k);
    const { found, secondPass } = exactTopK(approx, n, k, want, accept, unitScale, bound, this.rowsFor(query));
    if (secondPass) vectorIndexCounters.secondPasses++;
    return found;
  }

  /**
   * `nearest` (without a minimum) run by the scan thread, the filter included (slot-filter.ts over
   * the shared columns), while the main thread serves other requests. The answer is `nearest`'s: the
   * search runs here instead when the rows changed while the thread searched them (the wallet's
   * version moved), when the thread is unavailable, and for a zero query or a filter no row matches.
   */
  async nearestOffloaded(vector: Float32Array, filter: MemoryFilter, k: number, now: number): Promise<Neighbour[]> {
    const quantized = this.quantized;
    const query = unit(vector);
    const here = () => this.withRefs(this.nearest(vector, filter, k, now));
    const ids = this.filterIds(filter, now, true);
    if (!quantized || !ids || query.every((x) => x === 0)) return here();
    const n = this.size;
    const want = Math.min(n, k + Math.max(MIN_EXTRA_CANDIDATES, k));
    const version = this.version;
    const scan = await quantized.searchElsewhere({ unit: query, n, k, want, filter: this.passesAll(ids) ? null : ids, columns: this.sharedColumns() });
    if (!scan) return here();
    vectorIndexCounters.offloadedScans++;
    if (this.version !== version) {
      vectorIndexCounters.offloadDiscards++;
      return here();
    }
    if (scan.secondPass) vectorIndexCounters.secondPasses++;
    // nothing awaits from here on: the refs are read from the rows the thread searched
    return this.withRefs(Array.from(scan.rowids, (rowid, i) => ({ rowid, distance: scan.distances[i]! })));
  }

  /** Sets each neighbour's ref (what ranking reads of its row) from this cache. */
  withRefs(found: Neighbour[]): Neighbour[] {
    for (const neighbour of found) neighbour.ref = this.refOf(neighbour.rowid);
    return found;
  }

  /**
   * Every accepted row whose exact cosine may reach `min` (its first-pass score is within the bound
   * of it), rescored, nearest first; null when more than `limit` rows may (a low minimum: the top-k
   * passes above are cheaper then). Dedup asks for neighbours at cosine ≥ 0.95, which few rows
   * reach: this skips the heap and the rescoring of `want` candidates that the top-k search needs.
   *
   * The rows left out all score below min − ROUNDING_SLACK exactly, and every row kept is ranked
   * above them, so each row at or above min has the same rank here as in the full top k.
   */
  private within(
    query: Float64Array,
    approx: Float32Array,
    accept: SlotFilter,
    min: number,
    unitScale: number,
    bound: number,
    limit: number,
    /** the slot of each score when only some rows were scored (namespaceSlots) */
    scored?: Int32Array,
  ): Neighbour[] | null {
    const floor = (min - bound - ROUNDING_SLACK) * unitScale;
    const slots: number[] = [];
    for (let i = 0; i < approx.length; i++) {
      const slot = scored ? scored[i]! : i;
      if (approx[i]! < floor || (accept !== true && !accept(slot))) continue;
      if (slots.length === limit) return null;
      slots.push(slot);
    }
    vectorIndexCounters.withinMinimum++;
    return this.rescore(query, slots);
  }

  /**
   * The slots of the filter's namespace, when it holds at most half the rows: a search with a
   * minimum then scores only those (the rows of other namespaces can never be accepted). Listed
   * once per version of the rows and namespace (a pass over the namespace column).
   */
  private namespaceSlots(filter: MemoryFilter): Int32Array | null {
    if (filter.namespace === undefined) return null;
    const id = this.dict.get(filter.namespace.toWellFormed());
    if (id === undefined) return null;
    if (this.spaces.version !== this.version) this.spaces = { version: this.version, slots: new Map() };
    let slots = this.spaces.slots.get(id);
    if (slots === undefined) {
      const list: number[] = [];
      for (let slot = 0; slot < this.size; slot++) if (this.namespace[slot] === id) list.push(slot);
      slots = list.length <= this.size / 2 ? Int32Array.from(list) : null;
      this.spaces.slots.set(id, slots);
    }
    return slots;
  }

  /** namespaceSlots' lists (null: too many rows to be worth it), valid for one version of the rows */
  private spaces: { version: number; slots: Map<number, Int32Array | null> } = { version: -1, slots: new Map() };

  /** A zero query is equally far from everything: the k accepted rows with the lowest rowids. */
  private anyK(accept: SlotFilter, k: number): Neighbour[] {
    const heap = new Int32Array(k);
    const heapScore = new Float64Array(k);
    let size = 0;
    for (let slot = 0; slot < this.size; slot++) {
      if (accept !== true && !accept(slot)) continue;
      const s = -this.rowids[slot]!;
      if (size < k) siftUp(heap, heapScore, size++, slot, s);
      else if (s > heapScore[0]!) siftDown(heap, heapScore, size, slot, s);
    }
    return Array.from(heap.subarray(0, size), (slot) => ({ rowid: this.rowids[slot]!, distance: 1 })).sort(byDistance);
  }

  private rescore(query: Float64Array, slots: ArrayLike<number>): Neighbour[] {
    return rescore(this.rowsFor(query), slots);
  }

  /** The rows as exactTopK ranks them against the unit query. */
  private rowsFor(query: Float64Array): RankedRows {
    return { cosine: (slot) => this.exact(query, slot), rowid: (slot) => this.rowids[slot]! };
  }
}

/**
 * The int8 copy of a user's unit vectors in a WebAssembly memory the kernel scans, shared with the
 * scan thread (scan-thread.ts):
 * [layout words][query int16 × stride][scan thread's query][scales f32 × capacity][scores f32 × capacity]
 * [scan thread's scores f32 × capacity][slots i32 × capacity][rows int8 × stride × capacity].
 * Row i is round(v_i · 127 / max|v_i|), and its scale max|v_i| / 127 maps integer dots back. The
 * scan thread writes only its own query and scores areas; growing moves the areas after the
 * scales, so it happens under the layout lock (withLayoutLock).
 */
class Quantized {
  private readonly memory: WebAssembly.Memory;
  private readonly score: ScoreFn;
  private readonly gather: GatherFn;
  private readonly stride: number;
  private readonly queryMax: number;
  private readonly queryBytes: number;
  private capacity = 0;
  private rowsAt = 0;
  private rows = new Int8Array(0);
  private scales = new Float32Array(0);
  /** largest row scale so far (bounds the quantization error of every row) */
  private maxScale = 0;

  constructor(
    kernel: Kernel,
    private readonly dim: number,
    capacity: number,
  ) {
    this.stride = kernel.stride;
    this.queryBytes = Math.ceil((this.stride * 2) / 16) * 16;
    // keep Σ |row · query| inside int32: stride · 127 · queryMax < 2^31
    this.queryMax = Math.min(32767, Math.floor((2 ** 31 - 1) / (this.stride * 127)));
    this.memory = kernelMemory();
    ({ scores: this.score, gather: this.gather } = kernel.bind(this.memory));
    this.reserve(capacity, 0);
  }

  private get queryAt(): number {
    return LAYOUT_WORDS.bytes;
  }

  private get threadQueryAt(): number {
    return LAYOUT_WORDS.bytes + this.queryBytes;
  }

  private get scalesAt(): number {
    return LAYOUT_WORDS.bytes + 2 * this.queryBytes;
  }

  private get scoresAt(): number {
    return this.scalesAt + 4 * this.capacity;
  }

  private get threadScoresAt(): number {
    return this.scalesAt + 8 * this.capacity;
  }

  private get slotsAt(): number {
    return this.scalesAt + 12 * this.capacity;
  }

  /** Grows to `capacity` rows, keeping the first `size`. */
  reserve(capacity: number, size: number): void {
    if (capacity <= this.capacity) return;
    withLayoutLock(this.memory, () => {
      const rowsAt = this.scalesAt + 16 * capacity;
      const bytes = rowsAt + capacity * this.stride;
      const pages = Math.ceil(bytes / 65536) - this.memory.buffer.byteLength / 65536;
      if (pages > 0) this.memory.grow(pages);
      // rows move up (the scores and slots areas in between are scratch); scales stay where they are
      new Uint8Array(this.memory.buffer).copyWithin(rowsAt, this.rowsAt, this.rowsAt + size * this.stride);
      this.rowsAt = rowsAt;
      this.capacity = capacity;
      this.rows = new Int8Array(this.memory.buffer, rowsAt, capacity * this.stride);
      this.scales = new Float32Array(this.memory.buffer, this.scalesAt, capacity);
    });
  }

  /**
   * The search (exactTopK over these rows under the filter) run by the scan thread on the rows as they
   * are when it runs; null when it is unavailable.
   */
  searchElsewhere(search: { unit: Float64Array; n: number; k: number; want: number; filter: FilterIds | null; columns: SharedColumns }): Promise<ScanResult | null> {
    const query = new Int16Array(this.stride);
    const { unitScale, bound } = this.quantizeQuery(search.unit, query);
    const at = { generation: layoutGeneration(this.memory), query: this.threadQueryAt, scales: this.scalesAt, scores: this.threadScoresAt, rows: this.rowsAt };
    return scanThread.scan(this.memory, { ...search, stride: this.stride, query, unitScale, bound, at });
  }

  bytes(): number {
    return this.memory.buffer.byteLength;
  }

  set(slot: number, unitVector: Float32Array): void {
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(unitVector[i]!));
    const base = slot * this.stride;
    const factor = max > 0 ? 127 / max : 0;
    for (let i = 0; i < this.dim; i++) this.rows[base + i] = Math.round(unitVector[i]! * factor);
    const scale = max / 127;
    this.scales[slot] = scale;
    // the f32 scale is what the kernel multiplies by; bound with the larger of the two
    this.maxScale = Math.max(this.maxScale, scale, Math.fround(scale));
  }

  move(from: number, to: number): void {
    this.rows.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    this.scales[to] = this.scales[from]!;
  }

  /**
   * Scores the first n rows against the unit query: scores[i] / unitScale approximates the cosine,
   * within ± bound.
   */
  scan(query: Float64Array, n: number): { scores: Float32Array; unitScale: number; bound: number } {
    const { unitScale, bound } = this.setQuery(query);
    this.score(this.queryAt, this.rowsAt, n, this.scalesAt, this.scoresAt);
    return { scores: new Float32Array(this.memory.buffer, this.scoresAt, n), unitScale, bound };
  }

  /** As scan, for the listed rows only: scores[i] is row slots[i]'s. */
  scanSlots(query: Float64Array, slots: Int32Array): { scores: Float32Array; unitScale: number; bound: number } {
    const { unitScale, bound } = this.setQuery(query);
    new Int32Array(this.memory.buffer, this.slotsAt, slots.length).set(slots);
    this.gather(this.queryAt, this.rowsAt, this.slotsAt, slots.length, this.scalesAt, this.scoresAt);
    return { scores: new Float32Array(this.memory.buffer, this.scoresAt, slots.length), unitScale, bound };
  }

  /** Writes the quantized query; its scale, and the error bound of every row's score in cosine units. */
  private setQuery(query: Float64Array): { unitScale: number; bound: number } {
    return this.quantizeQuery(query, new Int16Array(this.memory.buffer, this.queryAt, this.stride));
  }

  /** The query as the kernel takes it, into `q`; its scale, and the error bound of every row's score in cosine units. */
  private quantizeQuery(query: Float64Array, q: Int16Array): { unitScale: number; bound: number } {
    let max = 0;
    let l1 = 0;
    for (let i = 0; i < this.dim; i++) {
      max = Math.max(max, Math.abs(query[i]!));
      l1 += Math.abs(query[i]!);
    }
    const unitScale = max > 0 ? this.queryMax / max : 1;
    for (let i = 0; i < this.dim; i++) q[i] = Math.round(query[i]! * unitScale);
    // |cos - approx| ≤ Σ|q|·|v - v̂| + Σ|q - q̂|·|v̂| ≤ l1·maxScale/2 + ‖v̂‖₁/(2·unitScale), ‖v̂‖₁ ≤ √dim + dim·maxScale/2
    const rowL1 = Math.sqrt(this.dim) + (this.dim * this.maxScale) / 2;
    const bound = (l1 * this.maxScale) / 2 + rowL1 / (2 * unitScale) + ROUNDING_SLACK;
    return { unitScale, bound };
  }
}
