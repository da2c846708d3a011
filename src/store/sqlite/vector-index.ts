import type { Database } from "bun:sqlite";
import type { Memory } from "../../domain/memory";
import type { MemoryFilter, TermStatistics } from "../../domain/store-port";
import { memoryWhere } from "./filter-sql";
import { fixedPointCosine, toFixedPoint } from "./fixed-point";
import { HELD_TOKENS, keywordIndexCounters, queryTokens, type KeywordHit } from "./keyword-index";
import { byDistance } from "./top-k";
import { vectorIndexCounters } from "./vector-counters";
import { ACCESS_COUNT_SQL, ACCESS_JOIN } from "./schema";
import { asFloats, ROW_COLUMNS, unit, unitQuery, UserVectors, type CacheBytes, type IndexedRow, type Neighbour } from "./wallet-cache";
import { CacheBudget } from "./cache-budget";
import { RssWatch } from "./rss-watch";

export { vectorIndexCounters } from "./vector-counters";
export type { CacheBytes, Neighbour } from "./wallet-cache";

export interface VectorIndexOptions {
  /**
   * Bytes the cached wallets may hold together, by their accounting (wallet-cache.ts CacheBytes:
   * what their arrays have allocated, and estimates for the rest); the least recently used wallets
   * are dropped beyond it, and a wallet that cannot fit alone is not cached (SQL and FTS5 answer for
   * it). Default 1 GiB (the service sets CACHE_MAX_MB).
   */
  maxCachedBytes?: number;
  /**
   * Also hold the process's anonymous memory within its level at the first load plus
   * maxCachedBytes, by dropping wallets (rss-watch.ts); the service does. An RssWatch given here is
   * used as is (tests read a made-up memory).
   */
  boundRss?: boolean | RssWatch;
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
  /**
   * Wallets with at least this many rows get coarse cells (vector-cells.ts): their top-k searches
   * read the rows of the cells nearest the query instead of every row (default CELLS_MIN_ROWS).
   */
  cellsMinRows?: number;
}

/**
 * From this many rows on, a wallet's top-k vector searches read its nearest coarse cells only:
 * approximate (98–99% of the exact 40 nearest at 100k), where the whole scan would cost ~0.3 ms
 * or more of a recall's wait. Smaller wallets are searched exactly.
 */
export const CELLS_MIN_ROWS = 50_000;

/**
 * From this many rows on, a wallet's top-k scans go to the scan thread. Below it, the
 * message round trip costs the main thread about what the scan would.
 */
const OFFLOAD_MIN_ROWS = 16_384;
/** A user whose pending changes exceed this share of its rows is reloaded instead of patched. */
const RELOAD_SHARE = 0.25;
/** Other connections' changes read per sync at most; a longer backlog drops the cache instead. */
const MAX_CHANGES_PER_SYNC = 50_000;

