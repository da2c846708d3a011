import type { MemoryStore } from "./store-port";
import type { Clock } from "./ports";
import { checkMetadata } from "./memory";
import { invalid, notFound, DomainError } from "./errors";
import { withDirection, type ListedRelation, type Relation, type RelationInput } from "./relation";
import { lineageOf, type Lineage } from "./supersession";

/** Typed links between two active memories of the same user. */
export class Relations {
  constructor(
    private readonly store: MemoryStore,
    private readonly clock: Clock,
  ) {}

  async create(userId: string, sourceId: string, input: RelationInput): Promise<Relation> {
    if (sourceId === input.target_id) throw invalid("body/target_id: a memory cannot relate to itself", { field: "body/target_id", rule: "not_self" });
    if (input.metadata) checkMetadata(input.metadata, "body/metadata");
    const now = this.clock();
    const found = await this.store.getMemories(userId, [sourceId, input.target_id], now);
    if (!found.some((m) => m.id === sourceId)) throw notFound("source memory");
    if (!found.some((m) => m.id === input.target_id)) throw notFound("target memory");
    const existing = await this.store.relationsOf(userId, sourceId, now);
    const same = existing.find((r) => r.source_id === sourceId && r.target_id === input.target_id && r.relation_type === input.relation_type);
    if (same) throw new DomainError(409, "relation_exists", `relation ${same.id} already links these memories with ${input.relation_type}`, { relation_id: same.id });
    const relation: Relation = {
      id: crypto.randomUUID(),
      source_id: sourceId,
      target_id: input.target_id,
      relation_type: input.relation_type,
      metadata: input.metadata ?? {},
      created_at: new Date(now).toISOString(),
    };
    await this.store.createRelation(userId, relation);
    return relation;
  }

  async list(userId: string, memoryId: string): Promise<ListedRelation[]> {
    const now = this.clock();
    const [memory] = await this.store.getMemories(userId, [memoryId], now);
    if (!memory) throw notFound();
    return this.listed(userId, memoryId, await this.store.relationsOf(userId, memoryId, now));
  }

  /** Relations of one memory from its point of view, each with the memory at its other end. */
  async listed(userId: string, memoryId: string, relations: Relation[]): Promise<ListedRelation[]> {
    const otherIds = [...new Set(relations.map((r) => (r.source_id === memoryId ? r.target_id : r.source_id)))];
    const others = new Map((await this.store.getMemories(userId, otherIds, this.clock())).map((m) => [m.id, m]));
    return relations.map((r) => withDirection(r, memoryId, others));
  }

  /** What replaces the memory and what it replaces (supersession.ts); the memory must exist. */
  async lineage(userId: string, memoryId: string): Promise<Lineage> {
    const now = this.clock();
    const relations = await this.store.relationsOf(userId, memoryId, now);
    const ends = [...new Set([memoryId, ...relations.flatMap((r) => [r.source_id, r.target_id])])];
    const created = new Map((await this.store.getMemories(userId, ends, now)).map((m) => [m.id, m.created_at]));
    return lineageOf(memoryId, relations, (id) => created.get(id));
  }

  async delete(userId: string, memoryId: string, relationId: string): Promise<void> {
    const [memory] = await this.store.getMemories(userId, [memoryId], this.clock());
    if (!memory) throw notFound();
    if (!(await this.store.deleteRelation(userId, memoryId, relationId))) throw notFound("relation");
  }
}
