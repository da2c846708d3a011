import { CellArena } from "./cell-arena";
import { Quantized } from "./quantized";
import { kernelFor } from "./vector-kernel";
import { siftDown, siftUp } from "./top-k";

/**
 * Coarse cells over a large wallet's vectors (an inverted-file index): the rows are clustered by
 * spherical k-means around about √n centroids, and a vector search scores only the rows of the
 * eighth of the cells whose centroids are nearest the query, ranking those exactly as the whole
 * scan would. Each cell's int8 rows are kept together (cell-arena.ts), so a probed cell is one
 * contiguous scan. At 100k RealMem turns that scores ~15% of the rows and finds 98–99% of the exact 40
 * nearest (scripts/bench/vector-cells.ts); the whole int8 scan of the rows, ~0.6 ms of one core
 * and 12.8 MB of memory traffic per search at that size, was a quarter of a lone recall's wait.
 *
 * Slots below `assignedTo` are each a member of exactly one cell; the others are not assigned yet
 * (the cells are being built, a chunk per event-loop turn, and searches scan every row meanwhile).
 * The wallet (wallet-cache.ts) reports each change of its slots so that this stays true.
 */
export class VectorCells {
  readonly cells: number;
  /** how many cells a search reads: the nearest eighth (tests read them all) */
  readonly probes: number;
  /** the slots below this are each in one cell */
  assignedTo = 0;
  private cellOf: Int32Array;
  /** a slot's index among its cell's members */
  private positionOf: Int32Array;
  private readonly members: Int32Array[];
  private readonly sizes: Int32Array;
  private readonly arena: CellArena;
  private probedScores = new Float32Array(0);
  private probedSlots = new Int32Array(0);

  constructor(
    /** unit centroids, `dim` values each */
    private readonly centroids: Float64Array,
    private readonly dim: number,
    /** the wallet's int8 rows, by slot: the cells' copies are made from them */
    private readonly quantized: Quantized,
    capacity: number,
    /** the wallet's size when the centroids were trained (a wallet twice that size trains again) */
    readonly trainedAt: number,
    /** rows each cell is expected to hold (its share of the training sample): its first room in the arena */
    expected: (c: number) => number = () => 0,
    probes?: number,
  ) {
    this.cells = centroids.length / dim;
    this.probes = probes ?? Math.ceil(this.cells / 8);
    this.cellOf = new Int32Array(capacity);
    this.positionOf = new Int32Array(capacity);
    this.members = Array.from({ length: this.cells }, () => new Int32Array(16));
    this.sizes = new Int32Array(this.cells);
    this.arena = new CellArena(quantized.stride, this.sizes, expected);
  }

  /** Every row is in a cell: searches may use them. */
  complete(size: number): boolean {
    return this.assignedTo >= size;
  }

  reserve(capacity: number): void {
    if (capacity <= this.cellOf.length) return;
    const cellOf = new Int32Array(capacity);
    cellOf.set(this.cellOf);
    const positionOf = new Int32Array(capacity);
    positionOf.set(this.positionOf);
    this.cellOf = cellOf;
    this.positionOf = positionOf;
  }

  bytes(): number {
    let bytes = this.centroids.byteLength + this.cellOf.byteLength + this.positionOf.byteLength + this.sizes.byteLength + this.arena.bytes();
    bytes += this.probedScores.byteLength + this.probedSlots.byteLength;
    for (const list of this.members) bytes += list.byteLength + 100;
    return bytes;
  }

  /** The cosine of cell c's centroid with the unit vector. */
  private affinity(c: number, unit: ArrayLike<number>): number {
    const at = c * this.dim;
    let dot = 0;
    for (let i = 0; i < this.dim; i++) dot += this.centroids[at + i]! * unit[i]!;
    return dot;
  }

  /** The cell whose centroid is nearest the unit vector. */
  nearestCell(unit: ArrayLike<number>): number {
    let best = -Infinity;
    let cell = 0;
    for (let c = 0; c < this.cells; c++) {
      const dot = this.affinity(c, unit);
      if (dot > best) {
        best = dot;
        cell = c;
      }
    }
    return cell;
  }

