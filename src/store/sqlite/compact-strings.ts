/**
 * Per-slot string columns of the vector index's cache (wallet-cache.ts) kept without a JS string per
 * row. At a million cached rows a memory id (36 characters) cost ~76 bytes as a string in an array
 * and a created_at (24) ~64; most of them have a canonical form the cache can rebuild exactly:
 *
 * - ids the service makes are lower-case UUIDs: 16 bytes per slot in one Uint8Array;
 * - created_at is written as `Date.toISOString()`: rebuilt from the instant the cache keeps anyway.
 *
 * A value without that form (imported data, a hand-edited row) is kept as given in a map by slot,
 * so `get` always returns the stored text, character for character.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
/** a byte's two hex digits as character codes, the first in the high byte */
const HEX_CODES = Uint16Array.from(HEX, (h) => (h.charCodeAt(0) << 8) | h.charCodeAt(1));
/** IdColumn.get's scratch: a UUID's text with its dashes, and where each byte's digits go */
const ID_TEXT = Buffer.from("00000000-0000-0000-0000-000000000000", "latin1");
const ID_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * The values of the slots whose value has no compact form, kept as given. Created with the first
 * such value: most wallets have none, and each object a cached wallet holds costs it ~30–60 bytes.
 */
class Verbatim {
  private readonly bySlot = new Map<number, string>();

  get size(): number {
    return this.bySlot.size;
  }

  get(slot: number): string | undefined {
    return this.bySlot.get(slot);
  }

  set(slot: number, value: string): void {
    this.bySlot.set(slot, value);
  }

  delete(slot: number): void {
    this.bySlot.delete(slot);
  }

  /** Slot `to` takes slot `from`'s value, or none. */
  move(from: number, to: number): void {
    const value = this.get(from);
    if (value !== undefined) this.set(to, value);
    else this.delete(to);
  }
}

/** Memory ids by slot: canonical lower-case UUIDs packed as 16 bytes, others as strings. */
export class IdColumn {
  private packed: Uint8Array;
  private others: Verbatim | null = null;

  constructor(capacity: number) {
    this.packed = new Uint8Array(capacity * 16);
  }

  /** Grows to `capacity` slots, keeping the values. */
  reserve(capacity: number): void {
    if (capacity * 16 <= this.packed.length) return;
    const next = new Uint8Array(capacity * 16);
    next.set(this.packed);
    this.packed = next;
  }

  set(slot: number, id: string): void {
    if (!UUID.test(id)) {
      (this.others ??= new Verbatim()).set(slot, id);
      return;
    }
    this.others?.delete(slot);
    const base = slot * 16;
    for (let i = 0, at = 0; i < 16; i++, at += 2) {
      if (id.charCodeAt(at) === 45) at++; // "-"
      this.packed[base + i] = parseInt(id.slice(at, at + 2), 16);
    }
  }

  get(slot: number): string {
    const other = this.others?.get(slot);
    if (other !== undefined) return other;
    // written into a buffer and read as one string: a search rebuilds the id of every hit (a
    // template of 21 parts built the string from ~10 intermediate ones, at 2–3x the time)
    const p = this.packed;
    const b = slot * 16;
    for (let i = 0; i < 16; i++) {
      const code = HEX_CODES[p[b + i]!]!;
      ID_TEXT[ID_AT[i]!] = code >> 8;
      ID_TEXT[ID_AT[i]! + 1] = code & 0xff;
    }
    return ID_TEXT.toString("latin1", 0, 36);
  }

  /** Copies slot `from` to `to` (the cache fills a hole with its last row). */
  move(from: number, to: number): void {
    this.packed.copyWithin(to * 16, from * 16, from * 16 + 16);
    this.others?.move(from, to);
  }

  /** The slot is vacant now. */
  clear(slot: number): void {
    this.others?.delete(slot);
  }

  /** Approximate bytes held (the packed column, plus ~80 per id kept as a string). */
  bytes(): number {
    return this.packed.byteLength + (this.others?.size ?? 0) * 80;
  }
}

/** created_at texts by slot, given each slot's instant (Date.parse of the text): only non-canonical texts are kept. */
export class TimestampColumn {
  private others: Verbatim | null = null;

  set(slot: number, text: string, ms: number): void {
    if (Number.isFinite(ms) && new Date(ms).toISOString() === text) this.others?.delete(slot);
    else (this.others ??= new Verbatim()).set(slot, text);
  }

  get(slot: number, ms: number): string {
    return this.others?.get(slot) ?? new Date(ms).toISOString();
  }

  move(from: number, to: number): void {
    this.others?.move(from, to);
  }

  clear(slot: number): void {
    this.others?.delete(slot);
  }

  /** Approximate bytes held (~70 per text kept). */
  bytes(): number {
    return (this.others?.size ?? 0) * 70;
  }
}
