/**
 * A wallet cache's rowid → slot lookup (wallet-cache.ts), as an open-addressing table of slots in
 * one Int32Array: the rowids themselves are the cache's rowid column, so the table holds 4 bytes per
 * entry and stays at most half full (8–16 bytes per row). A Map<number, number> held ~80 bytes per
 * row, and ~3 KB for a wallet of 20 rows.
 *
 * The table reads the rowid column through `rows.rowidOf`: a slot's rowid must be written there
 * before the slot is added, and a slot that takes another row's place is re-pointed with `move`.
 */
export class RowSlots {
  /** slot + 1 (0: empty), at the hash of its rowid, linear probing */
  private table = new Int32Array(8);
  /** 32 − log2(table length): home() keeps a hash's top bits */
  private shift = 29;
  private count = 0;

  /** `rows`: the cache whose rowid column the slots index (an object, not a closure: one less per wallet) */
  constructor(private readonly rows: { rowidOf(slot: number): number }) {}

  get size(): number {
    return this.count;
  }

  has(rowid: number): boolean {
    return this.find(rowid) >= 0;
  }

  get(rowid: number): number | undefined {
    const at = this.find(rowid);
    return at < 0 ? undefined : this.table[at]! - 1;
  }

  /** Adds the row (not present) at `slot`, whose rowid is already written. */
  add(rowid: number, slot: number): void {
    if (2 * (this.count + 1) > this.table.length) this.rehash(this.table.length * 2);
    this.table[this.free(rowid)] = slot + 1;
    this.count++;
  }

  /** The row (present) is at `slot` now. */
  move(rowid: number, slot: number): void {
    this.table[this.find(rowid)] = slot + 1;
  }

  /** Removes the row (present), while its slot still holds its rowid. */
  delete(rowid: number): void {
    const mask = this.table.length - 1;
    let hole = this.find(rowid);
    this.count--;
    // backward shift: pull later entries of the probe run into the hole when their home allows it
    for (let i = (hole + 1) & mask; this.table[i] !== 0; i = (i + 1) & mask) {
      const home = this.home(this.rows.rowidOf(this.table[i]! - 1));
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        this.table[hole] = this.table[i]!;
        hole = i;
      }
    }
    this.table[hole] = 0;
    if (this.table.length > 8 && 8 * this.count < this.table.length) this.rehash(this.table.length / 2);
  }

  /** Bytes held (the table). */
  bytes(): number {
    return this.table.byteLength;
  }

  /** Fibonacci hashing of the rowid's two 32-bit halves: the product's top bits. */
  private home(rowid: number): number {
    return Math.imul((rowid | 0) ^ Math.imul((rowid / 4294967296) | 0, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }

  private find(rowid: number): number {
    const mask = this.table.length - 1;
    for (let i = this.home(rowid); ; i = (i + 1) & mask) {
      const entry = this.table[i]!;
      if (entry === 0) return -1;
      if (this.rows.rowidOf(entry - 1) === rowid) return i;
    }
  }

  private free(rowid: number): number {
    const mask = this.table.length - 1;
    let i = this.home(rowid);
    while (this.table[i] !== 0) i = (i + 1) & mask;
    return i;
  }

  private rehash(length: number): void {
    const old = this.table;
    this.table = new Int32Array(length);
    this.shift = 32 - Math.log2(length);
    for (const entry of old) if (entry !== 0) this.table[this.free(this.rows.rowidOf(entry - 1))] = entry;
  }
}
