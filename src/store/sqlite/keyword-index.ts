import type { MemoryRef } from "../../domain/store-port";
import { indexTerms, words } from "../../domain/text";

/** Process-wide counters, for benchmarks and diagnostics. */
export const keywordIndexCounters = {
  /** searchText/countText calls answered from the per-wallet cache */
  searches: 0,
  /** calls left to FTS5 (inside a transaction, include_deleted, unparsable dates, a term that is not one word) */
  sqlFallbacks: 0,
  /** dead postings dropped (doc ids renumbered) */
  compactions: 0,
};

/** A keyword match: the memory's rowid and its BM25 score (higher is better). */
export interface KeywordHit {
  rowid: number;
  score: number;
  /** cosine to the query vector, when the search was given one and the row has a vector */
  similarity?: number;
  /** what ranking reads of the row (committed state), from the cache */
  ref?: MemoryRef;
}

/** Which cached rows a search may return: a predicate over slots, or `true` when every row passes (no call per row). */
export type SlotFilter = true | ((slot: number) => boolean);

// FTS5's bm25() constants (ext/fts5/fts5_aux.c).
const K1 = 1.2;
const B = 0.75;
/** FTS5 replaces an IDF ≤ 0 (a term in half the rows or more) by this. */
const MIN_IDF = 1e-6;

/** Postings pack `docId << TF_BITS | min(tf, TF_MAX)`; a tf of TF_MAX or more is kept exactly in `overflow`. */
const TF_BITS = 8;
const TF_MAX = (1 << TF_BITS) - 1;
/** Doc ids must stay below 2^23 so packed postings are positive int32; compaction renumbers them. */
const MAX_DOC_ID = 1 << (31 - TF_BITS);

/**
 * The query terms as the index's tokens, or null when a term is not exactly one word (FTS5 would
 * treat it as a phrase, which needs positions this index does not keep: the caller falls back to
 * FTS5). Duplicate terms are kept: FTS5 scores each phrase of an OR query separately.
 */
export function queryTokens(terms: string[]): string[] | null {
  const out: string[] = [];
  for (const term of terms) {
    const w = words(term);
    if (w.length !== 1) return null;
    out.push(w[0]!);
  }
  return out;
}

// Scratch shared by every wallet (searches are synchronous): per-slot accumulated score and state
// (0 untouched, 1 accepted, 2 rejected by the filter), and the touched slots to reset.
let scratchScore = new Float64Array(0);
let scratchState = new Uint8Array(0);
let scratchTouched = new Int32Array(0);
function scratchFor(size: number): void {
  if (scratchScore.length >= size) return;
  const capacity = Math.max(size, scratchScore.length * 2, 1024);
  scratchScore = new Float64Array(capacity);
  scratchState = new Uint8Array(capacity);
  scratchTouched = new Int32Array(capacity);
}

/**
 * One wallet's inverted index over its cached rows, addressed by the cache's slots (see UserVectors
 * in wallet-cache.ts, which owns the slots, the filter columns and the consistency logic and calls
 * put/delete/move here). Documents are tokenized with `indexTerms()` (NFKD, marks stripped, lower-cased,
 * runs of unicode letters and digits, Porter2-stemmed), the same tokens the FTS5 table is given.
 *
 * Layout, for memory: each term (id via a Map) has one Int32Array of postings, each
 * `docId << 8 | tf` (4 bytes per distinct term of a row). Doc ids are stable while slots move (the
 * cache fills holes with its last row), so a delete only unmaps the doc id (`slotOfDoc[id] = -1`);
 * its postings stay until dead postings outnumber live ones, then one pass over all lists drops
 * them and renumbers doc ids to slots. Document frequencies are counted from the live postings at
 * query time, during the pass that scores them anyway.
 *
 * Scoring is FTS5's bm25() with k1 = 1.2, b = 0.75, idf = log((N - n + 0.5) / (n + 0.5)) replaced
 * by 1e-6 when ≤ 0, over the WALLET's cached (non-deleted, expired included, like the FTS table)
 * rows: N is the wallet's row count, n the wallet's rows containing the term, avgdl the wallet's mean
 * token count. FTS5 computes N, n and avgdl over the whole table, i.e. every wallet; per-wallet
 * statistics are arguably more correct in a multi-tenant store (another tenant's vocabulary should
 * not change how rare a word is in yours), so scores differ slightly from the FTS5 fallback.
 */
export class WalletKeywords {
  private readonly termIds = new Map<string, number>();
  private lists: Int32Array[] = [];
  private lengths: number[] = [];
  /** `term * MAX_DOC_ID + docId` → exact tf, for tf ≥ TF_MAX */
  private overflow = new Map<number, number>();
  /** per slot */
  private docOfSlot: Int32Array;
  private docLength: Int32Array;
  private distinct: Int32Array;
  /** per doc id: its slot, or -1 once deleted */
  private slotOfDoc: Int32Array;
  private nextDoc = 0;
  private totalTokens = 0;
  private livePostings = 0;
  private deadPostings = 0;

