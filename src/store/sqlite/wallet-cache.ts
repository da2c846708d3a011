import type { MemoryFilter, MemoryRef } from "../../domain/store-port";
import { kernelFor } from "./vector-kernel";
import { ACCESS_COUNT_SQL } from "./schema";
import { scanThread, type SharedColumns } from "./scan-thread";
import { slotFilter, type FilterIds } from "./slot-filter";
import { TagSets } from "./tag-sets";
import { RowSlots } from "./row-slots";
import { InternedNames } from "./interned-names";
import { byDistance, exactTopK, rescore, siftDown, siftUp, type Ranked, type RankedRows, type SlotRange } from "./top-k";
import { IdColumn, TimestampColumn } from "./compact-strings";
import { fixedPointCosine, fixedPointUnit, toFixedPoint } from "./fixed-point";
import { WalletKeywords, type SlotFilter } from "./keyword-index";
import { Quantized, ROUNDING_SLACK } from "./quantized";
import { vectorIndexCounters } from "./vector-counters";
import { BUILD_STEP_WORK, trainCentroids, VectorCells } from "./vector-cells";
import { ACCESS_COUNT, AGENT, column, columnBytes, CREATED, EXPIRES, FACTOR, HAS_VECTOR, IMPORTANCE, moveSlot, NAMESPACE, PINNED, ROWID, SESSION, slotColumns, TAG_SET, TYPE, widened, type SlotColumns } from "./slot-columns";

export interface Neighbour extends Ranked {
  /** what ranking reads of the row (committed state: no pending access bumps), when the cache answered */
  ref?: MemoryRef;
}

/** Users with fewer rows are searched with a plain exact scan; from this size on with the int8 SIMD kernel. */
const KERNEL_MIN_ROWS = 2048;
/** Candidates rescored exactly in the first pass: k + max(MIN_EXTRA_CANDIDATES, k). */
const MIN_EXTRA_CANDIDATES = 64;
const candidatesWanted = (k: number, rows: number) => Math.min(rows, k + Math.max(MIN_EXTRA_CANDIDATES, k));
/**
 * Spare slots a wallet's arrays start with, as a share of the rows expected (writes during and after
 * its load use them before the arrays grow), and the factor they grow by, by MIN_GROWTH slots at
 * least. At ~600 bytes per slot (100-d), a 25% spare held ~150 MB of a 1M-row cache empty, and
 * doubling a 100k-row wallet's arrays for one insert took ~60 MB at once. Small steps keep a small
 * wallet's spare slots few (a slot is ~1.1 KB at 512-d): growing a 20-row wallet five times costs less
 * than holding 12 empty slots.
 */
const SPARE_SHARE = 0.05;
const GROWTH = 1.25;
const MIN_GROWTH = 4;

/**
 * A cache's bytes by part. Typed arrays count their allocated length (capacity, not rows); strings
 * and the few Maps are estimates from measuring Bun 1.x (JSC).
 */
export interface CacheBytes {
  /** unit vectors in 16-bit fixed point and their factors (fixed-point.ts) */
  vectors: number;
  /** the WebAssembly memory of the int8 copy (rows, scales, scores scratch) */
  int8: number;
  /** the coarse cells of a large wallet (vector-cells.ts): centroids, each row's cell, and the cells' copy of the int8 rows (cell-arena.ts) */
  cells: number;
  /** rowids, ranking and filter columns */
  columns: number;
  /** per-row tag id arrays */
  tags: number;
  /** memory ids and created_at strings */
  strings: number;
  /** rowid → slot (row-slots.ts) */
  slotMap: number;
  /** the keyword inverted index (keyword-index.ts bytes()) */
  keywords: number;
  /** interned namespaces, sessions, agents, types and tags */
  names: number;
  /** what reads keep until the rows change: list order, list totals, namespace slot lists */
  derived: number;
  /** the wallet's JS objects and typed array headers, whatever its rows (measured, see OBJECT_BYTES) */
  objects: number;
}

/**
 * A cached wallet's JS objects and typed array headers with no row (~22 typed arrays at ~100 bytes
 * each, ~9 small objects): Bun 1.x's heap grew by ~3.6 KB per empty wallet, ~1.4 KB of which is the
 * arrays' own bytes counted in the other parts (scripts/bench/wallet-cost.ts compares the
 * accounting with the heap's growth).
 */
const OBJECT_BYTES = 2_200;