  /**
   * The slot's row is new or changed (its unit vector given): it joins its nearest cell when the
   * assigned slots reach it (a new row right after them extends them; the others wait for assignRange).
   */
  put(slot: number, unit: ArrayLike<number>, replacing: boolean): void {
    if (slot < this.assignedTo) {
      if (replacing) this.leave(slot);
      this.join(slot, this.nearestCell(unit));
    } else if (slot === this.assignedTo && !replacing) {
      this.join(slot, this.nearestCell(unit));
      this.assignedTo++;
    }
  }

  /**
   * The row at `slot` was deleted and the row at `last` moved into its place (or `slot` was the
   * last); `unit`: the moved row's unit vector, for when it was not assigned yet but its new slot is.
   */
  delete(slot: number, last: number, unit: () => ArrayLike<number>): void {
    if (slot < this.assignedTo) this.leave(slot);
    if (slot !== last) {
      if (last < this.assignedTo) {
        const cell = this.cellOf[last]!;
        const at = this.positionOf[last]!;
        this.members[cell]![at] = slot;
        this.cellOf[slot] = cell;
        this.positionOf[slot] = at;
      } else if (slot < this.assignedTo) this.join(slot, this.nearestCell(unit()));
    }
    this.assignedTo = Math.min(this.assignedTo, last);
  }

  /** Assigns slots from assignedTo up to `to` by the int8 scores of every centroid (one kernel pass per centroid). */
  assignRange(to: number): void {
    const quantized = this.quantized;
    const from = this.assignedTo;
    if (to <= from) return;
    const best = new Float64Array(to - from).fill(-Infinity);
    const cell = new Int32Array(to - from);
    for (let c = 0; c < this.cells; c++) {
      const { scores, unitScale } = quantized.scan(this.centroid(c), { from, to });
      for (let slot = from; slot < to; slot++) {
        const s = scores[slot]! / unitScale;
        if (s > best[slot - from]!) {
          best[slot - from] = s;
          cell[slot - from] = c;
        }
      }
    }
    const joining = new Int32Array(this.cells);
    for (const c of cell) joining[c]!++;
    this.arena.reserve((c) => joining[c]!);
    for (let slot = from; slot < to; slot++) this.join(slot, cell[slot - from]!);
    this.assignedTo = to;
  }

  /**
   * The first pass of a search over the `probes` cells nearest the unit query: each of their rows'
   * int8 score (as Quantized.scan's) and slot, and the scores' scale and error bound. The arrays are
   * scratch: use them before the next call.
   */
  search(query: Float64Array): { scores: Float32Array; slots: Int32Array; unitScale: number; bound: number } {
    const heap = new Int32Array(this.probes);
    const heapScore = new Float64Array(this.probes);
    let size = 0;
    let rows = 0;
    for (let c = 0; c < this.cells; c++) {
      const dot = this.affinity(c, query);
      if (size < this.probes) siftUp(heap, heapScore, size++, c, dot);
      else if (dot > heapScore[0]!) siftDown(heap, heapScore, size, c, dot);
    }
    for (let i = 0; i < size; i++) rows += this.sizes[heap[i]!]!;
    if (this.probedSlots.length < rows) {
      this.probedScores = new Float32Array(rows * 1.25);
      this.probedSlots = new Int32Array(rows * 1.25);
    }
    const { unitScale, bound } = this.quantized.queryFor(query, this.arena.query);
    let n = 0;
    for (let i = 0; i < size; i++) {
      const c = heap[i]!;
      const count = this.sizes[c]!;
      this.arena.scan(c);
      const first = this.arena.first(c);
      this.probedScores.set(this.arena.scores.subarray(first, first + count), n);
      this.probedSlots.set(this.members[c]!.subarray(0, count), n);
      n += count;
    }
    return { scores: this.probedScores.subarray(0, n), slots: this.probedSlots.subarray(0, n), unitScale, bound };
  }

  private centroid(c: number): Float64Array {
    return this.centroids.subarray(c * this.dim, (c + 1) * this.dim);
  }

  private join(slot: number, cell: number): void {
    let list = this.members[cell]!;
    const at = this.sizes[cell]!;
    if (at === list.length) {
      const grown = new Int32Array(list.length * 2);
      grown.set(list);
      this.members[cell] = list = grown;
    }
    list[at] = slot;
    this.arena.append(cell, this.quantized, slot);
    this.sizes[cell] = at + 1;
    this.cellOf[slot] = cell;
    this.positionOf[slot] = at;
  }

