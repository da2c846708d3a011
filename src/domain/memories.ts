import type { MemoryFilter, MemoryStore, Page, VectorHit } from "./store-port";
import { historyEntry, type HistoryEntry } from "./history";
import { checkContent, checkExpiry, checkMetadata, foldTags, newMemory, PatchFields, StoreFields, type Memory } from "./memory";
import { isRefined, refinedList, type Refinement } from "./list-query";
import { immutableConflict, invalid, notFound } from "./errors";
import { DEDUP_NEIGHBOURS, isDuplicate, isExactDuplicate, isNearDuplicate, merge, mergeDropped, type Candidate, type MergeDropped } from "./dedup";
import { contentHash, cosine } from "./text";
import { knowsFactSignature, rememberFactSignature } from "./fact-signature";
import type { Clock, FactReader, TextEmbedder } from "./ports";

export interface StoreOutcome {
  /** one per input item: the new id, or the id it was deduplicated into */
  ids: string[];
  /** the ids of the memories actually created, in input order */
  fresh_ids: string[];
  stored: number;
  deduplicated: number;
  tokens_used: number;
  /** the record behind each distinct id of `ids`, in order, as stored or merged */
  memories: Memory[];
  /** one per input item: what a merged duplicate carried that its merge did not keep (null: nothing, or not merged) */
  merge_dropped: (MergeDropped | null)[];
}

const iso = (ms: number) => new Date(ms).toISOString();
/** The record fields a store sets (`tags` is folded into metadata first). */
const STORE_KEYS = (Object.keys(StoreFields.properties) as (keyof StoreFields)[]).filter((key) => key !== "tags");
const normalizeIso = (value: string) => new Date(value).toISOString();

