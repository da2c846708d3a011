import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Memory, MemoryType } from "../../domain/memory";
import type { HistoryEntry } from "../../domain/history";
import type { Relation } from "../../domain/relation";
import type { Stats } from "../../domain/stats";
import type { EmbeddingModelInfo, MemoryFilter, MemoryRef, Page, QueryVector, StoredMemory, TermStatistics, TextHit, VectorHit } from "../../domain/store-port";
import type { TransferableStore } from "../../domain/store-transfer";
import { EmbeddingModelMismatch } from "../model-binding";
import { ACCESS_COUNT_SQL, ACCESS_JOIN, migrate } from "./schema";
import { memoryWhere } from "./filter-sql";
import { VectorIndex, type VectorIndexOptions } from "./vector-index";
import type { CacheStats } from "../../metrics/sources";
import { ACCESS_WRITE_CHUNK, AccessLog } from "../access-log";
import { checkpointer, WRITER_AUTOCHECKPOINT_PAGES } from "./checkpointer";
import { indexTerms } from "../../domain/text";
import { SqliteTransfer } from "./transfer";
import { asVector, HISTORY_COLUMNS, insertHistory, marks, MEMORY_COLUMNS, toHistoryEntry, toMemory, type HistoryRow, type MemoryRow } from "./rows";
import { WalletUsers } from "../wallet-users";
import { openFailure } from "./open-failure";

/** Each term becomes an FTS5 string literal ("" escapes a quote), OR-ed: user text is never query syntax. */
const ftsMatch = (terms: string[]) => terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");

/**
 * Rows of `memory_changes` kept (schema.ts): another process more than this many row changes behind
 * drops its whole cache instead of patching it. Pruned every CHANGE_LOG_PRUNE_MS.
 */
const CHANGE_LOG_KEEP = 100_000;
const CHANGE_LOG_PRUNE_MS = 60_000;
/** Text matches fetched per requested hit before filtering, on the fast path of searchText. */
const TEXT_OVERSAMPLE = 4;

/**
 * The embedded engine: one SQLite file in WAL mode. Rows live in `memories`;
 * FTS5 (BM25) mirrors the active rows in the same transaction as the row, so the two never
 * disagree after a crash; the in-memory per-user cache (vector-index.ts: vectors, filter columns
 * and the BM25 keyword index of keyword-index.ts) is derived from committed rows and rebuilt from
 * them on start. FTS5 answers keyword search inside transactions and in the cases the cache cannot.
 */
export class SqliteStore implements TransferableStore {
  readonly engine = "sqlite" as const;
  private readonly path: string;
  private readonly db: Database;
  private readonly vectors: VectorIndex;
  /** recall's access bumps, written behind in batches (../access-log.ts) */
  private readonly accesses: AccessLog;
  private readonly walletUsers = new WalletUsers();
  private readonly pruneTimer: ReturnType<typeof setInterval>;