/**
 * Bytes a wallet of `rows` rows holds at least once cached: its 16-bit vectors and per-row columns
 * (its text's keyword postings come on top). A wallet needing more than the whole budget is not loaded.
 */
export function leastBytes(dim: number, rows: number): number {
  return OBJECT_BYTES + rows * (2 * dim + 98);
}

/** The columns the index mirrors, as read from `memories`. */
export interface IndexedRow {
  rowid: number;
  id: string;
  user_id: string;
  embedding: Uint8Array;
  content: string;
  namespace: string;
  session_id: string | null;
  agent_id: string | null;
  memory_type: string;
  pinned: number;
  importance: number;
  access_count: number;
  created_at: string;
  expires_at: string | null;
  /** JSON text of metadata.tags when it is an array, else null */
  tags: string | null;
  deleted_at: string | null;
}

/** What the cache holds of a row, from `memories m ${ACCESS_JOIN}` */
export const ROW_COLUMNS = `m.rowid, m.id, m.user_id, m.embedding, m.content, m.namespace, m.session_id, m.agent_id, m.memory_type, m.pinned,
  m.importance, ${ACCESS_COUNT_SQL} as access_count, m.created_at, m.expires_at,
  case when json_type(m.metadata, '$.tags') = 'array' then json_extract(m.metadata, '$.tags') end as tags, m.deleted_at`;

export function asFloats(blob: Uint8Array): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2);
  return new Float32Array(blob.slice().buffer);
}

/** Scratch for one row's unit direction (rows are quantized one at a time, on the main thread). */
let unitScratch = new Float32Array(0);

/** The vector scaled to unit length (all zeros stays all zeros). */
export function unit(vector: Float32Array, out = new Float64Array(vector.length)): Float64Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  else out.fill(0);
  return out;
}

let queryScratch = new Float64Array(0);
/** `unit(vector)` in a buffer every synchronous search shares: valid until the next call (a search that awaits takes its own). */
export function unitQuery(vector: Float32Array): Float64Array {
  if (queryScratch.length !== vector.length) queryScratch = new Float64Array(vector.length);
  return unit(vector, queryScratch);
}

/** One user's active rows: unit vectors, their int8 copy (large users), the filter columns and the keyword index. */
export class UserVectors {
  readonly keywords: WalletKeywords;
  size = 0;
  private capacity: number;
  private readonly slotOf = new RowSlots(this);
  /** interned strings (namespace, session, agent, type, tags) → small ints, and back (memory types) */
  private readonly dict = new InternedNames();
  /**
   * Per slot (slot-columns.ts): rowid, what ranking reads (importance, access count as committed,
   * created), the vector's factor, and what filters read; shared with the scan thread (SharedColumns)
   * like the vectors. A row's tag set number names its entry in tagSets, where rows with the same
   * tags share one.
   */
  private cols: SlotColumns;
  /** memory id and created_at as stored (compact-strings.ts) */
  private readonly ids: IdColumn;
  private readonly createdAt = new TimestampColumn();
  /** unit vectors in 16-bit fixed point, `dim` per slot (their factors are a column: fixed-point.ts) */
  private vectors: Int16Array;
  private readonly tagSets = new TagSets(this);
  private quantized: Quantized | null = null;
  /** slots newest first, for list pages; rebuilt on the first page after any change */
  private order: Int32Array | null = null;
  /**
   * List totals by filter, dropped on any change of the rows: a total counted at `from` holds until
   * `until`, the first expiry among the rows it counted (an earlier `now`, as a test clock may ask
   * for, counts again). With it a page reads offset + limit slots instead of all of them.
   */
  private totals: Map<string, { total: number; from: number; until: number }> | null = null;
  /**
   * No row expires before this instant: a lower bound (exact while `expiryExact`). With it, an
   * unfiltered search knows every row passes without asking each: the per-row predicate was a
   * fifth of a keyword search at 100k rows.
   */
  private expiryFloor = Infinity;
  private expiryExact = true;
  /** rows without a vector of the index's dimension */
  private vectorless = 0;
  /** the coarse cells vector searches read, from `cellsFrom` rows on (vector-cells.ts) */
  private cells: VectorCells | null = null;
  /** the cells being trained and filled, a step per event-loop turn */
  private building: Promise<void> | null = null;
  /** the load is complete (cells are built only then: a load's rows are not all there before) */
  private complete = false;

