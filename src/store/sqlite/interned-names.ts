/**
 * A wallet cache's interned strings (namespaces, sessions, agents, memory types, tags, tag sets) as
 * small ints, numbered from 0 in order of first use. A wallet usually has a handful: they are found
 * by a scan of the list, and a Map is built only past MAP_FROM names (an empty Map alone cost ~140
 * bytes, ~1 KB with 8 entries, per wallet).
 */
const MAP_FROM = 64;

export class InternedNames {
  private readonly names: string[] = [];
  private index: Map<string, number> | null = null;
  /** the names' characters, for bytes() */
  private chars = 0;

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
    this.names.push(name);
    this.chars += name.length;
    if (this.index) this.index.set(name, id);
    else if (this.names.length > MAP_FROM) this.index = new Map(this.names.map((n, i) => [n, i]));
    return id;
  }

  nameOf(id: number): string {
    return this.names[id]!;
  }

  /** Approximate bytes held: ~40 per name plus its characters, ~80 more per name once indexed. */
  bytes(): number {
    return (this.index ? 120 : 40) * this.names.length + this.chars;
  }
}
