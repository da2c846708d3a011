import { LIMITS, type Memory, type Metadata } from "./memory";
import { bigramOverlap, cosine, words } from "./text";

/** A candidate to store, after validation and embedding. */
export interface Candidate {
  memory: Memory;
  embedding: Float32Array;
  content_hash: string;
}

/**
 * Half the word pairs, and every word with a digit, must be shared on top of the cosine: embeddings that pool words ignore order,
 * so "User prefers tabs over spaces" and "User prefers spaces over tabs" have cosine 1. A missed
 * duplicate costs one extra memory; a wrong merge silently loses a fact, so the test errs strict.
 */
export const MIN_BIGRAM_OVERLAP = 0.5;

export function isNearDuplicate(a: string, b: string, similarity: number, threshold: number): boolean {
  return similarity >= threshold && bigramOverlap(a, b) >= MIN_BIGRAM_OVERLAP && sameFigures(a, b);
}

/**
 * Words with a digit (versions, amounts, dates, ids, keys) carry the fact: "Postgres 15" is not
 * "Postgres 16", and an embedding model may not even know such tokens. They must match exactly.
 */
function sameFigures(a: string, b: string): boolean {
  const figures = (text: string) => [...new Set(words(text).filter((w) => /\p{N}/u.test(w)))].sort().join(" ");
  return figures(a) === figures(b);
}

/** Is `b` a duplicate of `a`? Same namespace, and the same normal form or near-duplicate text. */
export function isDuplicate(a: Candidate, b: Candidate, threshold: number): boolean {
  if (a.memory.namespace !== b.memory.namespace) return false;
  if (a.content_hash === b.content_hash) return true;
  return isNearDuplicate(a.memory.content, b.memory.content, cosine(a.embedding, b.embedding), threshold);
}

/**
 * Folds a duplicate into the memory it duplicates. The existing memory keeps its id, content and
 * created_at; it takes the higher importance, the union of tags (the first 10), the incoming metadata
 * keys over its own (when the result still fits the metadata limits; otherwise its own metadata stays),
 * pinned if either is pinned, and the later expiry (none if either has none). Immutable memories are
 * never changed: the duplicate is simply dropped.
 */
export function merge(existing: Memory, incoming: Memory, now: string): Memory {
  if (existing.immutable) return existing;
  const tags = [...new Set([...(existing.metadata.tags ?? []), ...(incoming.metadata.tags ?? [])])].slice(0, LIMITS.tags);
  const combined: Metadata = { ...existing.metadata, ...incoming.metadata, ...(tags.length ? { tags } : {}) };
  const fits = Object.keys(combined).length <= LIMITS.metadataKeys && Buffer.byteLength(JSON.stringify(combined)) <= LIMITS.metadataBytes;
  return {
    ...existing,
    importance: Math.max(existing.importance, incoming.importance),
    metadata: fits ? combined : existing.metadata,
    pinned: existing.pinned || incoming.pinned,
    expires_at: laterExpiry(existing.expires_at, incoming.expires_at),
    updated_at: now,
  };
}

function laterExpiry(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return null;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