/** The memory lifecycle of one user: store (with dedup), read, update, delete, pin. */
export class Memories {
  /** per wallet, the end of the dedup-and-write step under way (see oneAtATime) */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly store: MemoryStore,
    private readonly embedder: TextEmbedder,
    private readonly clock: Clock,
    private readonly dedupThreshold: number,
    /** reads the fact signatures dedup compares off the main thread, when given (see readFacts) */
    private readonly facts?: FactReader,
  ) {}

  /**
   * Validates every item first (all-or-nothing), then embeds, dedups and stores in one engine call.
   * `merge: false` (ingest) leaves an existing duplicate untouched instead of folding the new one in.
   */
  async storeMany(userId: string, given: StoreFields[], { merge: mergeDuplicates = true } = {}): Promise<StoreOutcome> {
    const now = this.clock();
    const items = given.map((item, i) => this.checkStoreFields(item, now, given.length > 1 ? `body/memories/${i}/` : "body/"));
    const { vectors, tokens } = await this.embedder.embed(items.map((i) => i.content));
    const candidates = items.map((item, i) => this.candidate(userId, item, vectors[i]!, now));
    return this.oneAtATime(userId, () => this.dedupAndWrite(userId, candidates, tokens, now, mergeDuplicates));
  }

  /**
   * Runs a wallet's dedup-and-write steps one store at a time in this process: two stores of the
   * same new text checking the wallet at once would both miss the other's memory and store it
   * twice. (Across processes or replicas, and for paid calls, whose writes wait for settlement,
   * that can still happen: see docs/architecture.md › Several processes.)
   */
  private oneAtATime<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const run = (this.writing.get(userId) ?? Promise.resolve()).then(work);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.writing.set(userId, settled);
    void settled.then(() => this.writing.get(userId) === settled && this.writing.delete(userId));
    return run;
  }

  private async dedupAndWrite(userId: string, candidates: Candidate[], tokens: number[], now: number, mergeDuplicates: boolean): Promise<StoreOutcome> {
    const ids: string[] = [];
    const fresh: Candidate[] = [];
    const merged = new Map<string, Memory>();
    /** existing memories a candidate duplicates (kept as they are when not merging) */
    const known = new Map<string, Memory>();
    const dropped: (MergeDropped | null)[] = candidates.map(() => null);
    /** `into` with item i folded in, noting what the merge did not keep of it */
    const fold = (into: Memory, i: number, at: string) => {
      const folded = merge(into, candidates[i]!.memory, at);
      dropped[i] = mergeDropped(folded, candidates[i]!.memory);
      return folded;
    };
    const stored = await this.storedDuplicates(userId, candidates, now);
    for (const [i, candidate] of candidates.entries()) {
      const twin = fresh.find((f) => isDuplicate(f, candidate, this.dedupThreshold));
      if (twin) {
        if (mergeDuplicates) twin.memory = fold(twin.memory, i, twin.memory.updated_at);
        ids.push(twin.memory.id);
        continue;
      }
      const existing = merged.get(candidate.memory.id) ?? stored[i];
      if (existing) {
        known.set(existing.id, existing);
        if (mergeDuplicates) merged.set(existing.id, fold(merged.get(existing.id) ?? existing, i, iso(now)));
        ids.push(existing.id);
        continue;
      }
      fresh.push(candidate);
      ids.push(candidate.memory.id);
    }
    await this.store.insertMemories(fresh);
    for (const memory of merged.values()) await this.store.updateMemory(userId, { memory });
    const freshIds = fresh.map((f) => f.memory.id);
    const records = new Map<string, Memory>([...known, ...merged, ...fresh.map((f): [string, Memory] => [f.memory.id, f.memory])]);
    const memories = [...new Set(ids)].map((id) => records.get(id)!);
    return { ids, fresh_ids: freshIds, stored: fresh.length, deduplicated: candidates.length - fresh.length, tokens_used: tokens.reduce((a, b) => a + b, 0), memories, merge_dropped: dropped };
  }

  /**
   * Has the FactReader read, in one round trip, the fact signatures the dedup checks of this batch
   * may compare: every item with a close stored neighbour and those neighbours, and every item close
   * to another of the batch (same namespace, cosine ≥ threshold). The checks then find them at hand;
   * any they miss (no reader, a failed read) they read themselves, with the same result.
   */
  private async readFacts(candidates: Candidate[], close: VectorHit[][], records: Map<string, Memory>): Promise<void> {
    if (!this.facts) return;
    const texts = new Set<string>();
    for (const [i, candidate] of candidates.entries()) {
      if (close[i]!.length > 0) texts.add(candidate.memory.content);
      for (const { memory } of close[i]!) {
        const record = records.get(memory.id);
        if (record) texts.add(record.content);
      }
    }
    for (const [i, a] of candidates.entries()) {
      for (const b of candidates.slice(i + 1)) {
        if (a.memory.namespace !== b.memory.namespace || cosine(a.embedding, b.embedding) < this.dedupThreshold) continue;
        texts.add(a.memory.content).add(b.memory.content);
      }
    }
    const unread = [...texts].filter((text) => !knowsFactSignature(text));
    if (unread.length === 0) return;
    try {
      const signatures = await this.facts.factSignatures(unread);
      unread.forEach((text, i) => rememberFactSignature(text, signatures[i]!));
    } catch {
      // the checks read them here instead
    }
  }

  /** The item with `tags` folded into its metadata, checked. */
  private checkStoreFields({ tags, ...item }: StoreFields, now: number, prefix: string): StoreFields {
    checkContent(item.content, `${prefix}content`);
    const metadata = foldTags(tags, item.metadata, {}, prefix);
    if (metadata) checkMetadata(metadata, `${prefix}metadata`);
    checkExpiry(item.expires_at, now, `${prefix}expires_at`);
    return metadata ? { ...item, metadata } : item;
  }

  private candidate(userId: string, item: StoreFields, embedding: Float32Array, now: number): Candidate {
    // Only the client-settable fields, and only those given: newMemory supplies the defaults.
    const given = Object.fromEntries(STORE_KEYS.flatMap((key) => (item[key] === undefined ? [] : [[key, item[key]]]))) as Partial<Memory>;
    const expires_at = item.expires_at ? normalizeIso(item.expires_at) : null;
    const memory = newMemory({ ...given, user_id: userId, content: item.content, expires_at }, iso(now));
    return { memory, embedding, content_hash: contentHash(item.content) };
  }

  /**
   * For each candidate, the stored memory it duplicates, or null: the first exact duplicate by
   * content hash, else the nearest of its close neighbours (cosine ≥ threshold, nearest first)
   * that is a near duplicate. Looked up for the whole batch before any of it is written (the
   * wallet does not change meanwhile), so the close neighbours of every item are read in one call.
   */
  private async storedDuplicates(userId: string, candidates: Candidate[], now: number): Promise<(Memory | null)[]> {
    const found: (Memory | null)[] = candidates.map(() => null);
    const close: VectorHit[][] = candidates.map(() => []);
    for (const [i, candidate] of candidates.entries()) {
      const { namespace } = candidate.memory;
      const exact = await this.store.findByContentHash(userId, namespace, candidate.content_hash, now);
      if (exact && isExactDuplicate(exact.content, candidate.memory.content)) {
        found[i] = exact;
        continue;
      }
      const nearest = await this.store.nearest(userId, candidate.embedding, { namespace }, DEDUP_NEIGHBOURS, now, this.dedupThreshold);
      close[i] = nearest.filter((n) => n.similarity >= this.dedupThreshold);
    }
    const ids = [...new Set(close.flatMap((hits) => hits.map((n) => n.memory.id)))];
    const records = new Map((await this.store.getMemories(userId, ids, now)).map((m) => [m.id, m]));
    await this.readFacts(candidates, close, records);
    for (const [i, candidate] of candidates.entries()) {
      for (const { memory, similarity } of close[i]!) {
        const record = records.get(memory.id);
        if (record && isNearDuplicate(record.content, candidate.memory.content, similarity, this.dedupThreshold)) {
          found[i] = record;
          break;
        }
      }
    }
    return found;
  }

  /** An active memory of this user, or 404: another user's memory is indistinguishable from a missing one. */
  async get(userId: string, id: string): Promise<Memory> {
    const [memory] = await this.store.getMemories(userId, [id], this.clock());
    if (!memory) throw notFound();
    return memory;
  }

  /** A page of memories, newest first unless `refinement` asks otherwise (see list-query.ts). */
  async list(userId: string, filter: MemoryFilter, page: Page, refinement?: Refinement) {
    if (isRefined(refinement)) return refinedList(this.store, userId, filter, page, refinement, this.clock());
    return this.store.listMemories(userId, filter, page, this.clock());
  }

  /**
   * Applies a PATCH. `history`: record the fields that actually changed as a history entry; the spec
   * has only PATCH /v1/memories/:id do that (a batch update records none).
   */
  async update(userId: string, id: string, input: PatchFields, { history: recordHistory }: { history: boolean }): Promise<Memory> {
    const now = this.clock();
    const current = await this.get(userId, id);
    if (current.immutable) throw immutableConflict(id);
    const { tags, ...patch } = patchableOnly(input);
    if (tags === undefined && Object.keys(patch).length === 0) throw invalid(`give at least one of: ${PATCHABLE.join(", ")}`);
    const metadata = foldTags(tags, patch.metadata, current.metadata, "body/");
    if (metadata) patch.metadata = metadata;
    checkContent(patch.content, "body/content");
    if (patch.metadata) checkMetadata(patch.metadata, "body/metadata");
    checkExpiry(patch.expires_at, now, "body/expires_at");
    const changes = changedFields(current, normalizePatch(patch));
    if (Object.keys(changes).length === 0) return current;
    const memory: Memory = { ...current, ...changes, updated_at: iso(now) };
    const history = recordHistory ? historyEntry(current, memory, changes, iso(now)) : undefined;
    const reembed = changes.content !== undefined ? await this.embedder.embed([memory.content]) : null;
    await this.store.updateMemory(userId, {
      memory,
      ...(history && { history }),
      ...(reembed && { embedding: reembed.vectors[0]!, content_hash: contentHash(memory.content) }),
    });
    return memory;
  }

  async delete(userId: string, id: string): Promise<void> {
    const memory = await this.get(userId, id);
    if (memory.immutable) throw immutableConflict(id);
    await this.store.softDelete(userId, [id], this.clock());
  }

  /** Deletes what it may; returns the ids it could not (missing, other wallet, immutable), each with why. */
  async deleteMany(userId: string, ids: string[]): Promise<{ deleted: number; errors: string[]; failures: { id: string; reason: "not_found" | "immutable" }[] }> {
    const now = this.clock();
    const unique = [...new Set(ids)];
    const found = await this.store.getMemories(userId, unique, now);
    const deletable = found.filter((m) => !m.immutable).map((m) => m.id);
    await this.store.softDelete(userId, deletable, now);
    const ok = new Set(deletable);
    const locked = new Set(found.filter((m) => m.immutable).map((m) => m.id));
    const failures = unique.filter((id) => !ok.has(id)).map((id) => ({ id, reason: locked.has(id) ? ("immutable" as const) : ("not_found" as const) }));
    return { deleted: deletable.length, errors: failures.map((f) => f.id), failures };
  }

  async history(userId: string, id: string): Promise<HistoryEntry[]> {
    await this.get(userId, id);
    return this.store.history(userId, id);
  }

  async setPinned(userId: string, id: string, pinned: boolean): Promise<void> {
    const memory = await this.get(userId, id);
    if (!pinned && !memory.pinned) throw notFound("pinned memory");
    if (memory.pinned === pinned) return;
    // Pinning changes ranking, not the record's content, so the core endpoints allow it on immutable memories.
    await this.store.updateMemory(userId, { memory: { ...memory, pinned, updated_at: iso(this.clock()) } });
  }
}

const PATCHABLE = Object.keys(PatchFields.properties) as (keyof PatchFields)[];

/**
 * Only the fields a client may change: a batch item is checked against PatchFields but keeps any
 * other keys it was sent, and those (`deleted_at`, `access_count`, `user_id`…) must never reach the record.
 */
function patchableOnly(input: PatchFields): PatchFields {
  const patch: Record<string, unknown> = {};
  for (const key of PATCHABLE) if (input[key] !== undefined) patch[key] = input[key];
  return patch as PatchFields;
}

function normalizePatch(patch: PatchFields): PatchFields {
  return patch.expires_at ? { ...patch, expires_at: normalizeIso(patch.expires_at) } : patch;
}

/** The patch's fields whose values differ from the memory's (deep comparison for metadata). */
function changedFields(current: Memory, patch: PatchFields): Partial<Memory> {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (JSON.stringify(current[key as keyof Memory]) !== JSON.stringify(value)) changes[key] = value;
  }
  return changes as Partial<Memory>;
}
