/**
 * A seeded store for the engine-migration bench and tests, written below HTTP through the store API:
 * wallets with free-tier usage, memories with every field varied (namespaces, types, tags, scopes,
 * pins, expiries in the future and a few already past, memories created in the same millisecond as
 * a batch store makes them), random unit vectors of the model's dimension (no embedding model runs),
 * history entries from updates, soft deletions, relations and access counts.
 */
import type { MemoryStore } from "../../src/domain/store-port";
import { newMemory, MEMORY_TYPES, RELATION_TYPES, type Memory } from "../../src/domain/memory";
import { historyEntry } from "../../src/domain/history";
import { contentHash } from "../../src/domain/text";
import { int, pick, prng, type Rng } from "./synthetic";
import { sentence } from "./bench-util";

export interface SeedOptions {
  wallets: number;
  memoriesPerWallet: number;
  dimension: number;
  seed?: number;
  /** the latest creation time (ms); memories are created over the year before it */
  now?: number;
}

export interface SeededWallet {
  address: string;
  userId: string;
}

const NAMESPACES = ["default", "work", "personal", "Work"];
const TAGS = ["infra", "billing", "ux", "urgent", "later", "éclair", "with space", "a|b"];

/** A random unit vector (Gaussian coordinates, normalized). */
function unitVector(rng: Rng, dimension: number): Float32Array {
  const v = new Float32Array(dimension);
  let norm = 0;
  for (let i = 0; i < dimension; i++) {
    const g = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    v[i] = g;
    norm += g * g;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimension; i++) v[i]! /= norm;
  return v;
}

const hex = (rng: Rng, n: number) => Array.from({ length: n }, () => Math.floor(rng() * 16).toString(16)).join("");

function memoryFor(rng: Rng, userId: string, index: number, createdMs: number, now: number): Memory {
  const at = new Date(createdMs).toISOString();
  const tags = TAGS.filter(() => rng() < 0.15);
  const expiry = rng();
  return newMemory(
    {
      user_id: userId,
      content: sentence(index),
      namespace: pick(rng, NAMESPACES),
      memory_type: pick(rng, MEMORY_TYPES),
      importance: Math.round(rng() * 100) / 100,
      metadata: rng() < 0.5 ? { tags, source: "seed", n: index } : tags.length > 0 ? { tags } : {},
      session_id: rng() < 0.3 ? `s-${int(rng, 1, 5)}` : null,
      agent_id: rng() < 0.3 ? `agent-${int(rng, 1, 3)}` : null,
      pinned: rng() < 0.05,
      immutable: rng() < 0.03,
      // a few expired already (no copy keeps them), some expiring in the coming year
      expires_at: expiry < 0.01 ? new Date(now - 1000).toISOString() : expiry < 0.06 ? new Date(now + int(rng, 1, 365) * 86_400_000).toISOString() : null,
    },
    at,
  );
}

/** Fills `store` (bound to a model of `dimension`); returns the wallets in creation order. */
export async function seedStore(store: MemoryStore, options: SeedOptions): Promise<SeededWallet[]> {
  const rng = prng(options.seed ?? 42);
  const now = options.now ?? Date.now();
  const wallets: SeededWallet[] = [];
  for (let w = 0; w < options.wallets; w++) {
    const address = `0x${hex(rng, 40)}`;
    const userId = await store.userIdForWallet(address);
    wallets.push({ address, userId });
    for (let i = int(rng, 0, 12); i > 0; i--) await store.reserveFreeCall(address, 100);

    const memories: Memory[] = [];
    let created = now - 365 * 86_400_000;
    for (let i = 0; i < options.memoriesPerWallet; i++) {
      // a third of the memories share their predecessor's millisecond, as a batch store's do
      if (i === 0 || rng() > 0.35) created += int(rng, 1, Math.ceil((300 * 86_400_000) / options.memoriesPerWallet));
      memories.push(memoryFor(rng, userId, w * options.memoriesPerWallet + i, created, now));
    }
    for (let i = 0; i < memories.length; i += 100) {
      await store.insertMemories(memories.slice(i, i + 100).map((memory) => ({ memory, embedding: unitVector(rng, options.dimension), content_hash: contentHash(memory.content) })));
    }
    await changeSome(store, rng, userId, memories, now);
  }
  return wallets;
}

/** Updates (with history), soft deletions, relations and recalls over a wallet's memories. */
async function changeSome(store: MemoryStore, rng: Rng, userId: string, memories: Memory[], now: number): Promise<void> {
  const live = memories.filter((m) => m.expires_at === null || Date.parse(m.expires_at) > now);
  for (const memory of live.filter(() => rng() < 0.05)) {
    const at = new Date(Date.parse(memory.created_at) + int(rng, 1, 86_400_000)).toISOString();
    const after: Memory = { ...memory, importance: Math.round(rng() * 100) / 100, metadata: { ...memory.metadata, tags: ["edited"] }, updated_at: at };
    const changes = { importance: after.importance, metadata: after.metadata };
    await store.updateMemory(userId, { memory: after, history: historyEntry(memory, after, changes, at) });
  }
  for (const memory of live.filter(() => rng() < 0.1)) {
    const other = pick(rng, live);
    if (other.id === memory.id) continue;
    const at = new Date(Math.max(Date.parse(memory.created_at), Date.parse(other.created_at)) + 1000).toISOString();
    await store.createRelation(userId, { id: crypto.randomUUID(), source_id: memory.id, target_id: other.id, relation_type: pick(rng, RELATION_TYPES), metadata: rng() < 0.5 ? { why: "seed" } : {}, created_at: at });
  }
  const recalled = live.filter(() => rng() < 0.2).map((m) => m.id);
  for (let i = int(rng, 1, 3); i > 0; i--) await store.recordAccess(userId, recalled, now - int(rng, 0, 86_400_000));
  await store.softDelete(userId, live.filter(() => rng() < 0.03).map((m) => m.id), now - 3600_000);
}
