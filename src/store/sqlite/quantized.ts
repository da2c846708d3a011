import { kernelMemory, type GatherFn, type Kernel, type ScoreFn } from "./vector-kernel";
import { LAYOUT_WORDS, layoutGeneration, scanThread, withLayoutLock, type ScanResult, type SharedColumns } from "./scan-thread";
import type { FilterIds } from "./slot-filter";
import type { SlotRange } from "./top-k";

/** Slack for float rounding in the quantization bound (cosine units). */
export const ROUNDING_SLACK = 1e-5;

/**
 * The int8 copy of a user's unit vectors in a WebAssembly memory the kernel scans, shared with the
 * scan thread (scan-thread.ts):
 * [layout words][query int16 × stride][scan thread's query][scales f32 × capacity][scores f32 × capacity]
 * [scan thread's scores f32 × capacity][slots i32 × capacity][rows int8 × stride × capacity].
 * Row i is round(v_i · 127 / max|v_i|), and its scale max|v_i| / 127 maps integer dots back. The
 * scan thread writes only its own query and scores areas; growing moves the areas after the
 * scales, so it happens under the layout lock (withLayoutLock).
 */
export class Quantized {
  private readonly memory: WebAssembly.Memory;
  private readonly score: ScoreFn;
  private readonly gather: GatherFn;
  readonly stride: number;
  private readonly queryMax: number;
  private readonly queryBytes: number;
  private capacity = 0;
  private rowsAt = 0;
  private rows = new Int8Array(0);
  private scales = new Float32Array(0);
  /** largest row scale so far (bounds the quantization error of every row) */
  private maxScale = 0;

  constructor(
    kernel: Kernel,
    private readonly dim: number,
    capacity: number,
  ) {
    this.stride = kernel.stride;
    this.queryBytes = Math.ceil((this.stride * 2) / 16) * 16;
    // keep Σ |row · query| inside int32: stride · 127 · queryMax < 2^31
    this.queryMax = Math.min(32767, Math.floor((2 ** 31 - 1) / (this.stride * 127)));
    this.memory = kernelMemory();
    ({ scores: this.score, gather: this.gather } = kernel.bind(this.memory));
    this.reserve(capacity, 0);
  }

  private get queryAt(): number {
    return LAYOUT_WORDS.bytes;
  }

  private get threadQueryAt(): number {
    return LAYOUT_WORDS.bytes + this.queryBytes;
  }

  private get scalesAt(): number {
    return LAYOUT_WORDS.bytes + 2 * this.queryBytes;
  }

  private get scoresAt(): number {
    return this.scalesAt + 4 * this.capacity;
  }

  private get threadScoresAt(): number {
    return this.scalesAt + 8 * this.capacity;
  }

  private get slotsAt(): number {
    return this.scalesAt + 12 * this.capacity;
  }

  /** Grows to `capacity` rows, keeping the first `size`. */
  reserve(capacity: number, size: number): void {
    if (capacity <= this.capacity) return;
    withLayoutLock(this.memory, () => {
      const rowsAt = this.scalesAt + 16 * capacity;
      const bytes = rowsAt + capacity * this.stride;
      const pages = Math.ceil(bytes / 65536) - this.memory.buffer.byteLength / 65536;
      if (pages > 0) this.memory.grow(pages);
      // rows move up (the scores and slots areas in between are scratch); scales stay where they are
      new Uint8Array(this.memory.buffer).copyWithin(rowsAt, this.rowsAt, this.rowsAt + size * this.stride);
      this.rowsAt = rowsAt;
      this.capacity = capacity;
      this.rows = new Int8Array(this.memory.buffer, rowsAt, capacity * this.stride);
      this.scales = new Float32Array(this.memory.buffer, this.scalesAt, capacity);
    });
  }

  /**
   * The search (exactTopK over these rows under the filter) run by the scan thread on the rows as they
   * are when it runs; null when it is unavailable.
   */
  searchElsewhere(search: { unit: Float64Array; range: SlotRange; k: number; want: number; filter: FilterIds | null; columns: SharedColumns }): Promise<ScanResult | null> {
    const query = new Int16Array(this.stride);
    const { unitScale, bound } = this.queryFor(search.unit, query);
    const at = { generation: layoutGeneration(this.memory), query: this.threadQueryAt, scales: this.scalesAt, scores: this.threadScoresAt, rows: this.rowsAt };
    return scanThread.scan(this.memory, { ...search, stride: this.stride, query, unitScale, bound, at });
  }

