import { AsyncLocalStorage } from "node:async_hooks";
import type { EmbeddingModelInfo, MemoryFilter, MemoryRef, MemoryStore, Page, QueryVector, StoredMemory, TermStatistics, TextHit, VectorHit } from "../domain/store-port";
import type { Memory } from "../domain/memory";
import type { Relation } from "../domain/relation";
import type { HistoryEntry } from "../domain/history";
import type { Stats } from "../domain/stats";

/**
 * Deferred writes for paid calls: the store every domain service uses, which behaves exactly
 * like the engine it wraps except inside `stage(work)`. There, writes (insert, update, soft
 * delete, access records, new relations) are queued instead of applied, and `stage` hands
 * back the work's result with a `commit` step that applies them in order. The paywall
 * verifies the payment, stages the work, settles, and only then commits: a payment that
 * fails to settle leaves nothing behind, whatever the route did (store, batch update,
 * recall's access counts, ingest, context).
 *
 * Reads inside a staged call see the engine's committed state with the call's own staged
 * records laid over it by id (getMemories, findByContentHash, embeddings, history,
 * relations; staged deletes and updates also apply to list/search/nearest results). Ranked
 * queries (nearest, searchText, listMemories) do not find records the same call inserted:
 * the domain code dedups within one batch itself, so nothing depends on that.
 */
export class StagingStore implements MemoryStore {
  private readonly current = new AsyncLocalStorage<WriteSet>();

  constructor(private readonly inner: MemoryStore) {}

  get engine() {
    return this.inner.engine;
  }

  /** Runs `work` with its writes held back; `commit` applies them, dropping the result discards them. */
  async stage<T>(work: () => Promise<T>): Promise<{ result: T; writes: number; commit: () => Promise<void> }> {
    const set = new WriteSet();
    try {
      const result = await this.current.run(set, work);
      return { result, writes: set.ops.length, commit: () => set.applyTo(this.inner) };
    } finally {
      set.sealed = true;
    }
  }

  /** The calling paid work's write set, if any. A write arriving after that work finished is refused loudly. */
  private staged(write = false): WriteSet | undefined {
    const set = this.current.getStore();
    if (!set?.sealed) return set;
    if (write) throw new Error("a paid call wrote to the store after its work had finished; the write was refused");
    return undefined;
  }

  // ---- pass-through: accounts, free tier, payment nonces, lifecycle, bulk scans ----

