/**
 * The key layout under one prefix (default `engram:`), version LAYOUT_VERSION. Every key of a
 * wallet carries the wallet's user id as a hash tag (`{u}`), so on Redis Cluster one wallet lives
 * in one slot: every Lua script and MULTI of a wallet touches one slot, and a wallet's search runs
 * on the one master holding it.
 *
 *   {p}meta                  hash: embedding_model, embedding_dimension, index_schema, text_form,
 *                            session_secret, layout (global: its own slot)
 *   {p}idx:memories          the RediSearch index (ON JSON PREFIX 1 {p}mem:); on a cluster one per master
 *   {p}mem:{u}:{id}          JSON: one memory (see memory-doc.ts); PEXPIREAT = expires_at
 *   {p}mem:{u}:{id}:out      zset: ids of relations whose source is the memory, scored by creation ms
 *   {p}mem:{u}:{id}:in       zset: ids of relations whose target is the memory
 *   {p}mem:{u}:{id}:history  list: history entries (JSON), oldest first
 *   {p}rel:{u}:{id}          hash: one relation (user_id, source_id, target_id, relation_type, metadata, created_at)
 *   {p}seq:{u}               counter: the wallet's insertion sequence (ties in "newest first")
 *   {p}access:{u}            hash: memory id → "{access_count} {accessed_at}" once the memory was recalled
 *                            (kept out of the indexed document: see scripts.ts RECORD_ACCESS)
 *   {p}wallet:{address}      hash: user_id, free_calls_used
 *   {p}nonce:{key}           string: the x402 replay guard's claim of a payment authorization
 *                            (src/billing/replay-guard.ts), expiring (PX) once it can no longer settle
 *
 * (`{u}` is literal: braces around the user id; `{id}` and `{address}` stand for the values.)
 *
 * The wallet hash is the one key of a wallet outside its slot: it is how the user id is found
 * from the address, so it cannot be addressed by that id. Every command on it touches it alone
 * (the free-call count is a script over that one key), so it stays atomic in whatever slot the
 * address hashes to.
 *
 * The per-memory side keys share the memory's expiry, so an expired memory leaves nothing of its
 * own behind. They live under the index prefix too; the index is ON JSON, so Redis keys of other
 * types under `{p}mem:` are not documents. A prefix that itself holds `{…}` puts every key in
 * that one slot: still correct, but a cluster then cannot spread the wallets.
 */
export const LAYOUT_VERSION = "2";

export class Keys {
  readonly index: string;
  readonly memoryPrefix: string;
  readonly meta: string;

  constructor(readonly prefix: string) {
    this.index = `${prefix}idx:memories`;
    this.memoryPrefix = `${prefix}mem:`;
    this.meta = `${prefix}meta`;
  }

  /** A key in the wallet's slot, for routing commands that name no key (FT.SEARCH, WAIT). */
  slot(userId: string): string {
    return tag(userId);
  }
  /** What precedes a memory id in the user's document keys (scripts reach the other end of a relation by it). */
  memoriesOf(userId: string): string {
    return `${this.memoryPrefix}${tag(userId)}:`;
  }
  /** What precedes a relation id in the user's relation keys. */
  relationsOf(userId: string): string {
    return `${this.prefix}rel:${tag(userId)}:`;
  }
  memory(userId: string, id: string): string {
    return this.memoriesOf(userId) + id;
  }
  out(userId: string, memoryId: string): string {
    return `${this.memory(userId, memoryId)}:out`;
  }
  in(userId: string, memoryId: string): string {
    return `${this.memory(userId, memoryId)}:in`;
  }
  history(userId: string, memoryId: string): string {
    return `${this.memory(userId, memoryId)}:history`;
  }
  relation(userId: string, id: string): string {
    return this.relationsOf(userId) + id;
  }
  seq(userId: string): string {
    return `${this.prefix}seq:${tag(userId)}`;
  }
  access(userId: string): string {
    return `${this.prefix}access:${tag(userId)}`;
  }
  wallet(address: string): string {
    return `${this.prefix}wallet:${address.toLowerCase()}`;
  }
  /** A payment authorization's claim: its own key, in whatever slot it hashes to (every command on it touches it alone). */
  paymentNonce(key: string): string {
    return `${this.prefix}nonce:${key}`;
  }