  /**
   * `sharedFrom`: from this capacity on the columns the scan thread reads are in SharedArrayBuffers
   * (the index offloads searches of wallets with that many rows; smaller ones never reach the thread).
   * `cellsFrom`: from this many rows on, vector searches read the nearest coarse cells only.
   */
  constructor(
    private readonly dim: number,
    expected: number,
    private readonly sharedFrom: number,
    private readonly cellsFrom = Infinity,
  ) {
    this.capacity = Math.max(MIN_GROWTH, Math.ceil(expected * (1 + SPARE_SHARE)));
    const shared = this.shared;
    this.cols = slotColumns(this.capacity, shared);
    this.vectors = column(Int16Array, this.capacity * dim, shared);
    this.ids = new IdColumn(this.capacity);
    this.keywords = new WalletKeywords(this.capacity);
  }

  /** The rowid at `slot` (RowSlots reads the column through this). */
  rowidOf(slot: number): number {
    return this.cols.num[ROWID * this.capacity + slot]!;
  }

  /** A tag sets array (TagSets), shared as the other columns are. */
  tagColumn(length: number): Int32Array {
    return column(Int32Array, length, this.shared);
  }

  /** Are the scan thread's columns in SharedArrayBuffers (see the constructor)? */
  private get shared(): boolean {
    return this.capacity >= this.sharedFrom;
  }

  /** A load is complete: the keyword lists' spare room goes (the slot arrays keep theirs, for the writes to come). */
  loaded(): void {
    this.keywords.trim();
    this.complete = true;
    this.considerCells();
  }

  /** Are the wallet's cells built (its top-k searches read them)? */
  cellsComplete(): boolean {
    return this.cells?.complete(this.size) ?? false;
  }

  /** Resolves once the cells being built (if any) are complete or dropped. */
  async cellsBuilt(): Promise<void> {
    while (this.building) await this.building;
  }

  /**
   * Builds the cells once the wallet reaches `cellsFrom` rows, again when it has doubled since, and
   * drops them below half of `cellsFrom` rows (the whole scan costs little there).
   */
  private considerCells(): void {
    if (this.cells && this.size < this.cellsFrom / 2) this.cells = null;
    if (!this.complete || this.building || !this.quantized || this.size < this.cellsFrom) return;
    if (this.cells && this.size < 2 * this.cells.trainedAt) return;
    this.building = this.buildCells().finally(() => (this.building = null));
  }

  private async buildCells(): Promise<void> {
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    const quantized = this.quantized!;
    const { centroids, expected } = await trainCentroids({ size: this.size, unitOf: (slot) => this.unitOf(slot) }, this.dim, pause);
    const cells = new VectorCells(centroids, this.dim, quantized, this.capacity, this.size, expected);
    // searches scan every row until the new cells hold them all (the old ones, if any, are dropped)
    this.cells = cells;
    const chunk = Math.max(64, Math.floor(BUILD_STEP_WORK / cells.cells));
    while (this.cells === cells && !cells.complete(this.size)) {
      await pause();
      cells.assignRange(Math.min(this.size, cells.assignedTo + chunk));
    }
  }

  /** What the wallet holds, by part (allocated: spare capacity included). */
  memory(): CacheBytes {
    // the factor column is counted with the vectors, the tag set numbers with the tags
    const factors = 8 * this.capacity;
    const tagSets = 4 * this.capacity;
    let derived = (this.order?.byteLength ?? 0) + 100 * (this.totals?.size ?? 0);
    for (const slots of this.spaces?.slots.values() ?? []) derived += 100 + (slots?.byteLength ?? 0);
    return {
      vectors: this.vectors.byteLength + factors,
      int8: this.quantized?.bytes() ?? 0,
      cells: this.cells?.bytes() ?? 0,
      columns: columnBytes(this.cols) - factors - tagSets,
      tags: tagSets + this.tagSets.bytes(),
      strings: this.ids.bytes() + this.createdAt.bytes(),
      slotMap: this.slotOf.bytes(),
      keywords: this.keywords.bytes(),
      names: this.dict.bytes(),
      derived,
      objects: OBJECT_BYTES,
    };
  }

  /** The sum of memory()'s parts: what the cache's budget counts for this wallet. */
  bytes(): number {
    const parts = this.memory();
    let sum = 0;
    for (const key in parts) sum += parts[key as keyof CacheBytes];
    return sum;
  }

  /** Bytes of the per-row arrays' slots beyond the rows (approximate; included in memory()'s parts). */
  spare(): number {
    const parts = this.memory();
    const perRow = parts.vectors + parts.int8 + columnBytes(this.cols) - 8 * this.capacity + this.ids.bytes();
    return Math.round((perRow * (this.capacity - this.size)) / this.capacity);
  }