  bindEmbeddingModel(model: EmbeddingModelInfo, force?: boolean): Promise<void> {
    return this.inner.bindEmbeddingModel(model, force);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  sessionSecret(candidate: string): Promise<string> {
    return this.inner.sessionSecret(candidate);
  }
  userIdForWallet(wallet: string): Promise<string> {
    return this.inner.userIdForWallet(wallet);
  }
  reserveFreeCall(wallet: string, limit: number): Promise<number | null> {
    return this.inner.reserveFreeCall(wallet, limit);
  }
  releaseFreeCall(wallet: string): Promise<void> {
    return this.inner.releaseFreeCall(wallet);
  }
  freeCallsUsed(wallet: string): Promise<number> {
    return this.inner.freeCallsUsed(wallet);
  }
  claimPaymentNonce(key: string, untilMs: number, now: number): Promise<boolean> {
    return this.inner.claimPaymentNonce(key, untilMs, now);
  }
  releasePaymentNonce(key: string): Promise<void> {
    return this.inner.releasePaymentNonce(key);
  }
  stats(userId: string, now: number, filter?: Pick<MemoryFilter, "namespace">): Promise<Stats> {
    return this.inner.stats(userId, now, filter);
  }
  namespaces(userId: string, now: number, filter?: Pick<MemoryFilter, "agent_id">): Promise<{ namespace: string; count: number }[]> {
    return this.inner.namespaces(userId, now, filter);
  }
  scanAll(batchSize: number): AsyncIterable<{ user_id: string; memory: Memory }[]> {
    return this.inner.scanAll(batchSize);
  }
  countAll(): Promise<number> {
    return this.inner.countAll();
  }

  // ---- writes: staged inside a paid call ----

  async insertMemories(items: StoredMemory[]): Promise<void> {
    const set = this.staged(true);
    if (!set) return this.inner.insertMemories(items);
    for (const item of items) set.memories.set(item.memory.id, { ...item });
    set.ops.push((s) => s.insertMemories(items));
  }

  async updateMemory(userId: string, update: { memory: Memory; embedding?: Float32Array; content_hash?: string; history?: HistoryEntry }): Promise<void> {
    const set = this.staged(true);
    if (!set) return this.inner.updateMemory(userId, update);
    const before = set.memories.get(update.memory.id);
    set.memories.set(update.memory.id, {
      memory: update.memory,
      embedding: update.embedding ?? before?.embedding,
      content_hash: update.content_hash ?? before?.content_hash,
    });
    if (update.history) set.history.unshift({ userId, entry: update.history });
    set.ops.push((s) => s.updateMemory(userId, update));
  }

  async softDelete(userId: string, ids: string[], now: number): Promise<void> {
    const set = this.staged(true);
    if (!set) return this.inner.softDelete(userId, ids, now);
    for (const id of ids) set.deleted.add(id);
    set.ops.push((s) => s.softDelete(userId, ids, now));
  }

  async recordAccess(userId: string, ids: string[], now: number): Promise<void> {
    const set = this.staged(true);
    if (!set) return this.inner.recordAccess(userId, ids, now);
    set.ops.push((s) => s.recordAccess(userId, ids, now));
  }

  async createRelation(userId: string, relation: Relation): Promise<void> {
    const set = this.staged(true);
    if (!set) return this.inner.createRelation(userId, relation);
    set.relations.unshift({ userId, relation });
    set.ops.push((s) => s.createRelation(userId, relation));
  }

  async deleteRelation(userId: string, memoryId: string, relationId: string): Promise<boolean> {
    if (this.staged(true)) throw new Error("deleteRelation is not supported inside a paid call (its result depends on committed state)");
    return this.inner.deleteRelation(userId, memoryId, relationId);
  }

  // ---- reads: the engine's state with the call's staged records laid over it ----

  async getMemories(userId: string, ids: string[], now: number): Promise<Memory[]> {
    const set = this.staged();
    if (!set) return this.inner.getMemories(userId, ids, now);
    const committed = await this.inner.getMemories(userId, ids.filter((id) => !set.memories.has(id)), now);
    const byId = new Map(committed.map((m) => [m.id, m]));
    return ids.flatMap((id) => {
      const memory = set.memories.get(id)?.memory ?? byId.get(id);
      return memory && memory.user_id === userId && set.isActive(memory, now) ? [memory] : [];
    });
  }

  async findByContentHash(userId: string, namespace: string, contentHash: string, now: number): Promise<Memory | null> {
    const set = this.staged();
    if (!set) return this.inner.findByContentHash(userId, namespace, contentHash, now);
    const candidates: Memory[] = [];
    for (const { memory, content_hash } of set.memories.values()) {
      if (memory.user_id === userId && memory.namespace === namespace && content_hash === contentHash && set.isActive(memory, now)) candidates.push(memory);
    }
    const committed = await this.inner.findByContentHash(userId, namespace, contentHash, now);
    if (committed) {
      const staged = set.memories.get(committed.id);
      if (!staged) {
        if (!set.deleted.has(committed.id)) candidates.push(committed);
      } // else: the staged version was considered above, with its current hash and namespace
    }
    candidates.sort((a, b) => a.created_at.localeCompare(b.created_at));
    return candidates[0] ?? null;
  }

  async embeddings(userId: string, ids: string[]): Promise<Map<string, Float32Array>> {
    const set = this.staged();
    if (!set) return this.inner.embeddings(userId, ids);
    const result = await this.inner.embeddings(userId, ids);
    for (const id of ids) {
      const staged = set.memories.get(id);
      if (staged?.embedding && staged.memory.user_id === userId) result.set(id, staged.embedding);
    }
    return result;
  }

  async listMemories(userId: string, filter: MemoryFilter, page: Page, now: number): Promise<{ memories: Memory[]; total: number }> {
    const set = this.staged();
    const result = await this.inner.listMemories(userId, filter, page, now);
    return set ? { ...result, memories: set.overlay(result.memories, (m) => m, now, filter.include_deleted) } : result;
  }

  async searchText(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number, vector?: QueryVector): Promise<TextHit[]> {
    const set = this.staged();
    const hits = await this.inner.searchText(userId, terms, filter, limit, now, vector);
    if (!set) return hits;
    // a staged version may carry a new embedding: its cosine is read again (embeddings above)
    return set.overlay(hits, (h) => h.memory, now).map((h) => (set.memories.has(h.memory.id) ? { memory: h.memory, bm25: h.bm25 } : h));
  }

  termStatistics(userId: string, terms: string[], now: number): Promise<TermStatistics> {
    return this.inner.termStatistics(userId, terms, now);
  }

  countText(userId: string, terms: string[], filter: MemoryFilter, now: number): Promise<number> {
    return this.inner.countText(userId, terms, filter, now);
  }

  async nearest(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number, minSimilarity?: number): Promise<VectorHit[]> {
    const set = this.staged();
    const hits = await this.inner.nearest(userId, vector, filter, k, now, minSimilarity);
    return set ? set.overlay(hits, (h) => h.memory, now) : hits;
  }

  async history(userId: string, memoryId: string): Promise<HistoryEntry[]> {
    const set = this.staged();
    const committed = await this.inner.history(userId, memoryId);
    if (!set) return committed;
    return [...set.history.filter((h) => h.userId === userId && h.entry.memory_id === memoryId).map((h) => h.entry), ...committed];
  }

  async relationsOf(userId: string, memoryId: string, now: number): Promise<Relation[]> {
    const set = this.staged();
    const committed = await this.inner.relationsOf(userId, memoryId, now);
    if (!set) return committed;
    const staged: Relation[] = [];
    for (const { userId: owner, relation } of set.relations) {
      if (owner !== userId || (relation.source_id !== memoryId && relation.target_id !== memoryId)) continue;
      const other = relation.source_id === memoryId ? relation.target_id : relation.source_id;
      if ((await this.getMemories(userId, [other], now)).length > 0) staged.push(relation);
    }
    const live = committed.filter((r) => !set.deleted.has(r.source_id) && !set.deleted.has(r.target_id));
    return [...staged, ...live];
  }

  async relationsAmong(userId: string, ids: string[], now: number): Promise<Relation[]> {
    const set = this.staged();
    const committed = await this.inner.relationsAmong(userId, ids, now);
    if (!set) return committed;
    const wanted = new Set(ids);
    const staged = set.relations.filter(({ userId: owner, relation: r }) => owner === userId && (wanted.has(r.source_id) || wanted.has(r.target_id))).map((s) => s.relation);
    const live = committed.filter((r) => !set.deleted.has(r.source_id) && !set.deleted.has(r.target_id));
    return [...staged, ...live];
  }
}

/** The queued writes of one paid call, and the records they touch (for reads inside the call). */
class WriteSet {
  readonly ops: ((store: MemoryStore) => Promise<unknown>)[] = [];
  readonly memories = new Map<string, { memory: Memory; embedding?: Float32Array; content_hash?: string }>();
  readonly deleted = new Set<string>();
  /** newest first, like the engine's answers */
  readonly relations: { userId: string; relation: Relation }[] = [];
  readonly history: { userId: string; entry: HistoryEntry }[] = [];
  sealed = false;
  private committed = false;

  isActive(memory: Memory, now: number): boolean {
    if (this.deleted.has(memory.id) || memory.deleted_at !== null) return false;
    return memory.expires_at === null || Date.parse(memory.expires_at) > now;
  }

  /**
   * Engine results with this call's updates and deletes applied (ranking unchanged). The engine
   * answered with active records only (unless `includeDeleted`), so only staged ones are checked.
   */
  overlay<T>(items: T[], memoryOf: (item: T) => MemoryRef, now: number, includeDeleted = false): T[] {
    return items.flatMap((item) => {
      const memory = memoryOf(item);
      const staged = this.memories.get(memory.id)?.memory;
      if (!includeDeleted && (this.deleted.has(memory.id) || (staged && !this.isActive(staged, now)))) return [];
      if (!staged) return [item];
      return [item === memory ? (staged as T) : { ...item, memory: staged }];
    });
  }

  async applyTo(store: MemoryStore): Promise<void> {
    if (this.committed) throw new Error("staged writes already committed");
    this.committed = true;
    for (const op of this.ops) await op(store);
  }
}