  bytes(): number {
    return this.memory.buffer.byteLength;
  }

  set(slot: number, unitVector: Float32Array): void {
    let max = 0;
    for (let i = 0; i < this.dim; i++) max = Math.max(max, Math.abs(unitVector[i]!));
    const base = slot * this.stride;
    const factor = max > 0 ? 127 / max : 0;
    for (let i = 0; i < this.dim; i++) this.rows[base + i] = Math.round(unitVector[i]! * factor);
    const scale = max / 127;
    this.scales[slot] = scale;
    // the f32 scale is what the kernel multiplies by; bound with the larger of the two
    this.maxScale = Math.max(this.maxScale, scale, Math.fround(scale));
  }

  move(from: number, to: number): void {
    this.rows.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    this.scales[to] = this.scales[from]!;
  }

  /**
   * Scores the rows of the range against the unit query: scores[slot] / unitScale approximates the
   * cosine, within ± bound (scores below range.from are not written).
   */
  scan(query: Float64Array, { from, to }: SlotRange): { scores: Float32Array; unitScale: number; bound: number } {
    const { unitScale, bound } = this.setQuery(query);
    this.score(this.queryAt, this.rowsAt + from * this.stride, to - from, this.scalesAt + 4 * from, this.scoresAt + 4 * from);
    return { scores: new Float32Array(this.memory.buffer, this.scoresAt, to), unitScale, bound };
  }

  /** As scan, for the listed rows only: scores[i] is row slots[i]'s. */
  scanSlots(query: Float64Array, slots: Int32Array): { scores: Float32Array; unitScale: number; bound: number } {
    const { unitScale, bound } = this.setQuery(query);
    new Int32Array(this.memory.buffer, this.slotsAt, slots.length).set(slots);
    this.gather(this.queryAt, this.rowsAt, this.slotsAt, slots.length, this.scalesAt, this.scoresAt);
    return { scores: new Float32Array(this.memory.buffer, this.scoresAt, slots.length), unitScale, bound };
  }

  /** Copies the row at `slot` (its int8 values and scale) to row `at` of `rows` / `scales` (cell-arena.ts). */
  copyRow(slot: number, rows: Int8Array, scales: Float32Array, at: number): void {
    rows.set(this.rows.subarray(slot * this.stride, (slot + 1) * this.stride), at * this.stride);
    scales[at] = this.scales[slot]!;
  }

  /** Writes the quantized query; its scale, and the error bound of every row's score in cosine units. */
  private setQuery(query: Float64Array): { unitScale: number; bound: number } {
    return this.queryFor(query, new Int16Array(this.memory.buffer, this.queryAt, this.stride));
  }

  /**
   * The query as the kernel takes it, into `q`; its scale, and the error bound of every row's score
   * in cosine units (for these rows and copies of them).
   */
  queryFor(query: Float64Array, q: Int16Array): { unitScale: number; bound: number } {
    let max = 0;
    let l1 = 0;
    for (let i = 0; i < this.dim; i++) {
      max = Math.max(max, Math.abs(query[i]!));
      l1 += Math.abs(query[i]!);
    }
    const unitScale = max > 0 ? this.queryMax / max : 1;
    for (let i = 0; i < this.dim; i++) q[i] = Math.round(query[i]! * unitScale);
    // |cos - approx| ≤ Σ|q|·|v - v̂| + Σ|q - q̂|·|v̂| ≤ l1·maxScale/2 + ‖v̂‖₁/(2·unitScale), ‖v̂‖₁ ≤ √dim + dim·maxScale/2
    const rowL1 = Math.sqrt(this.dim) + (this.dim * this.maxScale) / 2;
    const bound = (l1 * this.maxScale) / 2 + rowL1 / (2 * unitScale) + ROUNDING_SLACK;
    return { unitScale, bound };
  }
}