  /** The rowids by slot (the first column of `num`). */
  rowidsView(): Float64Array {
    return this.cols.num;
  }

  has(rowid: number): boolean {
    return this.slotOf.has(rowid);
  }

  private intern(value: string): number {
    return this.dict.intern(value);
  }

  /** What ranking reads of the row, as committed (the store adds pending access bumps). */
  refOf(rowid: number): MemoryRef | undefined {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return undefined;
    const { num, ints, flags, capacity } = this.cols;
    return {
      id: this.ids.get(slot),
      created_at: this.createdAt.get(slot, num[CREATED * capacity + slot]!),
      memory_type: this.dict.nameOf(ints[TYPE * capacity + slot]!) as MemoryRef["memory_type"],
      pinned: flags[PINNED * capacity + slot] === 1,
      importance: num[IMPORTANCE * capacity + slot]!,
      access_count: num[ACCESS_COUNT * capacity + slot]!,
    };
  }

  /** Access bumps committed for the row: `add` to the cached count (this connection wrote them), or `set` it (as read). */
  access(rowid: number, count: number, how: "add" | "set"): void {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return;
    const at = ACCESS_COUNT * this.capacity + slot;
    this.cols.num[at] = (how === "add" ? this.cols.num[at]! : 0) + count;
  }

  /** Adds or replaces the row (rows whose embedding has another dimension get no vector: keyword search only). */
  put(row: IndexedRow): void {
    this.changed();
    const embedding = asFloats(row.embedding);
    const vector = embedding.length === this.dim && this.dim > 0;
    let slot = this.slotOf.get(row.rowid);
    const replacing = slot !== undefined;
    if (slot !== undefined) this.forgetBounds(slot);
    else {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.cols.num[ROWID * this.capacity + slot] = row.rowid;
      this.slotOf.add(row.rowid, slot);
    }
    const { num, ints, flags, capacity } = this.cols;
    this.ids.set(slot, row.id);
    num[IMPORTANCE * capacity + slot] = row.importance;
    num[ACCESS_COUNT * capacity + slot] = row.access_count;
    const base = slot * this.dim;
    if (vector) num[FACTOR * capacity + slot] = toFixedPoint(embedding, this.vectors, base);
    else {
      this.vectors.fill(0, base, base + this.dim);
      num[FACTOR * capacity + slot] = 0;
    }
    flags[HAS_VECTOR * capacity + slot] = vector ? 1 : 0;
    if (!vector) this.vectorless++;
    this.keywords.put(slot, row.content, replacing, this.size);
    ints[NAMESPACE * capacity + slot] = this.intern(row.namespace);
    ints[SESSION * capacity + slot] = row.session_id === null ? -1 : this.intern(row.session_id);
    ints[AGENT * capacity + slot] = row.agent_id === null ? -1 : this.intern(row.agent_id);
    ints[TYPE * capacity + slot] = this.intern(row.memory_type);
    flags[PINNED * capacity + slot] = row.pinned;
    const created = Date.parse(row.created_at);
    num[CREATED * capacity + slot] = created;
    this.createdAt.set(slot, row.created_at, created);
    const expires = row.expires_at === null ? Infinity : Date.parse(row.expires_at);
    num[EXPIRES * capacity + slot] = expires;
    this.expiryFloor = Math.min(this.expiryFloor, expires);
    const tags = row.tags === null ? [] : (JSON.parse(row.tags) as unknown[]);
    // tagSets may ask for new arrays (tagColumn), never for new columns
    ints[TAG_SET * capacity + slot] = tags.length === 0 ? 0 : this.tagSets.numberOf(row.tags!, () => tags.map((t) => this.intern(String(t))));
    if (this.quantized) {
      // one unit vector for the int8 copy and the cells (unitOf writes a scratch array)
      const unitVector = this.unitOf(slot);
      this.quantized.set(slot, unitVector);
      this.cells?.put(slot, unitVector, replacing);
    } else if (this.size >= KERNEL_MIN_ROWS && this.dim > 0) this.quantize();
    if (!replacing) this.considerCells();
  }

