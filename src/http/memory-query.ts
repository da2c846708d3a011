import { t, type Static } from "elysia";
import { MemoryType, ScopeField, Timestamp, storedTimestamp } from "../domain/memory";
import { SortField, SortOrder, type Refinement } from "../domain/list-query";
import type { MemoryFilter } from "../domain/store-port";
import { MetadataQuery, QueryBool, TagsQuery } from "./validation";

/**
 * The memory filters of a query string, one schema for every route that lists, counts or searches
 * memories: the spec's (tags, namespace, session_id, agent_id) and those the MemoClaw clients send
 * (memory_type, pinned, immutable, after/before and their CLI names since/until, sort/order, metadata).
 */
export const MemoryQuery = {
  tags: t.Optional(TagsQuery),
  namespace: t.Optional(ScopeField),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  memory_type: t.Optional(MemoryType),
  pinned: t.Optional(QueryBool),
  immutable: t.Optional(QueryBool),
  after: t.Optional(Timestamp),
  before: t.Optional(Timestamp),
  since: t.Optional(t.String({ format: "date-time", description: "the same as after" })),
  until: t.Optional(t.String({ format: "date-time", description: "the same as before" })),
  sort: t.Optional(SortField),
  order: t.Optional(SortOrder),
  metadata: t.Optional(MetadataQuery),
};
const MemoryQueryObject = t.Object(MemoryQuery);
type MemoryQuery = Static<typeof MemoryQueryObject>;

/** The engine-side filter of a MemoryQuery. */
export function filterOf(q: Partial<MemoryQuery>): MemoryFilter {
  return {
    namespace: q.namespace,
    session_id: q.session_id,
    agent_id: q.agent_id,
    tags: q.tags,
    memory_type: q.memory_type,
    pinned: q.pinned,
    created_after: storedTimestamp(q.after ?? q.since),
    created_before: storedTimestamp(q.before ?? q.until),
  };
}

/** What the domain refines beyond the engine's filter. */
export function refinementOf(q: Partial<MemoryQuery>): Refinement {
  return { sort: q.sort, order: q.order, metadata: q.metadata, immutable: q.immutable };
}
