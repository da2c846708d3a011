/**
 * A wallet's distinct tag sets, flattened into arrays the scan thread can read (SharedArrayBuffers):
 * set n's tag ids (interned) are list[starts[n - 1] … starts[n]). Rows name their set by number in a
 * column (0: no tags), so rows with the same tags share one entry. Append-only while the wallet is
 * cached: a set no row uses any more stays (a reload drops it).
 */
export class TagSets {
  /** starts[n] is where set n + 1 begins; starts[0] = 0 */
  starts: Int32Array;
  list: Int32Array;
  private count = 0;
  private readonly byJson = new Map<string, number>();

  constructor(private readonly shared: (length: number) => Int32Array) {
    this.starts = shared(16);
    this.list = shared(64);
  }

  /** The number of the set written as `json` (the row's tags JSON), added from `ids()` when new. */
  numberOf(json: string, ids: () => number[]): number {
    const known = this.byJson.get(json);
    if (known !== undefined) return known;
    const tags = ids();
    const from = this.starts[this.count]!;
    if (this.count + 2 > this.starts.length) this.starts = this.grown(this.starts, this.count + 2);
    if (from + tags.length > this.list.length) this.list = this.grown(this.list, from + tags.length);
    this.list.set(tags, from);
    this.starts[this.count + 1] = from + tags.length;
    this.byJson.set(json, ++this.count);
    return this.count;
  }

  /** Bytes held: the two arrays and the map from JSON (an entry ~48 bytes plus its string). */
  bytes(): number {
    let bytes = this.starts.byteLength + this.list.byteLength;
    for (const json of this.byJson.keys()) bytes += 48 + 32 + json.length;
    return bytes;
  }

  /** A copy at least `length` long (doubling: sets are few next to rows); readers of the old one keep it whole. */
  private grown(old: Int32Array, length: number): Int32Array {
    const next = this.shared(Math.max(length, old.length * 2));
    next.set(old);
    return next;
  }
}
