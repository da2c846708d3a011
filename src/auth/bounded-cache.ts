/**
 * A least-recently-used map with a fixed number of entries, each valid until its own expiry.
 * Map keeps insertion order, so re-inserting on a hit makes the oldest entry the first key: both
 * get and set are O(1) and memory stays bounded whatever clients send.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(readonly maxEntries: number) {
    if (!(maxEntries >= 1)) throw new RangeError("maxEntries must be at least 1");
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value while `now` is before its expiry (an expired entry is dropped). */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (now >= entry.expiresAt) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
