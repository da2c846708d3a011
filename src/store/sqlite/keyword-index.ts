import type { MemoryRef } from "../../domain/store-port";
import { hasDigit, indexTerms, ownCopy, words } from "../../domain/text";

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
  /** which of the search's tokens the row holds (bit j: tokens[j]), of its first HELD_TOKENS */
  held?: number;
}

/** Tokens whose presence a hit reports (KeywordHit.held): the bits of an int32. */
export const HELD_TOKENS = 32;

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

const PLAIN_WORD = /^[a-z0-9]+$/;

/**
 * The query terms as the index's tokens, or null when a term is not exactly one word (FTS5 would
 * treat it as a phrase, which needs positions this index does not keep: the caller falls back to
 * FTS5). Duplicate terms are kept: FTS5 scores each phrase of an OR query separately.
 */
export function queryTokens(terms: string[]): string[] | null {
  const out: string[] = [];
  for (const term of terms) {
    // a term of lower-case ASCII letters and digits (queryTerms' usual output) is its own word
    if (PLAIN_WORD.test(term)) {
      out.push(term);
      continue;
    }
    const w = words(term);
    if (w.length !== 1) return null;
    out.push(w[0]!);
  }
  return out;
}

// Scratch shared by every wallet (searches are synchronous): per-slot accumulated score, state
// (0 untouched, 1 accepted, 2 rejected by the filter) and tokens held (KeywordHit.held), and the
// touched slots to reset.
let scratchScore = new Float64Array(0);
let scratchState = new Uint8Array(0);
let scratchHeld = new Int32Array(0);
let scratchTouched = new Int32Array(0);
function scratchFor(size: number): void {
  if (scratchScore.length >= size) return;
  const capacity = Math.max(size, scratchScore.length * 2, 1024);
  scratchScore = new Float64Array(capacity);
  scratchState = new Uint8Array(capacity);
  scratchHeld = new Int32Array(capacity);
  scratchTouched = new Int32Array(capacity);
}

/** Room a full posting run moves to: 1, 2, then doubling. */
const grownRoom = (room: number) => (room < 2 ? room + 1 : room * 2);
/** The pool grows by this factor when full (after reclaiming moved runs, when they are many). */
const POOL_GROWTH = 1.5;
/** Per slot, side by side: doc id, distinct tokens, token count (LENGTH: read by every scoring pass). */
const PER_SLOT = 3;
const LENGTH = 2;
/** Room a pack leaves each run for more postings, as a share of its postings (see reservePool). */
const PACKED_ROOM = 0.25;

/** FNV-1a over the UTF-16 code units: where a token's id sits in a wallet's term table. */
function hashOf(token: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * One wallet's inverted index over its cached rows, addressed by the cache's slots (see UserVectors
 * in wallet-cache.ts, which owns the slots, the filter columns and the consistency logic and calls
 * put/delete/move here). Documents are tokenized with `indexTerms()` (NFKD, marks stripped, lower-cased,
 * runs of unicode letters and digits, Porter2-stemmed), the same tokens the FTS5 table is given.
 *
 * Layout, for memory: a handful of typed arrays per wallet whatever its vocabulary, because a
 * service holds many small wallets. A Map from token to term id cost ~120 bytes per entry and a
 * list per term ~160 bytes however short: ~30 KB for a 20-memory wallet's ~110 terms. Instead the
 * term ids sit in an open-addressing table (Int32Array, by hashOf, compared with `terms`), and
 * every term's postings in one run of a shared pool, each `docId << 8 | tf` (4 bytes per distinct
 * term of a row). A full run grows in place when it ends the pool, else moves to the end with
 * twice the room; the runs moved out of are reclaimed when the pool is full and they are most of
 * it (pack), and after a load (trim). Doc ids are stable while slots move (the cache fills holes
 * with its last row), so a delete only unmaps the doc id (`slotOfDoc[id] = -1`); its postings stay
 * until dead postings outnumber live ones, then one pass drops them, renumbers doc ids to slots and
 * forgets the terms left without postings. Document frequencies are counted from the live postings
 * at query time, during the pass that scores them anyway.
 *
 * Scoring is FTS5's bm25() with k1 = 1.2, b = 0.75, idf = log((N - n + 0.5) / (n + 0.5)) replaced
 * by 1e-6 when ≤ 0, over the WALLET's cached (non-deleted, expired included, like the FTS table)
 * rows: N is the wallet's row count, n the wallet's rows containing the term, avgdl the wallet's mean
 * token count. FTS5 computes N, n and avgdl over the whole table, i.e. every wallet; per-wallet
 * statistics are arguably more correct in a multi-tenant store (another tenant's vocabulary should
 * not change how rare a word is in yours), so scores differ slightly from the FTS5 fallback.
 */