/** A page of a list from the cache: its rows, newest first, and how many rows match. */
type CachedPage = { rowids: number[]; total: number };

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
  /** what the cached and loading wallets hold, against maxCachedBytes */
  private readonly budget: CacheBudget;
  private readonly syncLoadMaxRows: number;
  private readonly loadChunkRows: number;
  private readonly offloadMinRows: number;
  private readonly cellsMinRows: number;

  constructor(
    private readonly db: Database,
    options: VectorIndexOptions = {},
  ) {
    const max = options.maxCachedBytes ?? 2 ** 30;
    const rss = options.boundRss instanceof RssWatch ? options.boundRss : options.boundRss ? new RssWatch(max) : null;
    this.budget = new CacheBudget(max, rss);
    this.syncLoadMaxRows = options.syncLoadMaxRows ?? 4_096;
    this.loadChunkRows = Math.max(1, options.loadChunkRows ?? 1_024);
    this.offloadMinRows = options.offloadMinRows ?? OFFLOAD_MIN_ROWS;
    this.cellsMinRows = options.cellsMinRows ?? CELLS_MIN_ROWS;
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

  /** The user's row leaves its active rows (deleted, or about to be written again). */
  remove(rowid: number, userId: string): void {
    // a row a background load has not read yet is read in its committed state when (if) it is reached
    const user = this.users.get(userId) ?? this.loading.get(userId)?.user;
    if (user?.has(rowid)) this.pending.set(rowid, userId);
  }

  /**
   * The k nearest active rows of the user under the filter, nearest first (ties by rowid). With
   * `min`, rows whose cosine is below it may be left out (see MemoryStore.nearest). A promise only
   * when the scan thread answers (a large wallet, no minimum) or the wallet is loading in the
   * background (the search waits for the load: loaded); every other answer is computed before
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
    // load (~3.6 s on a loaded machine), so a search during a load waits for it (loaded) instead.
    // Advancing it a chunk per search left a 100k wallet answering 0 recalls in 10 s under 64
    // concurrent clients (each waiting on the others' scans) after a restart.
    const user = this.load(userId);
    if (!user) {
      if (this.loading.has(userId)) return this.loaded(userId).then(() => this.nearest(userId, vector, filter, k, now, min));
      // a user too large for the cache's budget: the exact SQL scan answers
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
   * exactly one word (FTS5 would match it as a phrase). Each hit's `held` says which terms it holds
   * (bit j: terms[j]; a term held as another token, its normal form, counts as not held, as in
   * recall's reading of the content), or is undefined beyond HELD_TOKENS terms.
   */
  keywordSearch(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number): KeywordHit[] | null {
    const query = this.keywordQuery(userId, terms, filter, now);
    if (!query) return null;
    const { user, tokens, accept } = query;
    if (!accept) return [];
    const { hits, matched } = user.keywords.search(tokens, user.size, user.rowidsView(), accept, limit);
    this.lastMatch = { user, version: user.version, tokens, filter: { ...filter }, now, matched };
    let verbatim = 0;
    for (let j = 0; j < tokens.length && j < HELD_TOKENS; j++) if (tokens[j] === terms[j]) verbatim |= 1 << j;
    for (const hit of hits) {
      hit.ref = user.refOf(hit.rowid);
      hit.held = tokens.length <= HELD_TOKENS ? hit.held! & verbatim : undefined;
    }
    return hits;
  }

  /**
   * Sets each hit's cosine to `vector` from the cached vectors: recall needs these and would otherwise
   * read the embeddings from SQLite. A hit whose row has no vector (or is no longer cached) gets none.
   */
  addCosines(userId: string, hits: KeywordHit[], vector: Float32Array): void {
    const user = this.users.get(userId);
    if (!user || vector.length !== this.dimension) return;
    const q = unitQuery(vector);
    for (const hit of hits) hit.similarity = user.similarity(q, hit.rowid);
  }

  /**
   * A page of the user's active rows under the filter, newest first (created_at, then rowid, both
   * descending: the order of listMemories' SQL), and how many rows match; null when SQL must answer
   * (the same cases as keywordSearch, and a wallet too large for the cache's budget). A wallet
   * loading in the background is waited for (loaded).
   */
  list(userId: string, filter: MemoryFilter, offset: number, limit: number, now: number): CachedPage | null | Promise<CachedPage | null> {
    if (this.db.inTransaction || filter.include_deleted || !cacheable(filter)) return null;
    this.sync();
    // a list's SQL answer (a count and a sort of every row) costs about as much as the whole load
    const user = this.load(userId);
    if (!user && this.loading.has(userId)) return this.loaded(userId).then(() => this.list(userId, filter, offset, limit, now));
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

  /** The wallet's rows and each term's document frequency, from the cache (see MemoryStore.termStatistics); null as for keywordSearch. */
  termStatistics(userId: string, terms: string[]): TermStatistics | null {
    const tokens = queryTokens(terms);
    if (tokens === null || this.db.inTransaction) return null;
    this.sync();
    const user = this.load(userId, true);
    if (!user) return null;
    return { documents: user.size, frequencies: tokens.map((token) => user.keywords.frequency(token)) };
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
    const user = this.load(userId, true);
    if (!user) {
      keywordIndexCounters.sqlFallbacks++;
      return null;
    }
    keywordIndexCounters.searches++;
    return { user, tokens, accept: user.accepting(filter, now, false) };
  }

  /** Bytes held by the cached wallets, by part (for benchmarks and diagnostics; see CacheBytes). */
  memory(): CacheBytes {
    const total: CacheBytes = { vectors: 0, int8: 0, cells: 0, columns: 0, tags: 0, strings: 0, slotMap: 0, keywords: 0, names: 0, derived: 0, objects: 0 };
    for (const user of this.users.values()) {
      const part = user.memory();
      for (const key of Object.keys(total) as (keyof CacheBytes)[]) total[key] += part[key];
    }
    return total;
  }

  /**
   * Wallets and rows cached, the bytes the budget counts for them and the wallets being loaded (as
   * of the last request), the budget and what it allows now (rss-watch.ts), and the part of those
   * bytes in slots beyond the rows (for benchmarks and diagnostics).
   */
  cached(): { users: number; rows: number; cellRows: number; bytes: number; maxBytes: number; capBytes: number; spare: number } {
    let rows = 0;
    let cellRows = 0;
    let spare = 0;
    for (const user of this.users.values()) {
      rows += user.size;
      if (user.cellsComplete()) cellRows += user.size;
      spare += user.spare();
    }
    return { users: this.users.size, rows, cellRows, bytes: this.budget.used, maxBytes: this.budget.max, capBytes: this.budget.cap, spare };
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
    this.budget.clear();
    this.lastMatch = null;
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
        this.dropWallet(userId, user); // cheaper to load afresh
        continue;
      }
      this.patch(user, userId, rowids);
      this.budget.charge(user);
      if (!this.fitBudget(user)) this.dropWallet(userId, user, "oversized");
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
      const rows = this.db.query(`select m.rowid, m.user_id, ${ACCESS_COUNT_SQL} from memories m ${ACCESS_JOIN} where m.rowid in (${chunk.map(() => "?").join(", ")})`).values(...chunk) as [number, string, number][];
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
      const rows = this.db.query(`select ${ROW_COLUMNS} from memories m ${ACCESS_JOIN} where m.rowid in (${chunk.map(() => "?").join(", ")})`).all(...chunk) as IndexedRow[];
      for (const row of rows) {
        seen.add(row.rowid);
        if (row.user_id === userId && row.deleted_at === null) user.put(row);
        else user.delete(row.rowid);
      }
    }
    for (const rowid of rowids) if (!seen.has(rowid)) user.delete(rowid);
    // a batch that wrote most of the wallet leaves its keyword runs half empty, as a load does
    if (2 * rowids.length >= user.size) user.keywords.trim();
  }

  /**
   * The user's cached vectors, loading them from `memories` on first use: synchronously for users of
   * at most syncLoadMaxRows active rows; for larger ones a background load starts (if none is under
   * way) and null is returned until it completes. Between requests the load goes on by itself, a
   * chunk per event-loop turn; `readChunk`: a keyword search, which FTS5 answers meanwhile, reads its
   * next chunk now too (under load a turn serves many requests, so turns alone let the load crawl).
   */
  private load(userId: string, readChunk = false): UserVectors | null {
    const user = this.users.get(userId);
    if (user) {
      this.users.delete(userId); // most recently used goes last
      this.users.set(userId, user);
      // what the last request's reads left (a list's order, namespace slots) is counted now
      this.budget.charge(user);
      this.fitBudget(user);
      return user;
    }
    let loading = this.loading.get(userId);
    if (!loading) {
      const { n } = this.db.query("select count(*) as n from memories where user_id = ? and deleted_at is null").get(userId) as { n: number };
      if (!this.budget.mayFit(userId, this.dimension, n)) return null;
      if (n <= this.syncLoadMaxRows) return this.loadNow(userId);
      loading = this.startLoad(userId, n);
    }
    // callers are outside transactions (they check), so the chunks read committed rows
    if (readChunk) this.loadChunk(userId, loading);
    return this.users.get(userId) ?? null;
  }

  /**
   * For a caller that would rather wait for the wallet's cache than have SQL answer it (a recall's
   * keyword search, whose vector search waits anyway): starts the wallet's load if none is under way,
   * and while it loads in the background, the promise of its end; null when the cache answers now,
   * or SQL must (inside a transaction, or a wallet too large for the budget).
   */
  whenLoading(userId: string): Promise<void> | null {
    if (this.users.has(userId) || this.db.inTransaction) return null;
    this.sync();
    this.load(userId);
    return this.loading.has(userId) ? this.loaded(userId) : null;
  }

  /**
   * Waits for the user's background load to end (completed, discarded or dropped), for a vector
   * search or a list: their SQL answers read every row of the wallet, about what the rest of the
   * load costs. The load goes on a chunk per event-loop turn meanwhile, so other requests (other
   * wallets, health checks) are served between chunks; finishing it at once instead held the whole
   * process: 17 s for a wallet of 100k RealMem turns, its first recall after a start.
   */
  private async loaded(userId: string): Promise<void> {
    for (let loading = this.loading.get(userId); loading; loading = this.loading.get(userId)) await loading.done;
  }

  private loadNow(userId: string): UserVectors | null {
    const rows = this.db.query(`select ${ROW_COLUMNS} from memories m ${ACCESS_JOIN} where m.user_id = ? and m.deleted_at is null`).all(userId) as IndexedRow[];
    vectorIndexCounters.loads++;
    const user = new UserVectors(this.dimension, rows.length, this.offloadMinRows, this.cellsMinRows);
    for (const row of rows) user.put(row);
    user.loaded();
    this.users.set(userId, user);
    this.budget.charge(user);
    if (this.fitBudget(user)) return user;
    this.dropWallet(userId, user, "oversized");
    return null;
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
      user: new UserVectors(this.dimension, expected, this.offloadMinRows, this.cellsMinRows),
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
      `select ${ROW_COLUMNS} from memories m ${ACCESS_JOIN} where m.user_id = ? and m.deleted_at is null and (m.created_at, m.rowid) > (?, ?)
       order by m.created_at, m.rowid limit ?`,
    );
    const rows = this.loadQuery.all(userId, state.after.created_at, state.after.rowid, this.loadChunkRows) as IndexedRow[];
    for (const row of rows) state.user.put(row);
    // a wallet being loaded holds its memory already: it is charged as it grows
    this.budget.charge(state.user);
    if (!this.fitBudget(state.user)) {
      this.discardLoad(userId, state);
      return false;
    }
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
    this.users.set(userId, state.user);
    this.budget.charge(state.user);
    if (!this.fitBudget(state.user)) this.dropWallet(userId, state.user, "oversized");
    return false;
  }

  /** A load given up: the wallet is too large for the budget (SQL and FTS5 answer for it). */
  private discardLoad(userId: string, state: Loading): void {
    this.loading.delete(userId);
    this.budget.uncharge(state.user);
    this.budget.tooLarge(userId, state.user.size);
    vectorIndexCounters.backgroundDiscards++;
    this.forgetPending();
  }

  private currentVersion(): number {
    return (this.db.query("pragma data_version").get() as { data_version: number }).data_version;
  }

  /**
   * Drops least recently used wallets, never `keep`, until the cache is within its cap (the budget,
   * or less while the process's memory is over its bound: rss-watch.ts); false when `keep` cannot
   * fit the budget (alone, or with the wallets being loaded), and then drops none.
   */
  private fitBudget(keep: UserVectors): boolean {
    const pressed = this.budget.watch();
    if (!this.budget.over) return true;
    let loadingBytes = 0;
    for (const { user } of this.loading.values()) loadingBytes += user === keep ? 0 : this.budget.chargeOf(user);
    if (this.budget.chargeOf(keep) + loadingBytes > this.budget.max) return false;
    // below the accounting's bound (the process's memory lowered the cap) `keep` stays even alone over the cap
    for (const [userId, user] of this.users) {
      if (!this.budget.over) break;
      if (user !== keep) this.dropWallet(userId, user, "evicted");
    }
    if (pressed) this.budget.dropped();
    return true;
  }

  /** Takes the wallet out of the cache (it loads again when asked for; "oversized": SQL and FTS5 answer for it until it has fewer rows). */
  private dropWallet(userId: string, user: UserVectors, why: "reload" | "evicted" | "oversized" = "reload"): void {
    this.users.delete(userId);
    this.budget.uncharge(user);
    if (this.lastMatch?.user === user) this.lastMatch = null;
    if (why === "evicted") vectorIndexCounters.evictions++;
    if (why === "oversized") this.budget.tooLarge(userId, user.size);
    this.forgetPending();
  }

  /** Pending rows of wallets neither cached nor loading any more are not needed. */
  private forgetPending(): void {
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
