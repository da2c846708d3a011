import type { SlotFilter } from "./keyword-index";

/** A row as a vector search returns it: cosine distance (1 − cosine similarity), ties broken by rowid. */
export interface Ranked {
  rowid: number;
  distance: number;
}

export const byDistance = (a: Ranked, b: Ranked) => a.distance - b.distance || a.rowid - b.rowid;

/** The rows a search ranks, by slot: their exact cosine with the query, and their rowid. */
export interface RankedRows {
  cosine(slot: number): number;
  rowid(slot: number): number;
}

/** Slots [from, to) of a wallet's rows: a whole wallet is { from: 0, to: size }. */
export interface SlotRange {
  from: number;
  to: number;
}

/**
 * The k best accepted rows of the range by exact cosine, nearest first (ties by rowid), from
 * first-pass scores approx[slot] / unitScale that are within ± bound of each row's exact cosine
 * (wallet-cache.ts). The top k of two ranges, merged, is the top k of both: a search may be split.
 * Pass 1 rescores the `want` best by first-pass score; their k-th exact cosine certifies them unless
 * a row outside them could still beat it (its first-pass score within the bound), and then pass 2
 * rescores every such row. Shared by the main thread and the scan thread (scan-worker.ts).
 */
export function exactTopK(
  approx: Float32Array,
  range: SlotRange,
  k: number,
  want: number,
  accept: SlotFilter,
  unitScale: number,
  bound: number,
  rows: RankedRows,
): { found: Ranked[]; secondPass: boolean } {
  const { slots: candidates, threshold } = topSlots(approx, range, want, accept);
  const found = nearestOf(rows, candidates, k);
  if (candidates.length < want || want === range.to - range.from) return { found, secondPass: false };
  // Certificate: a row outside the candidates scores at most threshold + bound exactly.
  const kth = 1 - found[k - 1]!.distance;
  if (threshold / unitScale + bound < kth) return { found, secondPass: false };
  // Pass 2: every accepted row that could still beat the k-th.
  const floor = (kth - bound) * unitScale;
  const slots: number[] = [];
  for (let slot = range.from; slot < range.to; slot++) if (approx[slot]! >= floor && (accept === true || accept(slot))) slots.push(slot);
  return { found: nearestOf(rows, slots, k), secondPass: true };
}

// Scratch of nearestOf and topSlots (searches are synchronous; a thread has its own module):
// grown to the largest size asked for.
let farthest = { distance: new Float64Array(0), rowid: new Float64Array(0) };
let firstPass = { slots: new Int32Array(0), scores: new Float64Array(0) };

/**
 * `rescore(rows, slots).slice(0, k)` without a Ranked per slot: the k nearest are kept in a
 * max-heap by (distance, rowid), and only they become objects.
 */
export function nearestOf(rows: RankedRows, slots: ArrayLike<number>, k: number): Ranked[] {
  if (farthest.distance.length < k) farthest = { distance: new Float64Array(k), rowid: new Float64Array(k) };
  const { distance: heapDistance, rowid: heapRowid } = farthest;
  let size = 0;
  for (let n = 0; n < slots.length; n++) {
    const slot = slots[n]!;
    const distance = 1 - rows.cosine(slot);
    const rowid = rows.rowid(slot);
    if (size < k) {
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!after(distance, rowid, heapDistance[parent]!, heapRowid[parent]!)) break;
        heapDistance[i] = heapDistance[parent]!;
        heapRowid[i] = heapRowid[parent]!;
        i = parent;
      }
      heapDistance[i] = distance;
      heapRowid[i] = rowid;
    } else if (after(heapDistance[0]!, heapRowid[0]!, distance, rowid)) replaceFarthest(heapDistance, heapRowid, size, distance, rowid);
  }
  // taken off farthest first
  const out: Ranked[] = new Array(size);
  while (size > 0) {
    out[--size] = { rowid: heapRowid[0]!, distance: heapDistance[0]! };
    if (size > 0) replaceFarthest(heapDistance, heapRowid, size, heapDistance[size]!, heapRowid[size]!);
  }
  return out;
}

/** a is farther than b: after it in byDistance's order */
const after = (da: number, ra: number, db: number, rb: number) => da > db || (da === db && ra > rb);

/** Replaces the root of nearestOf's max-heap (its first `size` entries) with (distance, rowid). */
function replaceFarthest(heapDistance: Float64Array, heapRowid: Float64Array, size: number, distance: number, rowid: number): void {
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && after(heapDistance[right]!, heapRowid[right]!, heapDistance[left]!, heapRowid[left]!) ? right : left;
    if (!after(heapDistance[child]!, heapRowid[child]!, distance, rowid)) break;
    heapDistance[i] = heapDistance[child]!;
    heapRowid[i] = heapRowid[child]!;
    i = child;
  }
  heapDistance[i] = distance;
  heapRowid[i] = rowid;
}

/** The rows at these slots with their exact distances, nearest first. */
export function rescore(rows: RankedRows, slots: ArrayLike<number>): Ranked[] {
  const out: Ranked[] = new Array(slots.length);
  for (let i = 0; i < slots.length; i++) out[i] = { rowid: rows.rowid(slots[i]!), distance: 1 - rows.cosine(slots[i]!) };
  return out.sort(byDistance);
}

/**
 * exactTopK's first pass: the `want` accepted slots with the best first-pass scores (a min-heap, in
 * heap order), and the lowest score among them once there are `want` (-Infinity before: every
 * accepted slot got in).
 */
function topSlots(scores: Float32Array, { from, to }: SlotRange, want: number, accept: SlotFilter): { slots: Int32Array; threshold: number } {
  if (firstPass.slots.length < want) firstPass = { slots: new Int32Array(want), scores: new Float64Array(want) };
  const { slots: heap, scores: heapScore } = firstPass;
  let size = 0;
  let threshold = -Infinity;
  for (let slot = from; slot < to; slot++) {
    const s = scores[slot]!;
    if (s <= threshold || (accept !== true && !accept(slot))) continue;
    if (size < want) {
      siftUp(heap, heapScore, size++, slot, s);
      if (size === want) threshold = heapScore[0]!;
    } else {
      siftDown(heap, heapScore, size, slot, s);
      threshold = heapScore[0]!;
    }
  }
  return { slots: heap.subarray(0, size), threshold };
}

export function siftUp(heap: Int32Array, score: Float64Array, at: number, slot: number, s: number): void {
  let i = at;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (score[parent]! <= s) break;
    heap[i] = heap[parent]!;
    score[i] = score[parent]!;
    i = parent;
  }
  heap[i] = slot;
  score[i] = s;
}

/** Replaces the minimum with (slot, s). */
export function siftDown(heap: Int32Array, score: Float64Array, size: number, slot: number, s: number): void {
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && score[right]! < score[left]! ? right : left;
    if (score[child]! >= s) break;
    heap[i] = heap[child]!;
    score[i] = score[child]!;
    i = child;
  }
  heap[i] = slot;
  score[i] = s;
}