export class WalletKeywords {
  /** term id → token */
  private terms: string[] = [];
  /** the characters of the tokens this index holds its own strings for (words with a digit), for bytes() */
  private ownChars = 0;
  private ownTerms = 0;
  /**
   * term id + 1 (0: empty) at hashOf(token), linear probing; a power of two, at most half full. 16-bit
   * entries while the ids fit (a wallet of 20 memories has ~120 terms: 512 bytes instead of 1 KB).
   */
  private table: Uint16Array | Int32Array = new Uint16Array(16);
  /** per term: where its run starts in `pool`, its postings, the room reserved (3 ints) */
  private spans = new Int32Array(3 * 8);
  private pool = new Int32Array(16);
  private poolEnd = 0;
  /** pool entries in runs a term moved out of */
  private moved = 0;
  /** `term * MAX_DOC_ID + docId` → exact tf, for tf ≥ TF_MAX */
  private overflow: Map<number, number> | null = null;
  /** per slot: doc id, distinct tokens, token count (PER_SLOT ints) */
  private perSlot: Int32Array;
  /** per doc id: its slot, or -1 once deleted */
  private slotOfDoc: Int32Array;
  private nextDoc = 0;
  private totalTokens = 0;
  private livePostings = 0;
  private deadPostings = 0;

  constructor(capacity: number) {
    this.perSlot = new Int32Array(PER_SLOT * capacity);
    this.slotOfDoc = new Int32Array(Math.max(4, capacity));
  }

  /** Slot arrays grow with the cache's capacity. */
  reserve(capacity: number): void {
    if (PER_SLOT * capacity <= this.perSlot.length) return;
    const perSlot = new Int32Array(PER_SLOT * capacity);
    perSlot.set(this.perSlot);
    this.perSlot = perSlot;
  }

