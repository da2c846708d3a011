import { t, type Static } from "elysia";
import { CLOSED, Memory, Metadata, RelationType, Uuid, type Memory as MemoryT } from "./memory";

export const Relation = t.Object({
  id: Uuid,
  source_id: Uuid,
  target_id: Uuid,
  relation_type: RelationType,
  metadata: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
});
export type Relation = Static<typeof Relation>;

/** What a client gives to create a relation: `metadata` has a memory's limits (checkMetadata for size and depth). */
export const RelationInput = t.Object({ target_id: Uuid, relation_type: RelationType, metadata: t.Optional(Metadata) }, CLOSED);
export type RelationInput = Static<typeof RelationInput>;

/** The memory at the other end of a listed relation (MemoClaw clients show it). */
export const RelatedMemory = t.Pick(Memory, ["id", "content", "importance", "memory_type", "namespace"]);

/** A relation as listed from one memory's point of view, with the memory at its other end. */
export const ListedRelation = t.Composite([Relation, t.Object({ direction: t.Union([t.Literal("incoming"), t.Literal("outgoing")]), memory: RelatedMemory })]);
export type ListedRelation = Static<typeof ListedRelation>;

/** `others` holds the memories at the relations' other ends (relations of active memories only, so each is there). */
export function withDirection(relation: Relation, memoryId: string, others: Map<string, MemoryT>): ListedRelation {
  const outgoing = relation.source_id === memoryId;
  const other = others.get(outgoing ? relation.target_id : relation.source_id);
  const memory = other
    ? { id: other.id, content: other.content, importance: other.importance, memory_type: other.memory_type, namespace: other.namespace }
    : { id: outgoing ? relation.target_id : relation.source_id, content: "", importance: 0, memory_type: "general" as const, namespace: "" };
  return { ...relation, direction: outgoing ? "outgoing" : "incoming", memory };
}
