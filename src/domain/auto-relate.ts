import type { MemoryStore } from "./store-port";
import type { Relations } from "./relations";
import type { Clock, ReplacementJudge } from "./ports";
import type { Memory, RelationType } from "./memory";
import { DomainError } from "./errors";
import { inferRelation, type RelatableFact } from "./ingest/relate";

/** Existing memories compared with each new one for supersedes / contradicts / supports. */
const NEIGHBOURS_PER_FACT = 10;
/** Relations of existing memories only count with this much vector similarity (avoids pairing unrelated facts). */
const NEIGHBOUR_MIN_COSINE = 0.4;

/** What inferRelation may say of a memory that replaced the same old value before, for it to count as an earlier value. */
const EARLIER_VALUE = new Set<RelationType | null>(["related_to", "supersedes"]);

/** A memory just stored, with what the relation rules know of it (an extracted fact knows its subject and attribute). */
export interface FreshMemory {
  id: string;
  fact: RelatableFact;
}

/**
 * auto_relate for ingest and store: links newly stored memories to each other (in the order given:
 * a later one may supersede an earlier one) and to the wallet's nearest existing memories of the
 * same namespace, with the relation inferRelation finds. Against existing memories only the
 * strong types are created (supersedes, contradicts, supports): related_to ("same subject") is
 * too broad beyond one conversation, and `sameCall` says whether it is wanted among the new ones.
 */
export class AutoRelate {
  constructor(
    private readonly store: MemoryStore,
    private readonly relations: Relations,
    private readonly clock: Clock,
    /** asked which neighbours a new memory replaces where the rules found no replacement */
    private readonly judge: ReplacementJudge | null = null,
  ) {}

  /** Creates the relations; returns how many. */
  async link(userId: string, fresh: FreshMemory[], namespace: string, { sameCall }: { sameCall: boolean }): Promise<number> {
    let created = 0;
    const link = async (sourceId: string, targetId: string, type: RelationType) => {
      try {
        await this.relations.create(userId, sourceId, { target_id: targetId, relation_type: type, metadata: { via: "auto_relate" } });
        created++;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error; // an existing identical relation is fine
      }
    };
    for (let j = 0; j < fresh.length; j++) {
      for (let i = 0; i < j; i++) {
        const type = inferRelation(fresh[j]!.fact, fresh[i]!.fact);
        if (type && (sameCall || type !== "related_to")) await link(fresh[j]!.id, fresh[i]!.id, type);
      }
    }
    const newIds = new Set(fresh.map((s) => s.id));
    const vectors = await this.store.embeddings(userId, [...newIds]);
    for (const { fact, id } of fresh) {
      const unjudged: Memory[] = [];
      const replaced: string[] = [];
      for (const existing of await this.neighbours(userId, vectors.get(id), namespace, newIds)) {
        const type = inferRelation(fact, { content: existing.content, memory_type: existing.memory_type });
        if (type && type !== "related_to") await link(id, existing.id, type);
        if (type === "supersedes" || type === "contradicts") replaced.push(existing.id);
        else unjudged.push(existing);
      }
      if (this.judge && replaced.length === 0 && unjudged.length > 0) {
        for (const i of await this.judge.replaced(fact.content, unjudged.map((m) => m.content))) {
          await link(id, unjudged[i]!.id, "supersedes");
          replaced.push(unjudged[i]!.id);
        }
      }
      for (const earlier of await this.earlierReplacements(userId, id, fact, replaced, namespace)) await link(id, earlier, "supersedes");
    }
    return created;
  }

  /**
   * The memories that replaced what the new memory replaces, before it: earlier values of the same
   * attribute (Berlin → Lisbon, then Berlin → Porto: Porto also replaces Lisbon). The rules compare
   * two statements at a time and often see that both changed the old value when they cannot tell
   * that the two name the same attribute ("User switched careers to product manager" / "User is
   * now an architect"); without the link both would rank as current. Only memories about the same
   * subject that the rules do not call a restatement or a conflict. (The two need not be vector
   * neighbours: a replacement found this way is often not among the new memory's nearest.)
   */
  private async earlierReplacements(userId: string, id: string, fact: RelatableFact, replaced: string[], namespace: string): Promise<string[]> {
    const now = this.clock();
    const sources = new Set<string>();
    for (const target of replaced) {
      for (const r of await this.store.relationsOf(userId, target, now)) {
        if (r.target_id === target && r.source_id !== id && (r.relation_type === "supersedes" || r.relation_type === "contradicts")) sources.add(r.source_id);
      }
    }
    if (sources.size === 0) return [];
    const earlier = await this.store.getMemories(userId, [...sources], now);
    return earlier
      .filter((m) => m.namespace === namespace && EARLIER_VALUE.has(inferRelation(fact, { content: m.content, memory_type: m.memory_type })))
      .map((m) => m.id);
  }

  private async neighbours(userId: string, vector: Float32Array | undefined, namespace: string, exclude: Set<string>): Promise<Memory[]> {
    if (!vector) return [];
    const hits = await this.store.nearest(userId, vector, { namespace }, NEIGHBOURS_PER_FACT + exclude.size, this.clock());
    const ids = hits.filter((h) => !exclude.has(h.memory.id) && h.similarity >= NEIGHBOUR_MIN_COSINE).slice(0, NEIGHBOURS_PER_FACT).map((h) => h.memory.id);
    return this.store.getMemories(userId, ids, this.clock());
  }
}