  delete(rowid: number): void {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return;
    this.changed();
    this.forgetBounds(slot);
    this.slotOf.delete(rowid);
    const last = --this.size;
    if (slot !== last) {
      // move the last row into the hole
      this.slotOf.move(this.rowidOf(last), slot);
      moveSlot(this.cols, last, slot);
      this.ids.move(last, slot);
      this.createdAt.move(last, slot);
      this.vectors.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.quantized?.move(last, slot);
    }
    this.cells?.delete(slot, last, () => this.unitOf(slot));
    this.considerCells();
    this.cols.ints[TAG_SET * this.capacity + last] = 0;
    this.ids.clear(last);
    this.createdAt.clear(last);
    this.keywords.delete(slot, last);
  }

  /** The row at `slot` is leaving (deleted or replaced): the bounds stop counting it. */
  private forgetBounds(slot: number): void {
    if (this.cols.flags[HAS_VECTOR * this.capacity + slot] === 0) this.vectorless--;
    if (this.cols.num[EXPIRES * this.capacity + slot] === this.expiryFloor) this.expiryExact = false;
  }

  /** True when no row has expired at `now`. */
  private noneExpired(now: number): boolean {
    if (now < this.expiryFloor) return true;
    if (!this.expiryExact) {
      let floor = Infinity;
      const expires = EXPIRES * this.capacity;
      for (let slot = 0; slot < this.size; slot++) floor = Math.min(floor, this.cols.num[expires + slot]!);
      this.expiryFloor = floor;
      this.expiryExact = true;
    }
    return now < this.expiryFloor;
  }

  private grow(): void {
    const wasShared = this.shared;
    const capacity = Math.max(this.capacity + MIN_GROWTH, Math.ceil(this.capacity * GROWTH));
    this.capacity = capacity;
    const shared = this.shared;
    // new arrays: a scan thread reading the old ones meanwhile reads them whole; its answer is dropped (version)
    this.cols = widened(this.cols, capacity, this.size, shared);
    const vectors = column(Int16Array, capacity * this.dim, shared);
    vectors.set(this.vectors);
    this.vectors = vectors;
    if (shared && !wasShared) this.tagSets.reallocate();
    this.ids.reserve(capacity);
    this.quantized?.reserve(capacity, this.size);
    this.cells?.reserve(capacity);
    this.keywords.reserve(capacity);
  }

  private quantize(): void {
    this.quantized = new Quantized(kernelFor(Math.ceil(this.dim / 8) * 8), this.dim, this.capacity);
    for (let slot = 0; slot < this.size; slot++) this.quantized.set(slot, this.unitOf(slot));
  }

  /** The row's unit direction as the fixed-point form holds it (in a scratch array: use before the next call). */
  private unitOf(slot: number): Float32Array {
    if (unitScratch.length !== this.dim) unitScratch = new Float32Array(this.dim);
    return fixedPointUnit(this.vectors, slot * this.dim, this.cols.num[FACTOR * this.capacity + slot]!, unitScratch);
  }

  /** Counts changes of the rows (a search's memo of its match count holds within one version). */
  version = 0;

  private changed(): void {
    this.version++;
    this.order = null;
    this.totals = null;
  }

  /**
   * Rows offset…offset+limit of the accepted rows newest first, and their number. The order is
   * sorted once per change of the user's rows (10k rows: ~2 ms) and the total counted once per
   * change and filter (a pass over the slots), so a page reads only the slots up to its end: what
   * replaces SQL's count and sort of every page.
   */
  page(filter: MemoryFilter, now: number, offset: number, limit: number): { rowids: number[]; total: number } {
    const accept = this.accepting(filter, now, false);
    if (!accept) return { rowids: [], total: 0 };
    const order = this.sorted();
    const key = JSON.stringify(filter);
    const known = this.totals?.get(key);
    const counted = known && now >= known.from && now < known.until ? known : null;
    const rowids: number[] = [];
    let seen = 0;
    let until = Infinity;
    const { num, capacity } = this.cols;
    for (let i = 0; i < order.length; i++) {
      if (counted && rowids.length === limit) break;
      const slot = order[i]!;
      if (accept !== true && !accept(slot)) continue;
      if (seen >= offset && rowids.length < limit) rowids.push(num[ROWID * capacity + slot]!);
      seen++;
      until = Math.min(until, num[EXPIRES * capacity + slot]!);
    }
    if (counted) return { rowids, total: counted.total };
    if (!this.totals || this.totals.size >= 64) this.totals = new Map(); // a bound for wallets listed with many filters
    this.totals.set(key, { total: seen, from: now, until });
    return { rowids, total: seen };
  }

