import { t, type Static } from "elysia";
import { RelationType, Uuid } from "./memory";

export const Relation = t.Object({
  id: Uuid,
  source_id: Uuid,
  target_id: Uuid,
  relation_type: RelationType,
  metadata: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
});
export type Relation = Static<typeof Relation>;

/** A relation as listed from one memory's point of view. */
export const ListedRelation = t.Composite([Relation, t.Object({ direction: t.Union([t.Literal("incoming"), t.Literal("outgoing")]) })]);
export type ListedRelation = Static<typeof ListedRelation>;

export function withDirection(relation: Relation, memoryId: string): ListedRelation {
  return { ...relation, direction: relation.source_id === memoryId ? "outgoing" : "incoming" };
}