  /** The term's id, or -1 when no row of the wallet has it. */
  private termOf(token: string): number {
    const mask = this.table.length - 1;
    for (let i = hashOf(token) & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i]!;
      if (entry === 0) return -1;
      if (this.terms[entry - 1] === token) return entry - 1;
    }
  }

  /** A new term, with an empty run. */
  private addTerm(token: string): number {
    const id = this.terms.length;
    // a stem is shared with the stem memo; a word with a digit is a view of its row's whole text
    if (hasDigit(token)) {
      this.terms.push(ownCopy(token));
      this.ownTerms++;
      this.ownChars += token.length;
    } else this.terms.push(token);
    if (2 * this.terms.length > this.table.length) this.rehash(this.table.length * 2);
    else this.place(id);
    if (3 * this.terms.length > this.spans.length) {
      const next = new Int32Array(Math.max(3 * this.terms.length, Math.ceil(this.spans.length * POOL_GROWTH)));
      next.set(this.spans);
      this.spans = next;
    }
    this.spans.fill(0, 3 * id, 3 * id + 3);
    this.spans[3 * id] = this.poolEnd;
    return id;
  }

  private place(id: number): void {
    const mask = this.table.length - 1;
    let i = hashOf(this.terms[id]!) & mask;
    while (this.table[i] !== 0) i = (i + 1) & mask;
    this.table[i] = id + 1;
  }

  private rehash(size: number): void {
    // a table holds at most size / 2 terms, so ids + 1 fit 16 bits up to 2^16 entries
    this.table = size <= 0x10000 ? new Uint16Array(size) : new Int32Array(size);
    for (let id = 0; id < this.terms.length; id++) this.place(id);
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
    const tokens = indexTerms(content);
    const counts = new Map<number, number>();
    for (const token of tokens) {
      let id = this.termOf(token);
      if (id === -1) id = this.addTerm(token);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const [term, tf] of counts) {
      this.append(term, (doc << TF_BITS) | Math.min(tf, TF_MAX));
      if (tf >= TF_MAX) (this.overflow ??= new Map()).set(term * MAX_DOC_ID + doc, tf);
    }
    this.perSlot[PER_SLOT * slot] = doc;
    this.perSlot[PER_SLOT * slot + 1] = counts.size;
    this.perSlot[PER_SLOT * slot + LENGTH] = tokens.length;
    this.totalTokens += tokens.length;
    this.livePostings += counts.size;
    if (this.nextDoc >= MAX_DOC_ID || this.wasteful()) this.compact(size);
  }

  private append(term: number, posting: number): void {
    const at = 3 * term;
    if (this.spans[at + 1] === this.spans[at + 2]) this.widen(term);
    const length = this.spans[at + 1]!;
    this.pool[this.spans[at]! + length] = posting;
    this.spans[at + 1] = length + 1;
  }

  /** Gives the term's full run more room: in place when it ends the pool, else moved to the end. */
  private widen(term: number): void {
    const at = 3 * term;
    const grown = grownRoom(this.spans[at + 2]!);
    this.reservePool(grown); // may pack the pool: read the run after
    const start = this.spans[at]!;
    const room = this.spans[at + 2]!;
    if (start + room === this.poolEnd) {
      this.poolEnd = start + grown;
    } else {
      this.pool.copyWithin(this.poolEnd, start, start + this.spans[at + 1]!);
      this.moved += room;
      this.spans[at] = this.poolEnd;
      this.poolEnd += grown;
    }
    this.spans[at + 2] = grown;
  }

  /**
   * Room for `n` more entries at the pool's end. A full pool is copied either way: packed when the
   * runs moved out of are a quarter of it or more (so they never hold much), else into a larger one.
   * A pack leaves each run PACKED_ROOM of spare room: with none, the next posting of every run
   * would move it, and the next pack would come after a few documents (each a copy of the pool:
   * loading 100k rows took 50 s instead of 4).
   */
  private reservePool(n: number): void {
    if (this.poolEnd + n <= this.pool.length) return;
    if (4 * this.moved >= this.poolEnd) {
      this.pack(PACKED_ROOM, POOL_GROWTH - 1, n);
      return;
    }
    const next = new Int32Array(Math.max(this.poolEnd + n, Math.ceil(this.pool.length * POOL_GROWTH)));
    next.set(this.pool.subarray(0, this.poolEnd));
    this.pool = next;
  }

  /**
   * Copies every term's postings into a new pool, runs back to back, each with `roomShare` of its
   * postings as room to grow, then free room at the end: `spareShare` of the postings, at least
   * `atLeast` entries.
   */
  private pack(roomShare: number, spareShare: number, atLeast: number): void {
    const room = (length: number) => length + Math.floor(length * roomShare);
    let rooms = 0;
    for (let term = 0; term < this.terms.length; term++) rooms += room(this.spans[3 * term + 1]!);
    const pool = new Int32Array(Math.max(4, rooms + Math.max(atLeast, Math.ceil(rooms * spareShare))));
    let end = 0;
    for (let term = 0; term < this.terms.length; term++) {
      const at = 3 * term;
      const start = this.spans[at]!;
      const length = this.spans[at + 1]!;
      pool.set(this.pool.subarray(start, start + length), end);
      this.spans[at] = end;
      this.spans[at + 2] = room(length);
      end += room(length);
    }
    this.pool = pool;
    this.poolEnd = end;
    this.moved = 0;
  }

  private wasteful(): boolean {
    return this.deadPostings > 4096 && this.deadPostings > this.livePostings;
  }

  /** Forgets the document at `slot`; the cache then moves its last row (`last`) into the hole, if different. */
  delete(slot: number, last: number): void {
    this.unmap(slot);
    if (slot !== last) {
      this.perSlot.copyWithin(PER_SLOT * slot, PER_SLOT * last, PER_SLOT * last + PER_SLOT);
      this.slotOfDoc[this.perSlot[PER_SLOT * slot]!] = slot;
    }
    if (this.wasteful()) this.compact(last);
  }

  private unmap(slot: number): void {
    const distinct = this.perSlot[PER_SLOT * slot + 1]!;
    this.slotOfDoc[this.perSlot[PER_SLOT * slot]!] = -1;
    this.totalTokens -= this.perSlot[PER_SLOT * slot + LENGTH]!;
    this.livePostings -= distinct;
    this.deadPostings += distinct;
  }

  /** Drops dead postings and the terms left without any, and renumbers doc ids to the slots (`size` rows live). */
  private compact(size: number): void {
    keywordIndexCounters.compactions++;
    const pool = new Int32Array(Math.max(4, this.livePostings));
    const spans = new Int32Array(Math.max(3 * 8, this.spans.length));
    const terms: string[] = [];
    const overflow = this.overflow && new Map<number, number>();
    let end = 0;
    for (let term = 0; term < this.terms.length; term++) {
      const from = end;
      const start = this.spans[3 * term]!;
      const id = terms.length;
      for (let i = start; i < start + this.spans[3 * term + 1]!; i++) {
        const entry = this.pool[i]!;
        const slot = this.slotOfDoc[entry >> TF_BITS]!;
        if (slot < 0) continue;
        const tf = entry & TF_MAX;
        if (tf === TF_MAX) overflow!.set(id * MAX_DOC_ID + slot, this.overflow!.get(term * MAX_DOC_ID + (entry >> TF_BITS))!);
        pool[end++] = (slot << TF_BITS) | tf;
      }
      if (end === from) continue; // no row has the term any more
      terms.push(this.terms[term]!);
      spans.set([from, end - from, end - from], 3 * id);
    }
    this.pool = pool;
    this.poolEnd = end;
    this.moved = 0;
    this.spans = spans;
    this.terms = terms;
    const own = terms.filter(hasDigit);
    this.ownTerms = own.length;
    this.ownChars = own.reduce((sum, term) => sum + term.length, 0);
    this.rehash(Math.max(16, 2 ** Math.ceil(Math.log2(2 * terms.length + 1))));
    this.overflow = overflow;
    this.slotOfDoc = new Int32Array(Math.max(4, size * 2));
    for (let slot = 0; slot < size; slot++) {
      this.slotOfDoc[slot] = slot;
      this.perSlot[PER_SLOT * slot] = slot;
    }
    this.nextDoc = size;
    this.deadPostings = 0;
  }

  /**
   * Drops the spare room (a completed load, or a batch that wrote most of the wallet: runs grew by
   * doubling, a third empty on average), and the term table's.
   */
  trim(): void {
    this.pack(0, 0, 0);
    if (this.spans.length > 3 * this.terms.length) this.spans = this.spans.slice(0, Math.max(3 * 8, 3 * this.terms.length));
    this.terms = this.terms.slice();
  }

  /**
   * Bytes held: the typed arrays as allocated, the term list (8 bytes a term: its strings are the stem
   * memo's, but for the words with a digit, ~24 bytes plus one per Latin-1 character), ~64 per
   * overflow entry.
   */
  bytes(): number {
    const arrays = this.table.byteLength + this.spans.byteLength + this.pool.byteLength + this.perSlot.byteLength + this.slotOfDoc.byteLength;
    return arrays + 8 * this.terms.length + 24 * this.ownTerms + this.ownChars + 64 * (this.overflow?.size ?? 0);
  }

  /**
   * Scores every row of the first `size` slots containing a token, applying `accept` once per
   * candidate row, and offers each accepted match to `top` (null: count only) with the tokens it
   * holds (a bit per token: the postings visited for it say so at no extra read). Returns how many
   * rows were accepted.
   */
  private score(tokens: string[], size: number, accept: SlotFilter, top: TopK | null): number {
    if (size === 0) return 0;
    scratchFor(size);
    const acc = scratchScore;
    const state = scratchState;
    const held = scratchHeld;
    const touched = scratchTouched;
    let touchedCount = 0;
    let accepted = 0;
    // bm25's length normalisation k1 · (1 − b + b · dl / avgdl) as lengthFloor + perToken · dl: one
    // division per posting instead of two (~10% of the loop at 100k)
    const lengthFloor = K1 * (1 - B);
    const perToken = (K1 * B) / (this.totalTokens / size);
    const slotOfDoc = this.slotOfDoc;
    const perSlot = this.perSlot;
    const pool = this.pool;
    for (let j = 0; j < tokens.length; j++) {
      const term = this.termOf(tokens[j]!);
      if (term === -1) continue;
      const bit = j < HELD_TOKENS ? 1 << j : 0;
      const start = this.spans[3 * term]!;
      const end = start + this.spans[3 * term + 1]!;
      const n = this.liveCount(term);
      if (n === 0) continue;
      let idf = Math.log((size - n + 0.5) / (n + 0.5));
      if (idf <= 0) idf = MIN_IDF;
      const weight = idf * (K1 + 1);
      for (let i = start; i < end; i++) {
        const entry = pool[i]!;
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
            held[slot] = 0;
          }
        }
        if (s !== 1 || top === null) continue;
        held[slot] = held[slot]! | bit;
        let tf = entry & TF_MAX;
        if (tf === TF_MAX) tf = this.overflow!.get(term * MAX_DOC_ID + (entry >> TF_BITS))!;
        acc[slot] = acc[slot]! + (weight * tf) / (tf + lengthFloor + perToken * perSlot[PER_SLOT * slot + LENGTH]!);
      }
    }
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i]!;
      // most matches of a long list rank below the k-th: compared here, without a call
      if (top !== null && state[slot] === 1 && acc[slot]! >= top.floor) top.offer(slot, acc[slot]!, held[slot]!);
      state[slot] = 0;
    }
    return accepted;
  }

  /**
   * The document frequency: live postings only. With none dead (no delete or update since the last
   * compaction) it is the list's length, and the extra pass over a long list is saved.
   */
  private liveCount(term: number): number {
    const start = this.spans[3 * term]!;
    const end = start + this.spans[3 * term + 1]!;
    if (this.deadPostings === 0) return end - start;
    let n = 0;
    for (let i = start; i < end; i++) if (this.slotOfDoc[this.pool[i]! >> TF_BITS]! >= 0) n++;
    return n;
  }

  /** How many rows contain `token` (as bm25 counts them). */
  frequency(token: string): number {
    const term = this.termOf(token);
    return term === -1 ? 0 : this.liveCount(term);
  }

  /** The `limit` best accepted matches, best first, ties by lower rowid, and how many rows matched. */
  search(tokens: string[], size: number, rowids: Float64Array, accept: SlotFilter, limit: number): { hits: KeywordHit[]; matched: number } {
    if (limit <= 0) return { hits: [], matched: this.count(tokens, size, accept) };
    const top = topK.start(Math.min(limit, size), rowids); // no more than `size` rows can match
    const matched = this.score(tokens, size, accept, top);
    return { hits: top.sorted(), matched };
  }

  /** How many accepted rows contain at least one token. */
  count(tokens: string[], size: number, accept: SlotFilter): number {
    return this.score(tokens, size, accept, null);
  }
}