  constructor(dataDir: string, options: { vectorIndex?: VectorIndexOptions } = {}) {
    this.path = join(dataDir, "engram.sqlite");
    try {
      this.db = new Database(this.path, { create: true, strict: true });
      // busy_timeout first: switching to WAL takes a lock another connection (a checkpoint) may hold for a moment
      this.db.exec("pragma busy_timeout = 5000; pragma journal_mode = wal; pragma synchronous = normal; pragma foreign_keys = on;");
    } catch (error) {
      throw openFailure(dataDir, error); // SQLite's own message names neither the directory nor the user
    }
    // WAL checkpoints run on a background thread (checkpointer.ts); this connection's own is the fallback
    this.db.exec(`pragma wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES};`);
    // Reads through a memory map: the OS page cache holds the file once for every worker process,
    // where SQLite's own 2 MB page cache per connection missed on most row fetches (40 random rows
    // of a 10k-memory wallet: 0.24 ms, 0.08 ms mapped; scripts/bench/recall.ts). Writes are unchanged.
    this.db.exec("pragma mmap_size = 1073741824;");
    migrate(this.db);
    checkpointer.add(this.path);
    this.vectors = new VectorIndex(this.db, options.vectorIndex);
    // the first bump since the row was written starts from the row's counters (ACCESS_JOIN)
    const bump = this.db.query(
      `insert into memory_access (row_id, user_id, count, accessed_at)
       select rowid, user_id, access_count + ?1, max(accessed_at, ?2) from memories where id = ?3 and +user_id = ?4
       on conflict (row_id) do update set count = count + ?1, accessed_at = max(accessed_at, ?2)
       returning row_id as rowid`,
    );
    this.accesses = new AccessLog((bumps) => {
      const written = this.writeTransaction(() => bumps.flatMap(({ id, userId, count, at }) => {
        const row = bump.get(count, at, id, userId) as { rowid: number } | null;
        return row ? [{ rowid: row.rowid, userId, count }] : [];
      }));
      for (const { rowid, userId, count } of written) this.vectors.accessed(rowid, userId, count);
    }, { chunk: ACCESS_WRITE_CHUNK });
    this.pruneTimer = setInterval(() => this.pruneChangeLog(), CHANGE_LOG_PRUNE_MS);
    this.pruneTimer.unref?.();
  }

  /**
   * Runs `work` in a write transaction that takes SQLite's write lock when it begins (BEGIN
   * IMMEDIATE), waiting up to busy_timeout for another process's write to finish. A deferred
   * transaction that reads first and writes later cannot wait: when another process has committed
   * since its read, SQLite refuses the write at once (SQLITE_BUSY), which failed concurrent batch
   * stores with WORKERS=2.
   */
  private writeTransaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** The whole-store copy's access to this store (transfer.ts), with every pending access bump written. */
  async transfer(): Promise<SqliteTransfer> {
    this.accesses.flushSync();
    return new SqliteTransfer(this.db, {
      write: (work) => this.writeTransaction(work),
      index: (rowid, memory, embedding) => this.index(rowid, memory, embedding),
      unindex: (rowid, userId) => this.unindex(rowid, userId),
    });
  }

  /** The search cache's size, for the metrics (src/metrics/sources.ts): wallets, rows, approximate bytes by part. */
  cacheStats(): CacheStats {
    const { users, rows, cellRows, capBytes } = this.vectors.cached();
    return { wallets: users, rows, cellRows, bytes: { ...this.vectors.memory() }, capBytes };
  }

  /** Forgets all but the last `keep` row changes (several processes may prune: the same statement). */
  pruneChangeLog(keep = CHANGE_LOG_KEEP): void {
    this.db.query("delete from memory_changes where seq <= (select max(seq) from memory_changes) - ?").run(keep);
  }

  /** A row as the domain's record, with its pending access bumps. */
  private toMemory(row: MemoryRow): Memory {
    return this.accesses.overlay(toMemory(row));
  }

  async bindEmbeddingModel(model: EmbeddingModelInfo, force = false): Promise<void> {
    const bound = this.metaGet("embedding_model");
    const dimension = Number(this.metaGet("embedding_dimension"));
    const same = bound === model.id && dimension === model.dimension;
    if (bound !== null && !same && !force) throw new EmbeddingModelMismatch({ id: bound, dimension }, model);
    this.writeTransaction(() => {
      if (bound !== null && !same) this.vectors.drop();
      this.vectors.create(model.dimension);
      this.metaSet("embedding_model", model.id);
      this.metaSet("embedding_dimension", String(model.dimension));
    });
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    const flushed = this.accesses.close(); // the write itself runs before this returns
    checkpointer.remove(this.path);
    this.db.close();
    await flushed;
  }

  async sessionSecret(candidate: string): Promise<string> {
    this.db.query("insert into meta (key, value) values ('session_secret', ?) on conflict (key) do nothing").run(candidate);
    return this.metaGet("session_secret")!;
  }

