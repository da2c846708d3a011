import { isDeepStrictEqual } from "node:util";
import { t, type Static } from "elysia";
import { LIMITS, type Memory, type Metadata } from "./memory";
import { cosine } from "./text";
import { sameFacts, sameSurface } from "./fact-signature";

/** A candidate to store, after validation and embedding. */
export interface Candidate {
  memory: Memory;
  embedding: Float32Array;
  content_hash: string;
}

/**
 * How many nearest existing memories a new one is checked against. Pooled embeddings give the
 * same cosine to texts that differ only in word order or in one fact word, so the single nearest
 * may be the near-miss ("… spaces over tabs") while the true duplicate ties with it just behind.
 */
export const DEDUP_NEIGHBOURS = 5;

/**
 * The exact-duplicate test: the same words and symbols, up to case, accents, spacing and
 * punctuation. Callers look candidates up by content hash first (it is indexed), but the hash
 * reads only letters and digits, so "C++" and "C#", or "$5" and "€5", share one: this tells them apart.
 */
export function isExactDuplicate(existing: string, incoming: string): boolean {
  return sameSurface(existing, incoming);
}

/**
 * The near-duplicate test: embeddings close enough (cosine ≥ threshold) *and* the same fact
 * signature (see fact-signature.ts). The cosine alone merges "… about zebras" with "… about
 * giraffes", "Postgres 15" with "Postgres 16", "uses Vim" with "does not use Vim", or "tabs over
 * spaces" with "spaces over tabs" (pooled word vectors ignore order). A missed duplicate costs one
 * extra memory; a wrong merge silently loses a fact, so the test errs strict.
 */
export function isNearDuplicate(existing: string, incoming: string, similarity: number, threshold: number): boolean {
  return similarity >= threshold && sameFacts(existing, incoming);
}

/** Is `b` a duplicate of `a`? Same namespace, and an exact or a near duplicate. */
export function isDuplicate(a: Candidate, b: Candidate, threshold: number): boolean {
  if (a.memory.namespace !== b.memory.namespace) return false;
  if (a.content_hash === b.content_hash && isExactDuplicate(a.memory.content, b.memory.content)) return true;
  return isNearDuplicate(a.memory.content, b.memory.content, cosine(a.embedding, b.embedding), threshold);
}

/**
 * Folds a duplicate into the memory it duplicates. The existing memory keeps its id, content and
 * created_at; it takes the higher importance, the union of tags (the first 10), the incoming metadata
 * keys over its own (when the result still fits the metadata limits; otherwise its own metadata stays),
 * pinned or immutable if either asks for it, the later expiry (none if either has none), and the
 * incoming type, agent and session where it has none of its own (type `general`, null). Immutable
 * memories are never changed: the duplicate is simply dropped. What the merge could not keep is
 * reported by mergeDropped, never lost silently.
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
    memory_type: existing.memory_type === "general" ? incoming.memory_type : existing.memory_type,
    agent_id: existing.agent_id ?? incoming.agent_id,
    session_id: existing.session_id ?? incoming.session_id,
    pinned: existing.pinned || incoming.pinned,
    immutable: incoming.immutable, // the existing memory is not (returned above)
    expires_at: laterExpiry(existing.expires_at, incoming.expires_at),
    updated_at: now,
  };
}

/** What a duplicate asked for that its merge did not keep (mergeDropped). */
export const MergeDropped = t.Object(
  {
    tags: t.Array(t.String(), { description: "tags past the 10 a memory holds" }),
    metadata_keys: t.Array(t.String(), { description: "metadata keys not taken: the merged metadata would break its limits, or the memory is immutable" }),
    fields: t.Array(t.String(), { description: "memory_type, agent_id, session_id or pinned, where the memory kept its own value" }),
  },
  { description: "present when the duplicate was merged without some of what it carried" },
);
export type MergeDropped = Static<typeof MergeDropped>;

const FIELDS_GIVEN = {
  memory_type: (m: Memory) => m.memory_type !== "general",
  agent_id: (m: Memory) => m.agent_id !== null,
  session_id: (m: Memory) => m.session_id !== null,
  pinned: (m: Memory) => m.pinned,
} as const;

/** What `incoming` carried that `merged` (the result of folding it in) does not hold; null when nothing. */
export function mergeDropped(merged: Memory, incoming: Memory): MergeDropped | null {
  const kept = new Set(merged.metadata.tags ?? []);
  const tags = (incoming.metadata.tags ?? []).filter((tag) => !kept.has(tag));
  const metadata_keys = Object.keys(incoming.metadata).filter((key) => key !== "tags" && !isDeepStrictEqual(merged.metadata[key], incoming.metadata[key]));
  const fields = (Object.keys(FIELDS_GIVEN) as (keyof typeof FIELDS_GIVEN)[]).filter((key) => FIELDS_GIVEN[key](incoming) && merged[key] !== incoming[key]);
  return tags.length + metadata_keys.length + fields.length > 0 ? { tags, metadata_keys, fields } : null;
}

function laterExpiry(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return null;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
