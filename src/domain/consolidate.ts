import { t } from "elysia";
import type { MemoryFilter, MemoryStore } from "./store-port";
import type { Memories } from "./memories";
import type { Memory } from "./memory";
import type { Relation } from "./relation";
import type { Clock } from "./ports";
import { isDuplicate, merge, mergeDropped, type Candidate } from "./dedup";
import { contentHash, cosine } from "./text";

/** Memories examined per call, newest first (clustering compares pairs): bounds the cost for very large wallets. */
export const CONSOLIDATE_SCAN_LIMIT = 5000;

export const ConsolidatedCluster = t.Object({
  memory_ids: t.Array(t.String(), { description: "the memory kept first, then those folded into it" }),
  similarity: t.Number({ description: "the lowest cosine between the kept memory and another member" }),
  merged_into: t.String({ description: "the id of the memory kept" }),
});

/**
 * Finds clusters of duplicates among a wallet's memories and (unless `dry_run`) merges each into
 * one memory. Membership is the store path's dedup rule exactly (dedup.ts isDuplicate: same
 * namespace, and the same text or a cosine ≥ the threshold *and* the same fact signature), always
 * tested against the cluster's kept memory, never by chaining, so different facts are never merged
 * whatever `min_similarity` a client sends. The kept memory is the pinned or immutable one first,
 * then the most important, then the oldest; the others fold into it as a duplicate store would
 * (dedup.ts merge: higher importance, union of tags…) and are soft-deleted. An immutable memory
 * is never folded into another, and one that is kept is not changed; a memory whose tags or
 * metadata the kept one could not hold is not folded (joinedCluster). The relations of the folded
 * memories move to the kept one (see moveRelations).
 */
export async function consolidate(
  store: MemoryStore,
  memories: Memories,
  clock: Clock,
  userId: string,
  request: { filter: MemoryFilter; min_similarity: number; dry_run: boolean },
) {
  const { memories: found } = await memories.list(userId, request.filter, { limit: CONSOLIDATE_SCAN_LIMIT, offset: 0 });
  const vectors = await store.embeddings(userId, found.map((m) => m.id));
  const candidates: Candidate[] = found
    .filter((m) => vectors.has(m.id))
    .map((memory) => ({ memory, embedding: vectors.get(memory.id)!, content_hash: contentHash(memory.content) }))
    .sort(keeperFirst);
  const now = new Date(clock()).toISOString();
  /** `merged`: the head with its members folded in so far */
  const clusters: { head: Candidate; members: Candidate[]; merged: Memory }[] = [];
  for (const candidate of candidates) {
    const joined = candidate.memory.immutable ? undefined : joinedCluster(clusters, candidate, request.min_similarity, now);
    if (joined) {
      joined.cluster.members.push(candidate);
      joined.cluster.merged = joined.merged;
    } else clusters.push({ head: candidate, members: [], merged: candidate.memory });
  }
  const merging = clusters.filter((c) => c.members.length > 0);
  if (!request.dry_run) {
    for (const { head, members, merged } of merging) {
      if (merged !== head.memory) await store.updateMemory(userId, { memory: merged });
      await moveRelations(store, userId, head.memory.id, members.map((m) => m.memory.id), clock());
      await memories.deleteMany(userId, members.map((m) => m.memory.id));
    }
  }
  const details = merging.map(({ head, members }) => ({
    memory_ids: [head.memory.id, ...members.map((m) => m.memory.id)],
    similarity: Math.min(...members.map((m) => round(cosine(head.embedding, m.embedding)))),
    merged_into: head.memory.id,
  }));
  return { clusters: details, merged: details.reduce((n, d) => n + d.memory_ids.length - 1, 0), examined: candidates.length };
}

/**
 * The first cluster `candidate` duplicates and can fold into whole, with the merge it makes there. A
 * member that brings more than the kept memory can hold (past 10 tags, or metadata past its limits)
 * stays a memory of its own rather than losing them when it is soft-deleted.
 */
function joinedCluster<C extends { head: Candidate; merged: Memory }>(clusters: C[], candidate: Candidate, minSimilarity: number, now: string) {
  for (const cluster of clusters) {
    if (!isDuplicate(cluster.head, candidate, minSimilarity)) continue;
    const merged = merge(cluster.merged, candidate.memory, now);
    const dropped = mergeDropped(merged, candidate.memory);
    if (dropped === null || (dropped.tags.length === 0 && dropped.metadata_keys.length === 0)) return { cluster, merged };
  }
  return undefined;
}

/**
 * Gives the kept memory the relations of the memories folded into it: each relation of a folded
 * memory whose other end is active is recreated with the folded end replaced by `keptId` (same type,
 * metadata and created_at, a new id), unless that makes it a self-loop (a link inside the cluster)
 * or the kept memory already has a relation with the same source, target and type. The originals
 * stay with the folded memories, which are soft-deleted next, so they are no longer listed, like the
 * relations of any deleted memory (inside a paid call the store cannot delete a relation). Clusters
 * are handled one after another, so a relation between two clusters ends up between their kept memories.
 */
async function moveRelations(store: MemoryStore, userId: string, keptId: string, foldedIds: string[], now: number): Promise<void> {
  const folded = new Set(foldedIds);
  const moved = (id: string) => (folded.has(id) ? keptId : id);
  const key = (r: Pick<Relation, "source_id" | "target_id" | "relation_type">) => `${r.source_id} ${r.target_id} ${r.relation_type}`;
  const present = new Set((await store.relationsOf(userId, keptId, now)).map(key));
  for (const id of foldedIds) {
    for (const relation of await store.relationsOf(userId, id, now)) {
      const copy: Relation = { ...relation, id: crypto.randomUUID(), source_id: moved(relation.source_id), target_id: moved(relation.target_id) };
      if (copy.source_id === copy.target_id || present.has(key(copy))) continue;
      present.add(key(copy));
      await store.createRelation(userId, copy);
    }
  }
}

const round = (x: number) => Math.round(Math.min(1, x) * 1000) / 1000;

/** The memory a cluster keeps: pinned or immutable first, then the most important, then the oldest. */
function keeperFirst(a: Candidate, b: Candidate): number {
  const locked = (m: Memory) => (m.pinned || m.immutable ? 1 : 0);
  return locked(b.memory) - locked(a.memory) || b.memory.importance - a.memory.importance || a.memory.created_at.localeCompare(b.memory.created_at);
}