  private leave(slot: number): void {
    const cell = this.cellOf[slot]!;
    const list = this.members[cell]!;
    const at = this.positionOf[slot]!;
    this.arena.fillFromLast(cell, at);
    const last = --this.sizes[cell]!;
    const moved = list[last]!;
    list[at] = moved;
    this.positionOf[moved] = at;
  }
}

/** The number of cells for a wallet of `rows` rows: about √rows, at most 1,024. */
export function cellsFor(rows: number): number {
  return Math.min(1024, Math.max(1, Math.round(Math.sqrt(rows))));
}

/** What training reads of the wallet. */
export interface TrainingRows {
  size: number;
  /** the slot's unit vector (a scratch array: read before the next call) */
  unitOf(slot: number): ArrayLike<number>;
}

const ITERATIONS = 6;
/** sample rows per cell that the centroids are trained on */
const SAMPLE_PER_CELL = 64;
/** int8 dot products per step of the build (~5–10 ms) */
export const BUILD_STEP_WORK = 1_000_000;

/**
 * Spherical k-means centroids for the wallet's rows, trained on an evenly spaced sample, starting
 * from evenly spaced sample rows (so the same rows give the same cells); `pause` is awaited between
 * steps of BUILD_STEP_WORK (the caller's event loop serves requests meanwhile). The sample is
 * copied at the start into an int8 memory of its own, contiguous (scored by slot, its rows would
 * cost 40 ns each, see cell-arena.ts): rows changing meanwhile leave it as it was, which training
 * does not mind.
 */
export async function trainCentroids(rows: TrainingRows, dim: number, pause: () => Promise<void>): Promise<{ centroids: Float64Array; expected: (c: number) => number }> {
  const cells = cellsFor(rows.size);
  const sampleSize = Math.min(rows.size, cells * SAMPLE_PER_CELL);
  const slots = Int32Array.from({ length: sampleSize }, (_, i) => Math.floor((i * rows.size) / sampleSize));
  const sampleUnits = new Float32Array(sampleSize * dim);
  for (let i = 0; i < sampleSize; i++) sampleUnits.set(rows.unitOf(slots[i]!), i * dim);
  const sample = new Quantized(kernelFor(Math.ceil(dim / 8) * 8), dim, sampleSize);
  for (let i = 0; i < sampleSize; i++) sample.set(i, sampleUnits.subarray(i * dim, (i + 1) * dim));
  const centroids = new Float64Array(cells * dim);
  for (let c = 0; c < cells; c++) centroids.set(rows.unitOf(slots[Math.floor((c * sampleSize) / cells)]!), c * dim);
  const share = new Int32Array(cells);
  const stepCells = Math.max(1, Math.floor(BUILD_STEP_WORK / sampleSize));
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const best = new Float64Array(sampleSize).fill(-Infinity);
    const cellOf = new Int32Array(sampleSize);
    for (let c = 0; c < cells; c++) {
      if (c % stepCells === 0) await pause();
      const { scores, unitScale } = sample.scan(centroids.subarray(c * dim, (c + 1) * dim), { from: 0, to: sampleSize });
      for (let i = 0; i < sampleSize; i++) {
        const s = scores[i]! / unitScale;
        if (s > best[i]!) {
          best[i] = s;
          cellOf[i] = c;
        }
      }
    }
    await pause();
    const sums = new Float64Array(cells * dim);
    share.fill(0);
    for (let i = 0; i < sampleSize; i++) {
      share[cellOf[i]!]!++;
      const at = cellOf[i]! * dim;
      const base = i * dim;
      for (let d = 0; d < dim; d++) sums[at + d]! += sampleUnits[base + d]!;
    }
    for (let c = 0; c < cells; c++) {
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += sums[c * dim + d]! ** 2;
      // a cell no sample row chose keeps its centroid
      if (norm > 0) for (let d = 0; d < dim; d++) centroids[c * dim + d] = sums[c * dim + d]! / Math.sqrt(norm);
    }
  }
  // the last iteration's sample counts, scaled to the wallet, size the cells' first rooms
  const scale = rows.size / Math.max(1, sampleSize);
  return { centroids, expected: (c) => Math.ceil(share[c]! * scale) };
}
