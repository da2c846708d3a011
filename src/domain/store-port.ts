import type { Memory, MemoryType } from "./memory";
import type { Relation } from "./relation";
import type { HistoryEntry } from "./history";
import type { Stats } from "./stats";

/**
 * The storage port: everything the domain needs from an engine, nothing more.
 * Every call is scoped to one user; an engine never returns another user's
 * record. "Active" means not soft-deleted and not expired at `now` (epoch ms).
 * Engines return raw signals (BM25, cosine); all scoring lives in src/domain.
 */
export interface MemoryFilter {
  namespace?: string;
  session_id?: string;
  agent_id?: string;
  memory_type?: MemoryType;
  /** any-match on metadata.tags */
  tags?: string[];
  created_after?: string;
  created_before?: string;
  pinned?: boolean;
  /** export only: include soft-deleted records */
  include_deleted?: boolean;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface StoredMemory {
  memory: Memory;
  embedding: Float32Array;
  /** normalized-content hash, for exact-duplicate detection */
  content_hash: string;
}

/**
 * What ranking needs of a memory. Searches (nearest, searchText) answer with these, so an engine
 * can rank from what it keeps in memory and read whole records only for the results (getMemories);
 * an engine may as well answer with whole memories.
 */
export type MemoryRef = Pick<Memory, "id" | "created_at" | "memory_type" | "pinned" | "importance" | "access_count">;

/** A query vector, or the promise of one (see `searchText`). */
export type QueryVector = Float32Array | PromiseLike<Float32Array>;

export interface TextHit {
  memory: MemoryRef;
  /** BM25 relevance, higher is better (engine-specific scale) */
  bm25: number;
  /** cosine similarity to the `vector` searchText was given, when the engine had the embedding at hand */
  similarity?: number;
  /**
   * Which of searchText's `terms` the memory's content holds among its stemmed words (indexTerms),
   * bit j for terms[j], when the engine knows it (sqlite's keyword index: its postings say so; at
   * most 32 terms). Recall reads the content otherwise (bestKeywordCoverage).
   */
  held?: number;
}

/** What the keyword calibration reads of a wallet (see termCoverage): its memories and how many of them hold each term. */
export interface TermStatistics {
  documents: number;
  /** per term, in the order the terms were asked for */
  frequencies: number[];
}

export interface VectorHit {
  memory: MemoryRef;
  /** cosine similarity, -1..1 */
  similarity: number;
}

export interface EmbeddingModelInfo {
  id: string;
  dimension: number;
}

/**
 * The data store could not be reached or is not serving (Redis: the connection dropped, a cluster
 * failing over or resharding). The request fails with 503: the client may retry once it is back.
 * An acknowledged write is never behind this error; the write it interrupted was not acknowledged.
 */
export class StoreUnavailable extends Error {
  override readonly name = "StoreUnavailable";
}

/**
 * The store applied a write but could not make it as durable as configured in time (Redis: fewer
 * replicas than REDIS_WAIT_REPLICAS confirmed it). The request fails with 503; the write may exist.
 */
export class WriteNotReplicated extends Error {
  override readonly name = "WriteNotReplicated";
  constructor(
    readonly acknowledged: number,
    readonly required: number,
    readonly timeoutMs: number,
  ) {
    super(`the write reached ${acknowledged} of ${required} replicas within ${timeoutMs} ms`);
  }
}

export interface MemoryStore {
  readonly engine: "sqlite" | "redis";
  /** Binds the store to an embedding model; throws if its data was embedded by another one (unless `force`). */
  bindEmbeddingModel(model: EmbeddingModelInfo, force?: boolean): Promise<void>;
  close(): Promise<void>;
  /**
   * The key session tokens are signed with when JWT_SECRET is not set, kept in the store so every
   * process and replica on it agrees: the stored one, or else `candidate`, stored now (when several
   * race, the first stored wins and all of them get it).
   */
  sessionSecret(candidate: string): Promise<string>;

