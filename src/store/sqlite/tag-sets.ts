import { InternedNames } from "./interned-names";

/** What a wallet without tags holds: never written (the first set allocates the wallet's own). */
const NO_STARTS = new Int32Array(1);
const NO_LIST = new Int32Array(0);

/**
 * A wallet's distinct tag sets, flattened into arrays the scan thread can read (SharedArrayBuffers,
 * once the wallet is large enough to be scanned there): set n's tag ids (interned) are
 * list[starts[n - 1] … starts[n]). Rows name their set by number in a column (0: no tags), so rows
 * with the same tags share one entry. Append-only while the wallet is cached: a set no row uses any
 * more stays (a reload drops it).
 */
export class TagSets {
  /** starts[n] is where set n + 1 begins; starts[0] = 0 */
  starts: Int32Array = NO_STARTS;
  list: Int32Array = NO_LIST;
  private count = 0;
  /** set number − 1 by the row's tags JSON */
  private byJson: InternedNames | null = null;

  /** `owner.tagColumn` makes the arrays (SharedArrayBuffers or not: see reallocate). */
  constructor(private readonly owner: { tagColumn(length: number): Int32Array }) {}

  /** The number of the set written as `json` (the row's tags JSON), added from `ids()` when new. */
  numberOf(json: string, ids: () => number[]): number {
    const known = this.byJson?.idOf(json);
    if (known !== undefined) return known + 1;
    const tags = ids();
    const from = this.starts[this.count]!;
    if (this.count + 2 > this.starts.length) this.starts = this.grown(this.starts, this.count + 2);
    if (from + tags.length > this.list.length) this.list = this.grown(this.list, from + tags.length);
    this.list.set(tags, from);
    this.starts[this.count + 1] = from + tags.length;
    (this.byJson ??= new InternedNames()).intern(json);
    return ++this.count;
  }

  /** Copies the arrays into new ones from `alloc` (the wallet's columns moved to SharedArrayBuffers). */
  reallocate(): void {
    if (this.count === 0) return; // the empty arrays are never written nor sent
    this.starts = this.copy(this.starts, this.starts.length);
    this.list = this.copy(this.list, this.list.length);
  }

  /** Bytes held: the two arrays and the JSON texts. */
  bytes(): number {
    return this.count === 0 ? 0 : this.starts.byteLength + this.list.byteLength + this.byJson!.bytes();
  }

  /** A copy at least `length` long (doubling: sets are few next to rows); readers of the old one keep it whole. */
  private grown(old: Int32Array, length: number): Int32Array {
    return this.copy(old, Math.max(length, old.length * 2));
  }

  private copy(old: Int32Array, length: number): Int32Array {
    const next = this.owner.tagColumn(length);
    next.set(old);
    return next;
  }
}