  private sorted(): Int32Array {
    if (this.order && this.order.length === this.size) return this.order;
    const order = new Int32Array(this.size);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const { num, capacity } = this.cols;
    const created = CREATED * capacity;
    const rowids = ROWID * capacity;
    order.sort((a, b) => num[created + b]! - num[created + a]! || num[rowids + b]! - num[rowids + a]!);
    return (this.order = order);
  }

  /**
   * The row filter as a predicate over slots, `true` when every row passes, or null when no row can
   * match; `vectors`: rows without a vector never match.
   */
  accepting(filter: MemoryFilter, now: number, vectors: boolean): SlotFilter | null {
    const ids = this.filterIds(filter, now, vectors);
    return ids ? this.acceptOf(ids) : null;
  }

  private acceptOf(ids: FilterIds): SlotFilter {
    return this.passesAll(ids) ? true : slotFilter(ids, this.sharedColumns());
  }

  /** The filter in this wallet's interned ids; null when it can match no row (a value no row has). */
  private filterIds(filter: MemoryFilter, now: number, vectors: boolean): FilterIds | null {
    // text columns come back from SQLite as UTF-8 (a lone surrogate became U+FFFD), and SQL compares
    // the filter's UTF-8 form: compare the same form here
    const id = (value: string | undefined) => (value === undefined ? -1 : (this.dict.idOf(value.toWellFormed()) ?? -2));
    const namespace = id(filter.namespace);
    const session = id(filter.session_id);
    const agent = id(filter.agent_id);
    const type = id(filter.memory_type);
    if (namespace === -2 || session === -2 || agent === -2 || type === -2) return null;
    let tags: Set<number> | null = null;
    if (filter.tags?.length) {
      tags = new Set(filter.tags.flatMap((tag) => this.dict.idOf(tag) ?? []));
      if (tags.size === 0) return null;
    }
    const pinned = filter.pinned === undefined ? -1 : filter.pinned ? 1 : 0;
    const after = filter.created_after === undefined ? -Infinity : Date.parse(filter.created_after);
    const before = filter.created_before === undefined ? Infinity : Date.parse(filter.created_before);
    return { namespace, session, agent, type, pinned, after, before, tags, vectors, now };
  }

  /** Every row passes: no filter, and no row expired or (for vector search) without a vector. */
  private passesAll(f: FilterIds): boolean {
    const unfiltered = f.namespace === -1 && f.session === -1 && f.agent === -1 && f.type === -1 && f.tags === null && f.pinned === -1 && f.after === -Infinity && f.before === Infinity;
    return unfiltered && (!f.vectors || this.vectorless === 0) && this.noneExpired(f.now);
  }

  /** The columns the scan thread reads (as they are now: they are new arrays after they grow). */
  private sharedColumns(): SharedColumns {
    const { starts: tagStarts, list: tagList } = this.tagSets;
    return { ...this.cols, vectors: this.vectors, tagStarts, tagList };
  }

  /** Cosine of the unit `query` with the row's vector; undefined when the row has none. */
  similarity(query: Float64Array, rowid: number): number | undefined {
    const slot = this.slotOf.get(rowid);
    return slot !== undefined && this.cols.flags[HAS_VECTOR * this.capacity + slot] === 1 ? this.exact(query, slot) : undefined;
  }

  private exact(query: Float64Array, slot: number): number {
    return fixedPointCosine(query, this.vectors, slot * this.dim, this.cols.num[FACTOR * this.capacity + slot]!);
  }

  nearest(vector: Float32Array, filter: MemoryFilter, k: number, now: number, min = -Infinity): Neighbour[] {
    const accept = this.accepting(filter, now, true);
    if (!accept || this.size === 0) return [];
    const query = unitQuery(vector);
    const n = this.size;
    if (query.every((x) => x === 0)) return this.anyK(accept, k);
    if (min === -Infinity && this.cells?.complete(n)) {
      const found = this.nearestInCells(this.cells, query, accept, k);
      if (found) return found;
    }
    const want = candidatesWanted(k, n);
    const subset = min > -Infinity && this.quantized ? this.namespaceSlots(filter) : null;
    if (subset) {
      vectorIndexCounters.namespaceScans++;
      const scan = this.quantized!.scanSlots(query, subset);
      const close = this.within(query, scan.scores, accept, min, scan.unitScale, scan.bound, want, subset);
      if (close) return close.slice(0, k);
    }
    // First-pass scores (approximate when quantized) and their worst-case error, in cosine units.
    let approx: Float32Array;
    let unitScale = 1;
    // Unquantized first-pass scores are exact but stored as f32: rounding is the only error, and a
    // nonzero bound sends rows tied with the k-th to the second pass, so ties resolve by rowid.
    let bound = ROUNDING_SLACK;
    if (this.quantized) {
      const scan = this.quantized.scan(query, { from: 0, to: n });
      approx = scan.scores;
      unitScale = scan.unitScale;
      bound = scan.bound;
    } else {
      approx = new Float32Array(n);
      for (let slot = 0; slot < n; slot++) approx[slot] = this.exact(query, slot);
    }
    const close = min > -Infinity && !subset ? this.within(query, approx, accept, min, unitScale, bound, want) : null;
    if (close) return close.slice(0, k);
    const { found, secondPass } = exactTopK(approx, { from: 0, to: n }, k, want, accept, unitScale, bound, this.rowsFor(query));
    if (secondPass) vectorIndexCounters.secondPasses++;
    return found;
  }