  userIdForWallet(wallet: string): Promise<string>;
  /** Atomically takes one free call if fewer than `limit` are used; returns the new used count, or null when exhausted. */
  reserveFreeCall(wallet: string, limit: number): Promise<number | null>;
  /** Gives back a reserved call (the request failed). */
  releaseFreeCall(wallet: string): Promise<void>;
  freeCallsUsed(wallet: string): Promise<number>;
  /**
   * Atomically claims a payment authorization's key (src/billing/replay-guard.ts) until `untilMs`
   * (epoch ms; `now` is the caller's clock): true when this call took it, false while a claim of it
   * holds. Kept in the store, so every process and replica on it sees every claim.
   */
  claimPaymentNonce(key: string, untilMs: number, now: number): Promise<boolean>;
  /** Gives a claim back (the authorization was not used). */
  releasePaymentNonce(key: string): Promise<void>;

  insertMemories(items: StoredMemory[]): Promise<void>;
  /** Replaces a memory's record (and embedding/hash when its content changed), recording the history entry, atomically. */
  updateMemory(userId: string, update: { memory: Memory; embedding?: Float32Array; content_hash?: string; history?: HistoryEntry }): Promise<void>;
  getMemories(userId: string, ids: string[], now: number): Promise<Memory[]>;
  findByContentHash(userId: string, namespace: string, contentHash: string, now: number): Promise<Memory | null>;
  softDelete(userId: string, ids: string[], now: number): Promise<void>;
  listMemories(userId: string, filter: MemoryFilter, page: Page, now: number): Promise<{ memories: Memory[]; total: number }>;
  /**
   * The best `limit` BM25 hits over content for any of `terms` (plain words, never query syntax).
   * With `vector`, an engine that holds the hits' embeddings anyway adds their cosine to it
   * (recall then skips reading them with `embeddings`). The vector may still be on its way (a
   * promise): recall starts the search while the query is being embedded, and an engine waits for
   * the vector only once it needs it.
   */
  searchText(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number, vector?: QueryVector): Promise<TextHit[]>;
  /**
   * The wallet's memories and, per term (plain words), how many of them contain it: every memory
   * of the wallet the keyword index holds, whatever the filter, so that both engines give the same
   * statistics (and the same calibrated keyword signal) for the same data.
   */
  termStatistics(userId: string, terms: string[], now: number): Promise<TermStatistics>;
  /** How many memories searchText could return (a separate call: recall does not pay for counting). */
  countText(userId: string, terms: string[], filter: MemoryFilter, now: number): Promise<number>;
  /**
   * k nearest by cosine, filters applied inside the query. With `minSimilarity`, the caller keeps
   * only hits at or above it: an engine may leave out hits below it (and answer with fewer than k),
   * but every hit at or above it that is among the k nearest must come back, in the same order.
   * An engine that can prune with it (sqlite's cache rescores only the rows that may reach it) scans less.
   */
  nearest(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number, minSimilarity?: number): Promise<VectorHit[]>;
  embeddings(userId: string, ids: string[]): Promise<Map<string, Float32Array>>;
  recordAccess(userId: string, ids: string[], now: number): Promise<void>;

  history(userId: string, memoryId: string): Promise<HistoryEntry[]>;

  createRelation(userId: string, relation: Relation): Promise<void>;
  /** Relations touching the memory whose other end is active too, newest first. */
  relationsOf(userId: string, memoryId: string, now: number): Promise<Relation[]>;
  /** Relations touching any of `ids` whose both ends are active (each once). */
  relationsAmong(userId: string, ids: string[], now: number): Promise<Relation[]>;
  deleteRelation(userId: string, memoryId: string, relationId: string): Promise<boolean>;

  /** The wallet's statistics, or one namespace's. */
  stats(userId: string, now: number, filter?: Pick<MemoryFilter, "namespace">): Promise<Stats>;
  /** Active memories per namespace, of every agent or one. */
  namespaces(userId: string, now: number, filter?: Pick<MemoryFilter, "agent_id">): Promise<{ namespace: string; count: number }[]>;

  /** Every non-deleted memory of every user, in batches (for re-embedding). */
  scanAll(batchSize: number): AsyncIterable<{ user_id: string; memory: Memory }[]>;
  countAll(): Promise<number>;
}
