import { t, type Static } from "elysia";
import { Type } from "@sinclair/typebox";
import { CLOSED, LIMITS, Metadata, MemoryType, ScopeField, Tags, Timestamp, storedTimestamp, type Memory } from "../../domain/memory";
import { keywordSearch } from "../../domain/search";
import { accepts, type Refinement } from "../../domain/list-query";
import type { AppDeps } from "../deps";
import { recalled, searched } from "../present";

/**
 * Recall and keyword search as operations: one body schema and one answer per operation, served by
 * the REST routes (src/http/routes/retrieval.ts) and the MCP tools (src/mcp/tools.ts) alike.
 * Integers are plain JSON integers (no numeric strings: a JSON body has numbers).
 */

export const RecallBody = t.Object({
  query: t.String({ minLength: 1, maxLength: LIMITS.recallQuery }),
  limit: t.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.pageSize, description: "default 5" })),
  min_similarity: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
  namespace: t.Optional(ScopeField),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  include_relations: t.Optional(t.Boolean()),
  filters: t.Optional(
    t.Object({
      tags: t.Optional(Tags),
      after: t.Optional(Timestamp),
      before: t.Optional(Timestamp),
      memory_type: t.Optional(MemoryType),
      pinned: t.Optional(t.Boolean()),
      metadata: t.Optional(Metadata),
    }, CLOSED),
  ),
  // The MemoClaw CLI's recall --since/--until send these at the top level.
  since: t.Optional(t.String({ format: "date-time", description: "the same as filters.after (which wins)" })),
  until: t.Optional(t.String({ format: "date-time", description: "the same as filters.before (which wins)" })),
}, CLOSED);
export type RecallBody = Static<typeof RecallBody>;

/** The recall answer: `{memories, query_tokens}`; counts the returned memories as accessed. */
export async function recallAnswer(deps: AppDeps, userId: string, body: RecallBody) {
  const f = body.filters;
  const refinement: Refinement = { metadata: f?.metadata };
  const { results, query_tokens } = await deps.recall.run(userId, {
    query: body.query,
    limit: body.limit ?? 5,
    min_similarity: body.min_similarity ?? 0,
    include_relations: body.include_relations ?? false,
    record_access: true,
    filter: {
      namespace: body.namespace,
      session_id: body.session_id,
      agent_id: body.agent_id,
      tags: f?.tags,
      memory_type: f?.memory_type,
      pinned: f?.pinned,
      created_after: storedTimestamp(f?.after ?? body.since),
      created_before: storedTimestamp(f?.before ?? body.until),
    },
    ...(f?.metadata && { accept: (m: Memory) => accepts(refinement, m) }),
  });
  const memories = [];
  for (const r of results) memories.push(recalled(r, r.relations && (await deps.relations.listed(userId, r.memory.id, r.relations))));
  return { memories, query_tokens };
}

export const SearchBody = t.Object({
  query: t.String({ minLength: 1, maxLength: LIMITS.searchQuery }),
  limit: t.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.pageSize, description: "default 10" })),
  namespace: t.Optional(ScopeField),
  memory_type: t.Optional(MemoryType),
  tags: t.Optional(Tags),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
}, CLOSED);
export type SearchBody = Static<typeof SearchBody>;

/** The keyword search answer: `{memories, total, query}`. */
export async function searchAnswer(deps: AppDeps, userId: string, body: SearchBody) {
  const filter = { namespace: body.namespace, memory_type: body.memory_type, tags: body.tags, session_id: body.session_id, agent_id: body.agent_id };
  const { memories, total } = await keywordSearch(deps.store, deps.clock, userId, body.query, filter, body.limit ?? 10);
  return { memories: memories.map(searched), total, query: body.query };
}