  private metaGet(key: string): string | null {
    const row = this.db.query("select value from meta where key = ?").get(key) as { value: string } | null;
    return row?.value ?? null;
  }

  private metaSet(key: string, value: string): void {
    this.db.query("insert into meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value").run(key, value);
  }

  userIdForWallet(wallet: string): Promise<string> {
    return this.walletUsers.get(wallet, (address) => this.lookUpWallet(address));
  }

  private lookUpWallet(address: string): string {
    // Read first: every authenticated request asks, and only a new wallet needs a write.
    const find = () => this.db.query("select user_id from wallets where address = ?").get(address) as { user_id: string } | null;
    const known = find();
    if (known) return known.user_id;
    this.db.query("insert into wallets (address, user_id) values (?, ?) on conflict do nothing").run(address, crypto.randomUUID());
    return find()!.user_id;
  }

  async reserveFreeCall(wallet: string, limit: number): Promise<number | null> {
    await this.userIdForWallet(wallet);
    // A paying wallet (allowance used up) is answered by a read: the update below would take the
    // write lock even when it changes nothing, serializing every paid call of every process.
    if ((await this.freeCallsUsed(wallet)) >= limit) return null;
    const row = this.db
      .query("update wallets set free_calls_used = free_calls_used + 1 where address = ? and free_calls_used < ? returning free_calls_used")
      .get(wallet.toLowerCase(), limit) as { free_calls_used: number } | null;
    return row?.free_calls_used ?? null;
  }

  async releaseFreeCall(wallet: string): Promise<void> {
    this.db.query("update wallets set free_calls_used = max(free_calls_used - 1, 0) where address = ?").run(wallet.toLowerCase());
  }

  async freeCallsUsed(wallet: string): Promise<number> {
    const row = this.db.query("select free_calls_used from wallets where address = ?").get(wallet.toLowerCase()) as { free_calls_used: number } | null;
    return row?.free_calls_used ?? 0;
  }

  /** One write transaction: expired claims are dropped, then the key is inserted unless another process holds it. */
  async claimPaymentNonce(key: string, untilMs: number, now: number): Promise<boolean> {
    return this.writeTransaction(() => {
      this.db.query("delete from payment_nonces where until_ms <= ?").run(now);
      return this.db.query("insert into payment_nonces (key, until_ms) values (?, ?) on conflict (key) do nothing").run(key, untilMs).changes === 1;
    });
  }

  async releasePaymentNonce(key: string): Promise<void> {
    this.db.query("delete from payment_nonces where key = ?").run(key);
  }

  async insertMemories(items: StoredMemory[]): Promise<void> {
    const insert = this.db.query(
      `insert into memories (id, user_id, namespace, content, content_hash, metadata, importance, memory_type, session_id, agent_id,
        pinned, immutable, expires_at, created_at, updated_at, accessed_at, access_count, deleted_at, embedding)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning rowid`,
    );
    this.writeTransaction(() => {
      for (const { memory: m, embedding, content_hash } of items) {
        const { rowid } = insert.get(
          m.id, m.user_id, m.namespace, m.content, content_hash, JSON.stringify(m.metadata), m.importance, m.memory_type,
          m.session_id, m.agent_id, m.pinned ? 1 : 0, m.immutable ? 1 : 0, m.expires_at, m.created_at, m.updated_at,
          m.accessed_at, m.access_count, m.deleted_at, embedding,
        ) as { rowid: number };
        this.index(rowid, m, embedding);
      }
    });
  }

  /** Mirrors an active row into the tag, FTS and vector indexes, replacing what they held for it. */
  private indexActive(rowid: number, memory: Memory, embedding: Float32Array): void {
    this.unindex(rowid, memory.user_id);
    this.index(rowid, memory, embedding);
  }

