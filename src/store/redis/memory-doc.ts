import type { Memory } from "../../domain/memory";
import { indexTerms } from "../../domain/text";
import { NO, tagForm, YES } from "./query";

/** "No expiry" as a NUMERIC value: the largest ECMAScript date, so `@expires_at:[(now +inf]` keeps it. */
export const NEVER = 8_640_000_000_000_000;

/** Slots for the insertion sequence inside one millisecond of `order` (see `orderKey`). */
const SEQ_SLOTS = 1024;

/**
 * One memory as a RedisJSON document. `m` is the record exactly as the domain gave it (and as
 * it is returned); the other fields exist for the index:
 *
 *   text       the content as the domain's index terms (normalized, accent-free, stemmed), so
 *              BM25 sees exactly the tokens the sqlite engine's indexes see
 *   hash       normalized-content hash (exact-duplicate lookup)
 *   ix         scalars for the index and for ranking: epoch-ms timestamps, two-state tags, and a
 *              copy of the record's other ranking fields (memory_type, importance, access_count),
 *              so all a search hit's ranking reads is one JSON path (redis-store.ts REF_PATH says
 *              why). Documents written before the copy lack it (readers then fall back to `m`).
 *   seq        insertion sequence number; `order` = created ms with the sequence as tie-breaker
 *   embedding  the vector as a JSON number array (FLOAT32 in the index)
 *   vec        the same vector as base64 of its FLOAT32 bytes, for reading it back: RedisJSON formats
 *              a number array as JSON text on every read (measured: 40 vectors of 100 numbers in a
 *              JSON.MGET 0.27 ms, as strings 0.07 ms), a string it just copies. Null when
 *              `embedding` is; absent in documents written before it existed (readers then fall
 *              back to `embedding`).
 *
 * `hash`, `seq`, `order`, `embedding` and `vec` come last: an update that keeps them splices them back
 * on the server (scripts.ts), so the document is always rewritten whole, in one command.
 */
export interface MemoryDoc {
  m: Memory;
  text: string;
  ix: IndexFields;
  hash: string;
  seq: number;
  order: number;
  embedding: number[];
  vec: string;
}

/** The record's fields ranking reads that `ix` copies (see `ix` above). */
export type RankingFields = Pick<Memory, "memory_type" | "importance" | "access_count">;

/**
 * Values the index reads, user strings in their TAG form (query.ts tagForm), and the ranking fields
 * a search hit is read with (optional: absent in documents written before them).
 */
export interface IndexFields extends Partial<RankingFields> {
  user_id: string;
  namespace: string;
  session_id: string | null;
  agent_id: string | null;
  tags: string[];
  created: number;
  expires: number;
  deleted: string;
  pinned: string;
}

export function indexFields(memory: Memory): IndexFields {
  const orNull = (value: string | null) => (value === null ? null : tagForm(value));
  return {
    user_id: memory.user_id,
    namespace: tagForm(memory.namespace),
    session_id: orNull(memory.session_id),
    agent_id: orNull(memory.agent_id),
    tags: (memory.metadata.tags ?? []).map(tagForm),
    created: Date.parse(memory.created_at),
    expires: expiresMs(memory) ?? NEVER,
    deleted: memory.deleted_at === null ? NO : YES,
    pinned: memory.pinned ? YES : NO,
    memory_type: memory.memory_type,
    importance: memory.importance,
    access_count: memory.access_count,
  };
}

export function expiresMs(memory: Pick<Memory, "expires_at">): number | null {
  return memory.expires_at === null ? null : Date.parse(memory.expires_at);
}

/** Newest-first sort key: creation ms, then insertion order within the same millisecond. */
export function orderKey(createdMs: number, seq: number): number {
  return createdMs * SEQ_SLOTS + (seq % SEQ_SLOTS);
}

/** Names the form of `text` below; a store whose documents have another form rewrites them at start-up. */
export const TEXT_FORM = "index-terms-porter2";

/** The indexed text: the domain's stemmed tokens (the index itself does no stemming: NOSTEM). */
export const searchText = (content: string) => indexTerms(content).join(" ");

export function toDoc(memory: Memory, embedding: Float32Array, contentHash: string, seq: number): MemoryDoc {
  const ix = indexFields(memory);
  return {
    m: memory,
    text: searchText(memory.content),
    ix,
    hash: contentHash,
    seq,
    order: orderKey(ix.created, seq),
    embedding: Array.from(embedding),
    vec: vectorBase64(embedding),
  };
}

/**
 * The leading part of a document for an update, as JSON text without its closing brace: the
 * server appends `hash`, `seq`, `order`, `embedding` and `vec` (the kept or the new ones) and the brace.
 */
export function docHead(memory: Memory): string {
  const head = docJson({ m: memory, text: searchText(memory.content), ix: indexFields(memory) });
  return head.slice(0, -1);
}

/**
 * JSON text for RedisJSON, which rejects lone UTF-16 surrogates (`"\ud800"`) that JavaScript
 * strings may hold: those become U+FFFD, as any UTF-8 store would store them.
 */
export function docJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "string") return v.toWellFormed();
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const keys = Object.keys(v);
    if (keys.every((k) => k.isWellFormed())) return v;
    return Object.fromEntries(keys.map((k) => [k.toWellFormed(), (v as Record<string, unknown>)[k]]));
  });
}

export const vectorJson = (embedding: Float32Array) => JSON.stringify(Array.from(embedding));

export const vectorBlob = (embedding: Float32Array) => Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength);

/** `vec` of a document (the FLOAT32 bytes, in this machine's byte order as the index's query blobs). */
export const vectorBase64 = (embedding: Float32Array) => vectorBlob(embedding).toString("base64");

/**
 * A `vec` read back; null for a vector that was cleared. `Uint8Array.fromBase64` decodes into a
 * buffer of its own, which the floats then view without a copy (a Buffer may sit at any offset of a
 * shared pool, so it had to be copied out: 3× slower, and a recall decodes up to a hundred vectors).
 */
export function fromBase64(vec: string | null): Float32Array | null {
  if (vec === null) return null;
  return new Float32Array(decodeBase64(vec).buffer);
}

/** ES2026 `Uint8Array.fromBase64` (Bun has it; TypeScript's ESNext library does not declare it yet). */
const decodeBase64 = (text: string) => (Uint8Array as unknown as { fromBase64(text: string): Uint8Array<ArrayBuffer> }).fromBase64(text);

export const toVector = (values: number[]) => Float32Array.from(values);
