/**
 * The key layout under one prefix (default `engram:`):
 *
 *   {p}meta                  hash: embedding_model, embedding_dimension, index_schema, text_form, session_secret
 *   {p}seq                   counter: insertion sequence (ties in "newest first")
 *   {p}idx:memories          the RediSearch index (ON JSON PREFIX 1 {p}mem:)
 *   {p}mem:{id}              JSON: one memory (see memory-doc.ts); PEXPIREAT = expires_at
 *   {p}mem:{id}:out          zset: ids of relations whose source is the memory, scored by creation ms
 *   {p}mem:{id}:in           zset: ids of relations whose target is the memory
 *   {p}mem:{id}:history      list: history entries (JSON), oldest first
 *   {p}rel:{id}              hash: one relation (user_id, source_id, target_id, relation_type, metadata, created_at)
 *   {p}wallet:{address}      hash: user_id, free_calls_used
 *   {p}access:{user id}      hash: memory id → "{access_count} {accessed_at}" once the memory was recalled
 *                            (kept out of the indexed document: see scripts.ts RECORD_ACCESS)
 *
 * The per-memory side keys share the memory's expiry, so an expired memory leaves nothing of
 * its own behind. They live under the index prefix too; the index is ON JSON, so Redis keys of
 * other types under `{p}mem:` are not documents.
 */
export class Keys {
  readonly index: string;
  readonly memoryPrefix: string;
  readonly relationPrefix: string;
  readonly meta: string;
  readonly seq: string;

  constructor(readonly prefix: string) {
    this.index = `${prefix}idx:memories`;
    this.memoryPrefix = `${prefix}mem:`;
    this.relationPrefix = `${prefix}rel:`;
    this.meta = `${prefix}meta`;
    this.seq = `${prefix}seq`;
  }

  memory(id: string): string {
    return this.memoryPrefix + id;
  }
  out(memoryId: string): string {
    return `${this.memoryPrefix}${memoryId}:out`;
  }
  in(memoryId: string): string {
    return `${this.memoryPrefix}${memoryId}:in`;
  }
  history(memoryId: string): string {
    return `${this.memoryPrefix}${memoryId}:history`;
  }
  relation(id: string): string {
    return this.relationPrefix + id;
  }
  wallet(address: string): string {
    return `${this.prefix}wallet:${address.toLowerCase()}`;
  }
  access(userId: string): string {
    return `${this.prefix}access:${userId}`;
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

  /** The id of a memory document key, or null for side keys and foreign keys. */
  memoryIdOf(key: string): string | null {
    if (!key.startsWith(this.memoryPrefix)) return null;
    const id = key.slice(this.memoryPrefix.length);
    return isRecordId(id) ? id : null;
  }
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