  constructor(capacity: number) {
    this.docOfSlot = new Int32Array(capacity);
    this.docLength = new Int32Array(capacity);
    this.distinct = new Int32Array(capacity);
    this.slotOfDoc = new Int32Array(Math.max(16, capacity));
  }

  /** Slot arrays grow with the cache's capacity. */
  reserve(capacity: number): void {
    if (capacity <= this.docOfSlot.length) return;
    const widen = (old: Int32Array) => {
      const next = new Int32Array(capacity);
      next.set(old);
      return next;
    };
    this.docOfSlot = widen(this.docOfSlot);
    this.docLength = widen(this.docLength);
    this.distinct = widen(this.distinct);
  }

  /** Indexes `content` at `slot`; `replacing` when the slot held a document already. `size` is the cache's row count. */
  put(slot: number, content: string, replacing: boolean, size: number): void {
    if (replacing) this.unmap(slot);
    const doc = this.nextDoc++;
    if (doc >= this.slotOfDoc.length) {
      const next = new Int32Array(Math.min(MAX_DOC_ID, this.slotOfDoc.length * 2));
      next.set(this.slotOfDoc);
      this.slotOfDoc = next;
    }
    this.slotOfDoc[doc] = slot;
    this.docOfSlot[slot] = doc;
    const tokens = indexTerms(content);
    const counts = new Map<number, number>();
    for (const token of tokens) {
      let id = this.termIds.get(token);
      if (id === undefined) {
        id = this.lists.length;
        this.termIds.set(token, id);
        this.lists.push(new Int32Array(2));
        this.lengths.push(0);
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [term, tf] of counts) {
      let list = this.lists[term]!;
      const length = this.lengths[term]!;
      if (length === list.length) {
        const next = new Int32Array(list.length * 2);
        next.set(list);
        this.lists[term] = list = next;
      }
      list[length] = (doc << TF_BITS) | Math.min(tf, TF_MAX);
      this.lengths[term] = length + 1;
      if (tf >= TF_MAX) this.overflow.set(term * MAX_DOC_ID + doc, tf);
    }
    this.docLength[slot] = tokens.length;
    this.distinct[slot] = counts.size;
    this.totalTokens += tokens.length;
    this.livePostings += counts.size;
    if (this.nextDoc >= MAX_DOC_ID || this.wasteful()) this.compact(size);
  }

  private wasteful(): boolean {
    return this.deadPostings > 4096 && this.deadPostings > this.livePostings;
  }

  /** Forgets the document at `slot`; the cache then moves its last row (`last`) into the hole, if different. */
  delete(slot: number, last: number): void {
    this.unmap(slot);
    if (slot !== last) {
      const moved = this.docOfSlot[last]!;
      this.docOfSlot[slot] = moved;
      this.slotOfDoc[moved] = slot;
      this.docLength[slot] = this.docLength[last]!;
      this.distinct[slot] = this.distinct[last]!;
    }
    if (this.wasteful()) this.compact(last);
  }

  private unmap(slot: number): void {
    this.slotOfDoc[this.docOfSlot[slot]!] = -1;
    this.totalTokens -= this.docLength[slot]!;
    this.livePostings -= this.distinct[slot]!;
    this.deadPostings += this.distinct[slot]!;
  }

  /** Drops dead postings and renumbers doc ids to the slots (`size` rows live). */
  private compact(size: number): void {
    keywordIndexCounters.compactions++;
    const overflow = new Map<number, number>();
    for (let term = 0; term < this.lists.length; term++) {
      const list = this.lists[term]!;
      const length = this.lengths[term]!;
      let kept = 0;
      for (let i = 0; i < length; i++) {
        const entry = list[i]!;
        const slot = this.slotOfDoc[entry >> TF_BITS]!;
        if (slot < 0) continue;
        const tf = entry & TF_MAX;
        if (tf === TF_MAX) overflow.set(term * MAX_DOC_ID + slot, this.overflow.get(term * MAX_DOC_ID + (entry >> TF_BITS))!);
        list[kept++] = (slot << TF_BITS) | tf;
      }
      this.lengths[term] = kept;
      if (kept * 4 < list.length && list.length > 8) this.lists[term] = list.slice(0, Math.max(2, kept * 2));
    }
    this.overflow = overflow;
    this.slotOfDoc = new Int32Array(Math.max(16, size * 2));
    for (let slot = 0; slot < size; slot++) {
      this.slotOfDoc[slot] = slot;
      this.docOfSlot[slot] = slot;
    }
    this.nextDoc = size;
    this.deadPostings = 0;
  }

  /** Drops the postings lists' spare room (a completed load: lists grew by doubling, a third empty on average). */
  trim(): void {
    for (let term = 0; term < this.lists.length; term++) {
      const length = this.lengths[term]!;
      if (this.lists[term]!.length > length) this.lists[term] = this.lists[term]!.slice(0, Math.max(2, length));
    }
  }

  /** Approximate heap bytes held (postings, slot arrays, term dictionary), for diagnostics. */
  bytes(): number {
    let bytes = this.docOfSlot.byteLength * 3 + this.slotOfDoc.byteLength;
    for (const list of this.lists) bytes += list.byteLength + 64;
    for (const term of this.termIds.keys()) bytes += 2 * term.length + 48;
    return bytes;
  }

  /**
   * Scores every row of the first `size` slots containing a token, applying `accept` once per
   * candidate row, and offers each accepted match to `top` (null: count only). Returns how many
   * rows were accepted.
   */
  private score(tokens: string[], size: number, accept: SlotFilter, top: TopK | null): number {
    if (size === 0) return 0;
    scratchFor(size);
    const acc = scratchScore;
    const state = scratchState;
    const touched = scratchTouched;
    let touchedCount = 0;
    let accepted = 0;
    const avgdl = this.totalTokens / size;
    const slotOfDoc = this.slotOfDoc;
    const docLength = this.docLength;
    for (const token of tokens) {
      const term = this.termIds.get(token);
      if (term === undefined) continue;
      const list = this.lists[term]!;
      const length = this.lengths[term]!;
      // the document frequency counts live postings only; with none dead (no delete or update since
      // the last compaction) it is the list's length, and the extra pass over a long list is saved
      let n = length;
      if (this.deadPostings > 0) {
        n = 0;
        for (let i = 0; i < length; i++) if (slotOfDoc[list[i]! >> TF_BITS]! >= 0) n++;
      }
      if (n === 0) continue;
      let idf = Math.log((size - n + 0.5) / (n + 0.5));
      if (idf <= 0) idf = MIN_IDF;
      for (let i = 0; i < length; i++) {
        const entry = list[i]!;
        const slot = slotOfDoc[entry >> TF_BITS]!;
        if (slot < 0) continue;
        let s = state[slot]!;
        if (s === 0) {
          s = accept === true || accept(slot) ? 1 : 2;
          state[slot] = s;
          touched[touchedCount++] = slot;
          if (s === 1) {
            accepted++;
            acc[slot] = 0;
          }
        }
        if (s !== 1 || top === null) continue;
        let tf = entry & TF_MAX;
        if (tf === TF_MAX) tf = this.overflow.get(term * MAX_DOC_ID + (entry >> TF_BITS))!;
        acc[slot] = acc[slot]! + idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * docLength[slot]!) / avgdl)));
      }
    }
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i]!;
      // most matches of a long list rank below the k-th: compared here, without a call
      if (top !== null && state[slot] === 1 && acc[slot]! >= top.floor) top.offer(slot, acc[slot]!);
      state[slot] = 0;
    }
    return accepted;
  }

  /** The `limit` best accepted matches, best first, ties by lower rowid, and how many rows matched. */
  search(tokens: string[], size: number, rowids: Float64Array, accept: SlotFilter, limit: number): { hits: KeywordHit[]; matched: number } {
    if (limit <= 0) return { hits: [], matched: this.count(tokens, size, accept) };
    const top = new TopK(limit, rowids);
    const matched = this.score(tokens, size, accept, top);
    return { hits: top.sorted(), matched };
  }

  /** How many accepted rows contain at least one token. */
  count(tokens: string[], size: number, accept: SlotFilter): number {
    return this.score(tokens, size, accept, null);
  }
}