  /**
   * `nearest` (no minimum) over the rows of the cells nearest the query: the same first pass,
   * certificate and exact rescoring as the whole scan, over fewer rows; null when they hold fewer
   * than k accepted rows (a selective filter), and the whole scan answers.
   */
  private nearestInCells(cells: VectorCells, query: Float64Array, accept: SlotFilter, k: number): Neighbour[] | null {
    const { slots, scores, unitScale, bound } = cells.search(query);
    // the search ranks positions in `slots`: each reads its row
    const rows = this.rowsFor(query);
    const listed: RankedRows = { cosine: (i) => rows.cosine(slots[i]!), rowid: (i) => rows.rowid(slots[i]!) };
    const acceptListed: SlotFilter = accept === true ? true : (i) => accept(slots[i]!);
    const { found, secondPass } = exactTopK(scores, { from: 0, to: slots.length }, k, candidatesWanted(k, slots.length), acceptListed, unitScale, bound, listed);
    if (found.length < k) return null;
    vectorIndexCounters.cellSearches++;
    if (secondPass) vectorIndexCounters.secondPasses++;
    return found;
  }

  /** `nearest` (quantized rows, no minimum) over a range of slots only. */
  private nearestIn(quantized: Quantized, query: Float64Array, accept: SlotFilter, k: number, range: SlotRange): Ranked[] {
    const scan = quantized.scan(query, range);
    const want = candidatesWanted(k, range.to - range.from);
    const { found, secondPass } = exactTopK(scan.scores, range, k, want, accept, scan.unitScale, scan.bound, this.rowsFor(query));
    if (secondPass) vectorIndexCounters.secondPasses++;
    return found;
  }

  /**
   * `nearest` (without a minimum) run by the scan thread, the filter included (slot-filter.ts over
   * the shared columns), while the main thread serves other requests. When the thread has no other
   * search waiting, it takes the lower half of the rows and this thread scans the upper half
   * meanwhile, so that a lone recall (one caller, or a lull) does not wait on one core while the
   * other idles; a busy service, whose thread is seldom idle, still leaves the scans to it. The answer is
   * `nearest`'s (the top k of two ranges, merged, is the top k): the search runs here instead when
   * the rows changed while the thread searched them (the wallet's version moved), when the thread is
   * unavailable, and for a zero query or a filter no row matches.
   */
  async nearestOffloaded(vector: Float32Array, filter: MemoryFilter, k: number, now: number): Promise<Neighbour[]> {
    const quantized = this.quantized;
    const here = () => this.withRefs(this.nearest(vector, filter, k, now));
    // columns not yet in SharedArrayBuffers would reach the thread as copies, stale after the next write;
    // a search of the cells runs here: on the thread, a lone one waited as long for the hand-off as the whole split scan takes
    if (!quantized || !this.shared || this.cellsComplete()) return here();
    const query = unit(vector);
    const ids = this.filterIds(filter, now, true);
    if (!ids || query.every((x) => x === 0)) return here();
    const n = this.size;
    const split = scanThread.busy ? n : n >> 1;
    const version = this.version;
    const pending = quantized.searchElsewhere({ unit: query, range: { from: 0, to: split }, k, want: candidatesWanted(k, split), filter: this.passesAll(ids) ? null : ids, columns: this.sharedColumns() });
    // computed before anything awaits, so at `version` like the thread's rows (checked below)
    const upper = split < n ? this.nearestIn(quantized, query, this.acceptOf(ids), k, { from: split, to: n }) : [];
    const scan = await pending;
    if (!scan) return here();
    vectorIndexCounters.offloadedScans++;
    if (this.version !== version) {
      vectorIndexCounters.offloadDiscards++;
      return here();
    }
    if (scan.secondPass) vectorIndexCounters.secondPasses++;
    // nothing awaits from here on: the refs are read from the rows the thread searched
    const lower = Array.from(scan.rowids, (rowid, i) => ({ rowid, distance: scan.distances[i]! }));
    return this.withRefs(upper.length === 0 ? lower : [...lower, ...upper].sort(byDistance).slice(0, k));
  }