  /** Mirrors a row the indexes do not hold yet (a new one). */
  private index(rowid: number, memory: Memory, embedding: Float32Array): void {
    const tagInsert = this.db.query("insert or ignore into memory_tags (user_id, tag, memory_rowid) values (?, ?, ?)");
    for (const tag of memory.metadata.tags ?? []) tagInsert.run(memory.user_id, tag, rowid);
    this.db.query("insert into memories_fts (rowid, content) values (?, ?)").run(rowid, indexTerms(memory.content).join(" "));
    this.vectors.upsert(rowid, memory, embedding);
  }

  private unindex(rowid: number, userId: string): void {
    this.db.query("delete from memory_tags where memory_rowid = ?").run(rowid);
    this.db.query("delete from memories_fts where rowid = ?").run(rowid);
    this.vectors.remove(rowid, userId);
  }

  async updateMemory(userId: string, update: { memory: Memory; embedding?: Float32Array; content_hash?: string; history?: HistoryEntry }): Promise<void> {
    const { memory: m, history } = update;
    // the record carries the access count read with its pending bumps: write those first, or they would count twice
    this.accesses.flushSync();
    this.writeTransaction(() => {
      const row = this.db.query("select rowid, embedding, content_hash from memories where id = ? and user_id = ?").get(m.id, userId) as
        | { rowid: number; embedding: Uint8Array; content_hash: string }
        | null;
      if (!row) return;
      const embedding = update.embedding ?? asVector(row.embedding);
      this.db
        .query(
          `update memories set namespace = ?, content = ?, content_hash = ?, metadata = ?, importance = ?, memory_type = ?, session_id = ?,
            agent_id = ?, pinned = ?, immutable = ?, expires_at = ?, updated_at = ?, accessed_at = ?, access_count = ?, deleted_at = ?,
            embedding = ? where rowid = ?`,
        )
        .run(
          m.namespace, m.content, update.content_hash ?? row.content_hash, JSON.stringify(m.metadata), m.importance, m.memory_type,
          m.session_id, m.agent_id, m.pinned ? 1 : 0, m.immutable ? 1 : 0, m.expires_at, m.updated_at, m.accessed_at, m.access_count,
          m.deleted_at, embedding, row.rowid,
        );
        this.db.query("delete from memory_access where row_id = ?").run(row.rowid); // the row now holds its counters
      if (m.deleted_at === null) this.indexActive(row.rowid, m, embedding);
      else this.unindex(row.rowid, userId);
      if (history) insertHistory(this.db, userId, history);
    });
  }