/** A bounded min-heap of (slot, score) keeping the best k: higher score, then lower rowid. */
class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;
  /** no score below this can enter: the k-th best once k are held (ties go on to the rowid) */
  floor = -Infinity;

  constructor(
    private readonly k: number,
    private readonly rowids: Float64Array,
  ) {
    this.slots = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  /** a ranks below b */
  private worse(sa: number, slotA: number, sb: number, slotB: number): boolean {
    return sa < sb || (sa === sb && this.rowids[slotA]! > this.rowids[slotB]!);
  }

  offer(slot: number, score: number): void {
    const { slots, scores } = this;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, slot, scores[parent]!, slots[parent]!)) break;
        slots[i] = slots[parent]!;
        scores[i] = scores[parent]!;
        i = parent;
      }
      slots[i] = slot;
      scores[i] = score;
      if (this.size === this.k) this.floor = scores[0]!;
      return;
    }
    if (score < scores[0]! || !this.worse(scores[0]!, slots[0]!, score, slot)) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && this.worse(scores[right]!, slots[right]!, scores[left]!, slots[left]!) ? right : left;
      if (!this.worse(scores[child]!, slots[child]!, score, slot)) break;
      slots[i] = slots[child]!;
      scores[i] = scores[child]!;
      i = child;
    }
    slots[i] = slot;
    scores[i] = score;
    this.floor = scores[0]!;
  }

  sorted(): KeywordHit[] {
    const out: KeywordHit[] = [];
    for (let i = 0; i < this.size; i++) out.push({ rowid: this.rowids[this.slots[i]!]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  }
}
