import { kernelFor, kernelMemory, type ScoreFn } from "./vector-kernel";
import type { Quantized } from "./quantized";

/** Rows a cell's region holds at least. */
const MIN_ROOM = 8;

/**
 * The int8 rows of each coarse cell (vector-cells.ts) copied next to each other, so that a search
 * scans a probed cell as one contiguous run with the kernel's four-rows-at-a-time loop. Read from
 * the wallet's own int8 copy by slot instead, the rows of 40 cells of 100k lie all over its 12.8 MB:
 * 40 ns per row (a page-table walk each) against 6 contiguous, so a search of 15% of the rows took
 * as long as the whole scan.
 *
 * Layout of the memory: [query int16 × stride][scales f32 × capacity][scores f32 × capacity]
 * [rows int8 × stride × capacity]. Cell c owns rows start[c] … start[c] + room[c]; its first
 * sizes[c] are its members' rows, in the order of its member list. A full cell moves to a region
 * twice its size at the end; when the memory has no room left, every cell is laid out again,
 * compactly, in a new memory.
 */
export class CellArena {
  private readonly stride: number;
  private readonly queryBytes: number;
  private readonly start: Int32Array;
  private readonly room: Int32Array;
  private capacity = 0;
  private used = 0;
  private memory!: WebAssembly.Memory;
  private score!: ScoreFn;
  private rowsAt = 0;
  private rows!: Int8Array;
  private scales!: Float32Array;
  /** the scores of the last scan, by arena row */
  scores!: Float32Array;
  /** the query the scans read (Quantized.queryFor writes it) */
  query!: Int16Array;

  constructor(
    stride: number,
    /** each cell's row count (VectorCells owns it) */
    private readonly sizes: Int32Array,
    /** rows each cell is expected to hold: room for them from the start */
    expected: (c: number) => number,
  ) {
    this.stride = stride;
    this.queryBytes = Math.ceil((stride * 2) / 16) * 16;
    this.start = new Int32Array(sizes.length);
    this.room = new Int32Array(sizes.length);
    this.layOut(expected);
  }

  bytes(): number {
    return this.memory.buffer.byteLength + this.start.byteLength + this.room.byteLength;
  }

  /** Copies the wallet's row at `slot` in as cell c's row number sizes[c] (the caller then counts it). */
  append(c: number, quantized: Quantized, slot: number): void {
    const n = this.sizes[c]!;
    if (n === this.room[c]) this.reserve((cell) => (cell === c ? 1 : 0));
    quantized.copyRow(slot, this.rows, this.scales, this.start[c]! + n);
  }

  /** Cell c's row `at` gets its last row (sizes[c] − 1, which the caller then drops). */
  fillFromLast(c: number, at: number): void {
    const from = this.start[c]! + this.sizes[c]! - 1;
    const to = this.start[c]! + at;
    if (from === to) return;
    this.rows.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    this.scales[to] = this.scales[from]!;
  }

  /** Scores cell c's rows against `query`; they are at scores[first(c) …]. */
  scan(c: number): void {
    const n = this.sizes[c]!;
    if (n === 0) return;
    const at = this.start[c]!;
    this.score(0, this.rowsAt + at * this.stride, n, this.queryBytes + 4 * at, this.queryBytes + 4 * this.capacity + 4 * at);
  }

  /** The arena row of cell c's first row. */
  first(c: number): number {
    return this.start[c]!;
  }

  /**
   * Room for more(c) more rows in each cell c: a region too small moves to the free end with twice
   * the rows it needs, or, when the end has too little room, every cell is laid out anew (so a
   * chunk of assignments costs one layout at most).
   */
  reserve(more: (c: number) => number): void {
    let tail = 0;
    for (let c = 0; c < this.sizes.length; c++) {
      const need = this.sizes[c]! + more(c);
      if (need > this.room[c]!) tail += Math.max(MIN_ROOM, 2 * need);
    }
    if (tail === 0) return;
    if (this.used + tail > this.capacity) return this.layOut(more);
    for (let c = 0; c < this.sizes.length; c++) {
      const need = this.sizes[c]! + more(c);
      if (need <= this.room[c]!) continue;
      const room = Math.max(MIN_ROOM, 2 * need);
      this.move(c, this.used, this.sizes[c]!);
      this.room[c] = room;
      this.used += room;
    }
  }

  private move(c: number, to: number, n: number): void {
    const from = this.start[c]!;
    this.rows.copyWithin(to * this.stride, from * this.stride, (from + n) * this.stride);
    this.scales.copyWithin(to, from, from + n);
    this.start[c] = to;
  }

  /** Every cell in a new memory, compactly, with room for more(c) more rows and a quarter spare, and an eighth of that free at the end. */
  private layOut(more: (c: number) => number): void {
    const rooms = Array.from(this.sizes, (n, c) => Math.max(MIN_ROOM, Math.ceil((n + more(c)) * 1.25)));
    const total = rooms.reduce((sum, room) => sum + room, 0);
    const capacity = Math.ceil(total * 1.125);
    const rowsAt = this.queryBytes + 8 * capacity;
    const memory = kernelMemory();
    memory.grow(Math.ceil((rowsAt + capacity * this.stride) / 65536) - 1);
    const rows = new Int8Array(memory.buffer, rowsAt, capacity * this.stride);
    const scales = new Float32Array(memory.buffer, this.queryBytes, capacity);
    let at = 0;
    for (let c = 0; c < this.sizes.length; c++) {
      const n = this.sizes[c]!;
      if (this.rows && n > 0) {
        const from = this.start[c]!;
        rows.set(this.rows.subarray(from * this.stride, (from + n) * this.stride), at * this.stride);
        scales.set(this.scales.subarray(from, from + n), at);
      }
      this.start[c] = at;
      this.room[c] = rooms[c]!;
      at += rooms[c]!;
    }
    this.memory = memory;
    this.score = kernelFor(this.stride).bind(memory).scores;
    this.capacity = capacity;
    this.used = total;
    this.rowsAt = rowsAt;
    this.rows = rows;
    this.scales = scales;
    this.scores = new Float32Array(memory.buffer, this.queryBytes + 4 * capacity, capacity);
    this.query = new Int16Array(memory.buffer, 0, this.stride);
  }
}