  /** SCAN pattern for memory documents (and their side keys: filter by TYPE). */
  memoryScanPattern(): string {
    return `${globEscape(this.memoryPrefix)}*`;
  }

  /** SCAN pattern for wallet records. */
  walletScanPattern(): string {
    return `${globEscape(this.prefix)}wallet:*`;
  }

  /** The address of a wallet record key, or null for another key. */
  walletAddressOf(key: string): string | null {
    const prefix = `${this.prefix}wallet:`;
    return key.startsWith(prefix) ? key.slice(prefix.length) : null;
  }

  /** The user id and memory id of a document key, or null for side keys, legacy keys and foreign keys. */
  documentOf(key: string): { userId: string; id: string } | null {
    if (!key.startsWith(`${this.memoryPrefix}{`)) return null;
    const close = key.indexOf("}:", this.memoryPrefix.length);
    if (close < 0) return null;
    const userId = key.slice(this.memoryPrefix.length + 1, close);
    const id = key.slice(close + 2);
    return isRecordId(id) && !/[{}]/.test(userId) ? { userId, id } : null;
  }
}

/**
 * The keys of layout 1, where nothing carried a hash tag: read only by the start-up migration to
 * the current layout (layout.ts), which runs on a standalone server (layout 1 never ran on a cluster).
 */
export class LegacyKeys {
  readonly seq: string;
  constructor(private readonly prefix: string) {
    this.seq = `${prefix}seq`;
  }
  memory(id: string): string {
    return `${this.prefix}mem:${id}`;
  }
  sideKeys(id: string): [out: string, inc: string, history: string] {
    const key = this.memory(id);
    return [`${key}:out`, `${key}:in`, `${key}:history`];
  }
  relation(id: string): string {
    return `${this.prefix}rel:${id}`;
  }
  access(userId: string): string {
    return `${this.prefix}access:${userId}`;
  }
  /** SCAN patterns of layout 1's per-memory keys, relation records and access hashes (no `{` after the type). */
  memoryScanPattern(): string {
    return `${globEscape(this.prefix)}mem:[^{]*`;
  }
  relationScanPattern(): string {
    return `${globEscape(this.prefix)}rel:[^{]*`;
  }
  accessScanPattern(): string {
    return `${globEscape(this.prefix)}access:[^{]*`;
  }
  /** The memory id of a layout 1 document key, or null for its side keys and other keys. */
  memoryIdOf(key: string): string | null {
    return this.idAfter(key, "mem:");
  }
  relationIdOf(key: string): string | null {
    return this.idAfter(key, "rel:");
  }
  accessUserOf(key: string): string | null {
    return this.idAfter(key, "access:");
  }
  private idAfter(key: string, type: string): string | null {
    const head = this.prefix + type;
    if (!key.startsWith(head) || key[head.length] === "{") return null;
    const id = key.slice(head.length);
    return isRecordId(id) ? id : null;
  }
}

/**
 * The hash tag of a user. User ids are generated UUIDs; one with a brace would end the tag early
 * (Redis hashes the text between the first `{` and the next `}`), so it is refused.
 */
function tag(userId: string): string {
  if (/[{}]/.test(userId)) throw new Error(`user id ${JSON.stringify(userId)} holds a brace: it cannot be a hash tag`);
  return `{${userId}}`;
}

/**
 * Record ids are generated UUIDs. One with a `:` could name a side key (`{id}:out`) instead of a
 * document, so such ids are treated as unknown rather than looked up.
 */
export function isRecordId(id: string): boolean {
  return id.length > 0 && !id.includes(":");
}

/** Escapes the glob characters of SCAN MATCH. */
export function globEscape(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}