/**
 * A bounded min-heap of (slot, score, held) keeping the best k: higher score, then lower rowid. One
 * instance (searches are synchronous), its arrays grown to the largest k asked for.
 */
class TopK {
  private slots = new Int32Array(0);
  private scores = new Float64Array(0);
  private held = new Int32Array(0);
  private rowids: Float64Array = NO_ROWIDS;
  private k = 0;
  private size = 0;
  /** no score below this can enter: the k-th best once k are held (ties go on to the rowid) */
  floor = -Infinity;

  /** Empties the heap for a search of the best k among rows with these rowids (by slot). */
  start(k: number, rowids: Float64Array): this {
    if (this.slots.length < k) {
      this.slots = new Int32Array(k);
      this.scores = new Float64Array(k);
      this.held = new Int32Array(k);
    }
    this.k = k;
    this.rowids = rowids;
    this.size = 0;
    this.floor = -Infinity;
    return this;
  }

  /** a ranks below b */
  private worse(sa: number, slotA: number, sb: number, slotB: number): boolean {
    return sa < sb || (sa === sb && this.rowids[slotA]! > this.rowids[slotB]!);
  }

  offer(slot: number, score: number, held: number): void {
    const { slots, scores } = this;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, slot, scores[parent]!, slots[parent]!)) break;
        slots[i] = slots[parent]!;
        scores[i] = scores[parent]!;
        this.held[i] = this.held[parent]!;
        i = parent;
      }
      slots[i] = slot;
      scores[i] = score;
      this.held[i] = held;
      if (this.size === this.k) this.floor = scores[0]!;
      return;
    }
    if (score < scores[0]! || !this.worse(scores[0]!, slots[0]!, score, slot)) return;
    this.replaceRoot(slot, score, held);
    this.floor = scores[0]!;
  }

  /** Puts the entry in the root's place and sifts it down to where it belongs. */
  private replaceRoot(slot: number, score: number, held: number): void {
    const { slots, scores } = this;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child = right < this.size && this.worse(scores[right]!, slots[right]!, scores[left]!, slots[left]!) ? right : left;
      if (!this.worse(scores[child]!, slots[child]!, score, slot)) break;
      slots[i] = slots[child]!;
      scores[i] = scores[child]!;
      this.held[i] = this.held[child]!;
      i = child;
    }
    slots[i] = slot;
    scores[i] = score;
    this.held[i] = held;
  }

  /** The entries best first (taken off the heap worst first: no sort), the heap left empty. */
  sorted(): KeywordHit[] {
    const out: KeywordHit[] = [];
    while (this.size > 0) {
      out.push({ rowid: this.rowids[this.slots[0]!]!, score: this.scores[0]!, held: this.held[0]! });
      const last = --this.size;
      if (last > 0) this.replaceRoot(this.slots[last]!, this.scores[last]!, this.held[last]!);
    }
    this.rowids = NO_ROWIDS; // the wallet's column is not held past the search
    return out.reverse();
  }
}

const NO_ROWIDS = new Float64Array(0);
const topK = new TopK();
