/**
 * A wallet cache's interned strings (namespaces, sessions, agents, memory types, tags, tag sets) as
 * small ints, numbered from 0 in order of first use. A wallet usually has a handful: they are found
 * by a scan of the list, and a Map is built only past MAP_FROM names (an empty Map alone cost ~140
 * bytes, ~1 KB with 8 entries, per wallet).
 */
const MAP_FROM = 64;

/**
 * One instance of each name for every wallet: the same namespaces, memory types, agents and tags
 * recur across wallets, and each wallet kept its own copy, read from its rows (~50–70 bytes a
 * string, ~25 per 20-memory wallet). Bounded: past SHARED_MAX names it starts over (a name seen
 * again is then shared anew; the wallets keep what they hold).
 */
const SHARED_MAX = 16_384;
let shared = new Map<string, string>();
function sharedName(name: string): string {
  const known = shared.get(name);
  if (known !== undefined) return known;
  if (shared.size >= SHARED_MAX) shared = new Map();
  shared.set(name, name);
  return name;
}

export class InternedNames {
  private readonly names: string[] = [];
  private index: Map<string, number> | null = null;

  get size(): number {
    return this.names.length;
  }

  /** The name's number, or undefined when it was never interned. */
  idOf(name: string): number | undefined {
    if (this.index) return this.index.get(name);
    const id = this.names.indexOf(name);
    return id < 0 ? undefined : id;
  }

  /** The name's number, a new one when it is new. */
  intern(name: string): number {
    const known = this.idOf(name);
    if (known !== undefined) return known;
    const id = this.names.length;
    this.names.push(sharedName(name));
    if (this.index) this.index.set(name, id);
    else if (this.names.length > MAP_FROM) this.index = new Map(this.names.map((n, i) => [n, i]));
    return id;
  }

  nameOf(id: number): string {
    return this.names[id]!;
  }

  /** Approximate bytes held: ~16 per name (its place in the list: the strings are shared), ~80 more per name once indexed. */
  bytes(): number {
    return (this.index ? 96 : 16) * this.names.length;
  }
}