  async getMemories(userId: string, ids: string[], now: number): Promise<Memory[]> {
    if (ids.length === 0) return [];
    const where = memoryWhere(userId, {}, now, { driving: false });
    const rows = this.db
      .query(`select ${MEMORY_COLUMNS} from memories m ${ACCESS_JOIN} where ${where.sql} and m.id in (${marks(ids.length)})`)
      .all(...where.params, ...ids) as MemoryRow[];
    const byId = new Map(rows.map((r) => [r.id, this.toMemory(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async findByContentHash(userId: string, namespace: string, contentHash: string, now: number): Promise<Memory | null> {
    const where = memoryWhere(userId, { namespace }, now);
    const row = this.db
      .query(`select ${MEMORY_COLUMNS} from memories m ${ACCESS_JOIN} where ${where.sql} and m.content_hash = ? limit 1`)
      .get(...where.params, contentHash) as MemoryRow | null;
    return row ? this.toMemory(row) : null;
  }

  async softDelete(userId: string, ids: string[], now: number): Promise<void> {
    const at = new Date(now).toISOString();
    const find = this.db.query("select rowid from memories where id = ? and user_id = ? and deleted_at is null");
    const mark = this.db.query("update memories set deleted_at = ?, updated_at = ? where rowid = ?");
    this.writeTransaction(() => {
      for (const id of ids) {
        const row = find.get(id, userId) as { rowid: number } | null;
        if (!row) continue;
        mark.run(at, at, row.rowid);
        this.unindex(row.rowid, userId);
      }
    });
  }

  /**
   * A page newest first, with the total. Normally from the per-user cache (vector-index.ts: one
   * pass over the user's sorted slots, then the page's rows by rowid); SQL (a count and a sort over
   * the user's rows, ~4 ms at 10k) where the cache cannot answer, as for searches.
   */
  async listMemories(userId: string, filter: MemoryFilter, page: Page, now: number): Promise<{ memories: Memory[]; total: number }> {
    const cached = await this.vectors.list(userId, filter, page.offset, page.limit, now);
    if (cached) {
      if (cached.rowids.length === 0) return { memories: [], total: cached.total };
      const rows = this.db
        .query(`select ${MEMORY_COLUMNS} from memories m ${ACCESS_JOIN} where m.rowid in (${marks(cached.rowids.length)}) and +m.user_id = ?`)
        .all(...cached.rowids, userId) as MemoryRow[];
      const byRowid = new Map(rows.map((r) => [r.rowid, r]));
      return { memories: cached.rowids.flatMap((rowid) => (byRowid.has(rowid) ? [this.toMemory(byRowid.get(rowid)!)] : [])), total: cached.total };
    }
    return this.listMemoriesSql(userId, filter, page, now);
  }

  /** The SQL answer; also the reference the cache's pages are tested against. */
  listMemoriesSql(userId: string, filter: MemoryFilter, page: Page, now: number): { memories: Memory[]; total: number } {
    const where = memoryWhere(userId, filter, now);
    const { total } = this.db.query(`select count(*) as total from memories m where ${where.sql}`).get(...where.params) as { total: number };
    const rows = this.db
      .query(`select ${MEMORY_COLUMNS} from memories m ${ACCESS_JOIN} where ${where.sql} order by m.created_at desc, m.rowid desc limit ? offset ?`)
      .all(...where.params, page.limit, page.offset) as MemoryRow[];
    return { memories: rows.map((r) => this.toMemory(r)), total };
  }

  /**
   * BM25 over the user's rows. Normally answered by the in-memory keyword index of the per-user
   * cache (keyword-index.ts, with per-wallet statistics and every filter applied while scoring);
   * inside a transaction and in the few cases it cannot answer, by FTS5 below (fast path, then slow path).
   */
  async searchText(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number, vector?: QueryVector): Promise<TextHit[]> {
    if (terms.length === 0 || limit <= 0) return [];
    // A recall (a query vector) waits for a wallet loading in the background, as its vector search
    // does, instead of asking FTS5 (~0.6 s for a long question at 100k): right after a start, a burst
    // of recalls would each spend that on the thread the load they all wait for needs.
    const loading = vector ? this.vectors.whenLoading(userId) : null;
    if (loading) await loading;
    // The search runs now, synchronously (a caller's transaction sees it); a vector still on its way
    // (recall's query, embedded in the worker meanwhile) is awaited for the hits' cosines alone.
    const hits = this.vectors.keywordSearch(userId, terms, filter, limit, now);
    if (hits && vector) this.vectors.addCosines(userId, hits, vector instanceof Float32Array ? vector : await vector);
    if (hits) {
      this.setRefs(userId, hits);
      const found: TextHit[] = [];
      for (const { ref: memory, score, similarity, held } of hits) {
        if (!memory) continue;
        const hit: TextHit = similarity === undefined ? { memory, bm25: score } : { memory, bm25: score, similarity };
        if (held !== undefined) hit.held = held;
        found.push(hit);
      }
      return found;
    }
    return this.searchTextFts(userId, terms, filter, limit, now);
  }

  /** The FTS5 answer (BM25 statistics over the whole table); also the reference the in-memory index falls back to. */
  searchTextFts(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number): TextHit[] {
    if (terms.length === 0) return [];
    const rows = this.topMatchesFiltered(userId, terms, filter, limit, now) ?? this.allMatchesFiltered(userId, terms, filter, limit, now);
    return rows.map((r) => ({ memory: this.toMemory(r), bm25: r.score }));
  }

  /**
   * Fast path: the best TEXT_OVERSAMPLE × limit matches of the whole FTS index, then the filter.
   * Exact whenever it returns: if `limit` of them pass, no row outside them can outrank those; if
   * the index has no more matches, they are all the matches. Otherwise null (the slow path runs):
   * joining every match to its row is what costs at 100k memories (15 ms vs 3 ms).
   */
  private topMatchesFiltered(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number) {
    const wanted = limit * TEXT_OVERSAMPLE;
    const top = this.db
      .query("select rowid, -bm25(memories_fts) as score from memories_fts where memories_fts match ? order by bm25(memories_fts) limit ?")
      .all(ftsMatch(terms), wanted) as { rowid: number; score: number }[];
    if (top.length === 0) return [];
    const where = memoryWhere(userId, filter, now, { driving: false });
    const rows = this.db
      .query(`select ${MEMORY_COLUMNS} from memories m ${ACCESS_JOIN} where m.rowid in (${marks(top.length)}) and ${where.sql}`)
      .all(...top.map((t) => t.rowid), ...where.params) as MemoryRow[];
    const byRowid = new Map(rows.map((r) => [r.rowid, r]));
    const ranked = top.flatMap((t) => (byRowid.has(t.rowid) ? [{ ...byRowid.get(t.rowid)!, score: t.score }] : [])).slice(0, limit);
    return ranked.length === limit || top.length < wanted ? ranked : null;
  }

  private allMatchesFiltered(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number) {
    const { sql, params } = this.textMatch(userId, terms, filter, now);
    return this.db
      .query(`select ${MEMORY_COLUMNS}, -bm25(memories_fts) as score ${sql} order by bm25(memories_fts) limit ?`)
      .all(...params, limit) as (MemoryRow & { score: number })[];
  }

  async termStatistics(userId: string, terms: string[], now: number): Promise<TermStatistics> {
    const cached = this.vectors.termStatistics(userId, terms);
    if (cached) return cached;
    // Inside a transaction, or for a term that is not one word: SQL counts the wallet's active memories.
    const documents = (this.db.query("select count(*) as n from memories where user_id = ? and deleted_at is null").get(userId) as { n: number }).n;
    return { documents, frequencies: terms.map((term) => this.countTextFts(userId, [term], {}, now)) };
  }

  async countText(userId: string, terms: string[], filter: MemoryFilter, now: number): Promise<number> {
    if (terms.length === 0) return 0;
    return this.vectors.keywordCount(userId, terms, filter, now) ?? this.countTextFts(userId, terms, filter, now);
  }

  countTextFts(userId: string, terms: string[], filter: MemoryFilter, now: number): number {
    if (terms.length === 0) return 0;
    const { sql, params } = this.textMatch(userId, terms, filter, now);
    return (this.db.query(`select count(*) as total ${sql}`).get(...params) as { total: number }).total;
  }

  /** FTS5 rows matching any term, joined to the user's filtered memories. */
  private textMatch(userId: string, terms: string[], filter: MemoryFilter, now: number) {
    const where = memoryWhere(userId, filter, now, { driving: false });
    return { sql: `from memories_fts f join memories m on m.rowid = f.rowid ${ACCESS_JOIN} where memories_fts match ? and ${where.sql}`, params: [ftsMatch(terms), ...where.params] };
  }

  async nearest(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number, minSimilarity?: number): Promise<VectorHit[]> {
    const answer = this.vectors.nearest(userId, vector, filter, k, now, minSimilarity);
    // synchronous answers stay synchronous: a search inside the caller's transaction reads its refs within it
    const found = Array.isArray(answer) ? answer : await answer;
    this.setRefs(userId, found);
    const hits: VectorHit[] = [];
    for (const { ref: memory, distance } of found) if (memory) hits.push({ memory, similarity: 1 - distance });
    return hits;
  }

  /**
   * What ranking reads of these rows (MemoryRef), with their pending access bumps: from the
   * per-wallet cache when it answered the search (it mirrors these columns), else one narrow read.
   * Reading every candidate's whole row (content, metadata JSON) cost recall a third of its time
   * at 10k memories, and only the results need it (getMemories). Set in place (`ref`); a row gone
   * meanwhile is left without one.
   */
  private setRefs(userId: string, found: { rowid: number; ref?: MemoryRef }[]): void {
    let read: Map<number, MemoryRef> | null = null;
    for (const f of found) {
      // the rows before the first without a ref all have theirs: the filter lists every one missing
      if (!f.ref) f.ref = (read ??= this.readRefs(userId, found.filter((g) => !g.ref))).get(f.rowid);
      if (!f.ref) continue;
      const pending = this.accesses.pendingCount(userId, f.ref.id);
      if (pending > 0) f.ref.access_count += pending;
    }
  }

  /** Committed refs of rows the cache did not answer for (inside a transaction, a wallet still loading…). */
  private readRefs(userId: string, found: { rowid: number }[]): Map<number, MemoryRef> {
    if (found.length === 0) return new Map();
    const rows = this.db
      .query(`select m.rowid, m.id, m.created_at, m.memory_type, m.pinned, m.importance, ${ACCESS_COUNT_SQL} as access_count
        from memories m ${ACCESS_JOIN} where m.rowid in (${marks(found.length)}) and +m.user_id = ?`)
      .all(...found.map((f) => f.rowid), userId) as (Pick<MemoryRow, "rowid" | "id" | "created_at" | "memory_type" | "pinned" | "importance" | "access_count">)[];
    return new Map(
      rows.map((r) => [
        r.rowid,
        {
          id: r.id,
          created_at: r.created_at,
          memory_type: r.memory_type as MemoryType,
          pinned: r.pinned === 1,
          importance: r.importance,
          access_count: r.access_count,
        },
      ]),
    );
  }

  async embeddings(userId: string, ids: string[]): Promise<Map<string, Float32Array>> {
    if (ids.length === 0) return new Map();
    const rows = this.db
      .query(`select id, embedding from memories where +user_id = ? and id in (${marks(ids.length)})`)
      .all(userId, ...ids) as { id: string; embedding: Uint8Array }[];
    return new Map(rows.map((r) => [r.id, asVector(r.embedding)]));
  }

  /** Written behind (../access-log.ts): every read of this store already sees the bump. */
  async recordAccess(userId: string, ids: string[], now: number): Promise<void> {
    if (ids.length > 0) this.accesses.record(userId, ids, new Date(now).toISOString());
  }

  async history(userId: string, memoryId: string): Promise<HistoryEntry[]> {
    const rows = this.db
      .query(`select ${HISTORY_COLUMNS} from history where user_id = ? and memory_id = ? order by rowid desc`)
      .all(userId, memoryId) as HistoryRow[];
    return rows.map(toHistoryEntry);
  }

  async createRelation(userId: string, r: Relation): Promise<void> {
    this.db
      .query("insert into relations (id, user_id, source_id, target_id, relation_type, metadata, created_at) values (?, ?, ?, ?, ?, ?, ?)")
      .run(r.id, userId, r.source_id, r.target_id, r.relation_type, JSON.stringify(r.metadata), r.created_at);
  }

  /** Relations of `ids` whose both ends are active, as SQL over `relations r`. */
  private activeRelations(userId: string, ids: string[], now: number) {
    const nowIso = new Date(now).toISOString();
    const active = (alias: string) =>
      `exists (select 1 from memories ${alias} where ${alias}.id = r.${alias === "s" ? "source_id" : "target_id"} and ${alias}.user_id = r.user_id
        and ${alias}.deleted_at is null and (${alias}.expires_at is null or ${alias}.expires_at > ?))`;
    const sql = `from relations r where r.user_id = ? and (r.source_id in (${marks(ids.length)}) or r.target_id in (${marks(ids.length)}))
      and ${active("s")} and ${active("t")}`;
    return { sql, params: [userId, ...ids, ...ids, nowIso, nowIso] };
  }

  async relationsOf(userId: string, memoryId: string, now: number): Promise<Relation[]> {
    const { sql, params } = this.activeRelations(userId, [memoryId], now);
    const rows = this.db
      .query(`select r.id, r.source_id, r.target_id, r.relation_type, r.metadata, r.created_at ${sql} order by r.created_at desc, r.id`)
      .all(...params) as (Omit<Relation, "metadata"> & { metadata: string })[];
    return rows.map((r) => ({ ...r, metadata: JSON.parse(r.metadata) }));
  }

  async relationsAmong(userId: string, ids: string[], now: number): Promise<Relation[]> {
    if (ids.length === 0) return [];
    // most wallets have no relations: one index probe instead of the query over every candidate (~0.2 ms)
    if (!this.db.query("select 1 from relations where user_id = ? limit 1").get(userId)) return [];
    const { sql, params } = this.activeRelations(userId, ids, now);
    const rows = this.db.query(`select r.id, r.source_id, r.target_id, r.relation_type, r.metadata, r.created_at ${sql}`).all(...params) as (Omit<Relation, "metadata"> & { metadata: string })[];
    return rows.map((r) => ({ ...r, metadata: JSON.parse(r.metadata) }));
  }

  async deleteRelation(userId: string, memoryId: string, relationId: string): Promise<boolean> {
    const result = this.db
      .query("delete from relations where id = ? and user_id = ? and (source_id = ? or target_id = ?)")
      .run(relationId, userId, memoryId, memoryId);
    return result.changes > 0;
  }

  async stats(userId: string, now: number, filter: Pick<MemoryFilter, "namespace"> = {}): Promise<Stats> {
    this.accesses.flushSync(); // the totals below read access_count in SQL
    const where = memoryWhere(userId, { namespace: filter.namespace }, now);
    const totals = this.db
      .query(
        `select count(*) as total_memories, coalesce(sum(m.pinned), 0) as pinned_count,
          coalesce(sum(${ACCESS_COUNT_SQL} = 0), 0) as never_accessed, coalesce(sum(${ACCESS_COUNT_SQL}), 0) as total_accesses,
          coalesce(avg(m.importance), 0) as avg_importance, min(m.created_at) as oldest_memory, max(m.created_at) as newest_memory
         from memories m ${ACCESS_JOIN} where ${where.sql}`,
      )
      .get(...where.params) as Omit<Stats, "by_type" | "by_namespace">;
    const by_type = this.db
      .query(`select m.memory_type, count(*) as count from memories m where ${where.sql} group by m.memory_type order by count desc, m.memory_type`)
      .all(...where.params) as Stats["by_type"];
    const by_namespace = (await this.namespaces(userId, now)).filter((n) => filter.namespace === undefined || n.namespace === filter.namespace);
    return { ...totals, by_type, by_namespace };
  }

  async namespaces(userId: string, now: number, filter: Pick<MemoryFilter, "agent_id"> = {}): Promise<{ namespace: string; count: number }[]> {
    const where = memoryWhere(userId, { agent_id: filter.agent_id }, now);
    return this.db
      .query(`select m.namespace, count(*) as count from memories m where ${where.sql} group by m.namespace order by count desc, m.namespace`)
      .all(...where.params) as { namespace: string; count: number }[];
  }

  async *scanAll(batchSize: number): AsyncIterable<{ user_id: string; memory: Memory }[]> {
    this.accesses.flushSync();
    let after = 0;
    for (;;) {
      const rows = this.db
        .query(`select ${MEMORY_COLUMNS} from memories m ${ACCESS_JOIN} where m.rowid > ? and m.deleted_at is null order by m.rowid limit ?`)
        .all(after, batchSize) as MemoryRow[];
      if (rows.length === 0) return;
      after = rows.at(-1)!.rowid;
      yield rows.map((r) => ({ user_id: r.user_id, memory: this.toMemory(r) }));
    }
  }

  async countAll(): Promise<number> {
    return (this.db.query("select count(*) as n from memories where deleted_at is null").get() as { n: number }).n;
  }
}
