import type { MemoryStore } from "./store-port";
import type { Memory } from "./memory";
import type { Relation } from "./relation";
import type { Clock } from "./ports";
import { notFound } from "./errors";

export interface Graph {
  nodes: { memory: Memory; depth: number }[];
  edges: Relation[];
  truncated: boolean;
}

/**
 * Breadth-first walk over relations (both directions) from one memory, up to `depth` hops and
 * `maxNodes` nodes. Edges are kept only between nodes that made it into the graph.
 */
export async function graphAround(store: MemoryStore, clock: Clock, userId: string, memoryId: string, depth: number, maxNodes: number): Promise<Graph> {
  const now = clock();
  const [root] = await store.getMemories(userId, [memoryId], now);
  if (!root) throw notFound();
  return walk(store, userId, [root], depth, maxNodes, now);
}

/**
 * The relation graph of a namespace, or of every namespace when none is given: its most recent
 * memories (up to maxNodes) and the walk from them.
 */
export async function graphOfNamespace(store: MemoryStore, clock: Clock, userId: string, namespace: string | undefined, depth: number, maxNodes: number): Promise<Graph> {
  const now = clock();
  const { memories } = await store.listMemories(userId, namespace === undefined ? {} : { namespace }, { limit: maxNodes, offset: 0 }, now);
  return walk(store, userId, memories, depth, maxNodes, now);
}

async function walk(store: MemoryStore, userId: string, start: Memory[], depth: number, maxNodes: number, now: number): Promise<Graph> {
  const nodes = new Map(start.map((memory) => [memory.id, { memory, depth: 0 }]));
  const edges = new Map<string, Relation>();
  let frontier = start.map((m) => m.id);
  let truncated = false;
  for (let level = 1; level <= depth && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const relation of await store.relationsOf(userId, id, now)) {
        edges.set(relation.id, relation);
        const other = relation.source_id === id ? relation.target_id : relation.source_id;
        if (nodes.has(other) || next.includes(other)) continue;
        if (nodes.size + next.length >= maxNodes) truncated = true;
        else next.push(other);
      }
    }
    for (const memory of await store.getMemories(userId, next, now)) nodes.set(memory.id, { memory, depth: level });
    frontier = next;
  }
  const kept = [...edges.values()].filter((e) => nodes.has(e.source_id) && nodes.has(e.target_id));
  return { nodes: [...nodes.values()], edges: kept, truncated };
}
