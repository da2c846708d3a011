/**
 * A wallet cache's per-slot columns (wallet-cache.ts), packed by element type into three typed
 * arrays: each array holds its columns one after another, `capacity` entries each, so column c's
 * entry for a slot is at `c * capacity + slot`. A service holds many small wallets, and every typed
 * array is a JS object of its own (~50–60 bytes with its storage's rounding): fourteen columns in
 * separate arrays cost ~0.5 KB per wallet more than these three.
 */

/** Float64 columns (`num`): the rowid first, so `num` read by slot alone is the rowid column. */
export const ROWID = 0;
export const IMPORTANCE = 1;
export const ACCESS_COUNT = 2;
/** each row's factor 1/‖x‖ of its 16-bit vector (fixed-point.ts) */
export const FACTOR = 3;
export const CREATED = 4;
export const EXPIRES = 5;
const NUM_COLUMNS = 6;

/** Int32 columns (`ints`): interned ids (-1: none), and the row's tag set number (tag-sets.ts; 0: no tags). */
export const NAMESPACE = 0;
export const SESSION = 1;
export const AGENT = 2;
export const TYPE = 3;
export const TAG_SET = 4;
const INT_COLUMNS = 5;

/** Uint8 columns (`flags`): 0 or 1. */
export const PINNED = 0;
/** the row's embedding has the index's dimension (others are kept for keyword search only) */
export const HAS_VECTOR = 1;
const FLAG_COLUMNS = 2;

export interface SlotColumns {
  /** entries per column */
  capacity: number;
  num: Float64Array;
  ints: Int32Array;
  flags: Uint8Array;
}

type Column = Float64Array | Int32Array | Int16Array | Uint8Array;
type ColumnType<T extends Column> = { new (length: number): T; new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };

/**
 * A typed array of `length` entries: over a SharedArrayBuffer when `shared` (the scan thread reads
 * it where the main thread writes it), else a plain one (a SharedArrayBuffer costs ~600 bytes more).
 */
export function column<T extends Column>(Type: ColumnType<T>, length: number, shared: boolean): T {
  return shared ? new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT)) : new Type(length);
}

export function slotColumns(capacity: number, shared: boolean): SlotColumns {
  return {
    capacity,
    num: column(Float64Array, NUM_COLUMNS * capacity, shared),
    ints: column(Int32Array, INT_COLUMNS * capacity, shared),
    flags: column(Uint8Array, FLAG_COLUMNS * capacity, shared),
  };
}

/** The columns at a larger capacity, the first `size` slots of each copied (new arrays: readers of the old ones keep them whole). */
export function widened(old: SlotColumns, capacity: number, size: number, shared: boolean): SlotColumns {
  const next = slotColumns(capacity, shared);
  const copy = <T extends Column>(from: T, to: T, columns: number) => {
    for (let c = 0; c < columns; c++) to.set(from.subarray(c * old.capacity, c * old.capacity + size), c * capacity);
  };
  copy(old.num, next.num, NUM_COLUMNS);
  copy(old.ints, next.ints, INT_COLUMNS);
  copy(old.flags, next.flags, FLAG_COLUMNS);
  return next;
}

/** Copies every column's entry at slot `from` to slot `to`. */
export function moveSlot(c: SlotColumns, from: number, to: number): void {
  for (let k = 0; k < NUM_COLUMNS; k++) c.num[k * c.capacity + to] = c.num[k * c.capacity + from]!;
  for (let k = 0; k < INT_COLUMNS; k++) c.ints[k * c.capacity + to] = c.ints[k * c.capacity + from]!;
  for (let k = 0; k < FLAG_COLUMNS; k++) c.flags[k * c.capacity + to] = c.flags[k * c.capacity + from]!;
}

/** Bytes held by the three arrays. */
export function columnBytes(c: SlotColumns): number {
  return c.num.byteLength + c.ints.byteLength + c.flags.byteLength;
}