  /** Sets each neighbour's ref (what ranking reads of its row) from this cache. */
  withRefs(found: Neighbour[]): Neighbour[] {
    for (const neighbour of found) neighbour.ref = this.refOf(neighbour.rowid);
    return found;
  }

  /**
   * Every accepted row whose exact cosine may reach `min` (its first-pass score is within the bound
   * of it), rescored, nearest first; null when more than `limit` rows may (a low minimum: the top-k
   * passes above are cheaper then). Dedup asks for neighbours at cosine ≥ 0.95, which few rows
   * reach: this skips the heap and the rescoring of `want` candidates that the top-k search needs.
   *
   * The rows left out all score below min − ROUNDING_SLACK exactly, and every row kept is ranked
   * above them, so each row at or above min has the same rank here as in the full top k.
   */
  private within(
    query: Float64Array,
    approx: Float32Array,
    accept: SlotFilter,
    min: number,
    unitScale: number,
    bound: number,
    limit: number,
    /** the slot of each score when only some rows were scored (namespaceSlots) */
    scored?: Int32Array,
  ): Neighbour[] | null {
    const floor = (min - bound - ROUNDING_SLACK) * unitScale;
    const slots: number[] = [];
    for (let i = 0; i < approx.length; i++) {
      const slot = scored ? scored[i]! : i;
      if (approx[i]! < floor || (accept !== true && !accept(slot))) continue;
      if (slots.length === limit) return null;
      slots.push(slot);
    }
    vectorIndexCounters.withinMinimum++;
    return this.rescore(query, slots);
  }

  /**
   * The slots of the filter's namespace, when it holds at most half the rows: a search with a
   * minimum then scores only those (the rows of other namespaces can never be accepted). Listed
   * once per version of the rows and namespace (a pass over the namespace column).
   */
  private namespaceSlots(filter: MemoryFilter): Int32Array | null {
    if (filter.namespace === undefined) return null;
    const id = this.dict.idOf(filter.namespace.toWellFormed());
    if (id === undefined) return null;
    if (this.spaces?.version !== this.version) this.spaces = { version: this.version, slots: new Map() };
    let slots = this.spaces.slots.get(id);
    if (slots === undefined) {
      const list: number[] = [];
      const { ints, capacity } = this.cols;
      for (let slot = 0; slot < this.size; slot++) if (ints[NAMESPACE * capacity + slot] === id) list.push(slot);
      slots = list.length <= this.size / 2 ? Int32Array.from(list) : null;
      this.spaces.slots.set(id, slots);
    }
    return slots;
  }

  /** namespaceSlots' lists (null: too many rows to be worth it), valid for one version of the rows */
  private spaces: { version: number; slots: Map<number, Int32Array | null> } | null = null;

  /** A zero query is equally far from everything: the k accepted rows with the lowest rowids. */
  private anyK(accept: SlotFilter, k: number): Neighbour[] {
    const heap = new Int32Array(k);
    const heapScore = new Float64Array(k);
    let size = 0;
    for (let slot = 0; slot < this.size; slot++) {
      if (accept !== true && !accept(slot)) continue;
      const s = -this.rowidOf(slot);
      if (size < k) siftUp(heap, heapScore, size++, slot, s);
      else if (s > heapScore[0]!) siftDown(heap, heapScore, size, slot, s);
    }
    return Array.from(heap.subarray(0, size), (slot) => ({ rowid: this.rowidOf(slot), distance: 1 })).sort(byDistance);
  }

  private rescore(query: Float64Array, slots: ArrayLike<number>): Neighbour[] {
    return rescore(this.rowsFor(query), slots);
  }

  /** The rows as exactTopK ranks them against the unit query. */
  private rowsFor(query: Float64Array): RankedRows {
    return { cosine: (slot) => this.exact(query, slot), rowid: (slot) => this.rowidOf(slot) };
  }
}
