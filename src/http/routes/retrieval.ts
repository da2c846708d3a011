import { Elysia, t } from "elysia";
import { LIMITS, MemoryType } from "../../domain/memory";
import { keywordSearch } from "../../domain/search";
import { authPlugin } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { recalled, RecalledMemorySchema, searched, SearchedMemory } from "../present";

const Tags = t.Array(t.String({ maxLength: LIMITS.tagChars }), { maxItems: LIMITS.tags });

/** Recall (hybrid, paid) and keyword search (BM25, free). */
export const retrievalRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["retrieval"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/recall",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "POST /v1/recall", { url: request.url, headers: {} }, setHeader, async () => {
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
              tags: body.filters?.tags,
              created_after: body.filters?.after ? new Date(body.filters.after).toISOString() : undefined,
            },
          });
          return { memories: results.map(recalled), query_tokens };
        }),
      {
        body: t.Object({
          query: t.String({ minLength: 1, maxLength: LIMITS.recallQuery }),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
          min_similarity: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
          namespace: t.Optional(t.String()),
          session_id: t.Optional(t.String()),
          agent_id: t.Optional(t.String()),
          include_relations: t.Optional(t.Boolean()),
          filters: t.Optional(t.Object({ tags: t.Optional(Tags), after: t.Optional(t.String({ format: "date-time" })) })),
        }),
        response: { 200: t.Object({ memories: t.Array(RecalledMemorySchema), query_tokens: t.Integer() }) },
        detail: {
          summary: "Hybrid semantic recall (paid)",
          description: "score = hybrid × context_importance × access_boost × type_decay; see the README for every signal. Increments access_count of the returned memories.",
        },
      },
    )
    .post(
      "/v1/search",
      async ({ body, userId }) => {
        const filter = { namespace: body.namespace, memory_type: body.memory_type, tags: body.tags, session_id: body.session_id, agent_id: body.agent_id };
        const { memories, total } = await keywordSearch(deps.store, deps.clock, userId, body.query, filter, body.limit ?? 10);
        return { memories: memories.map(searched), total, query: body.query };
      },
      {
        body: t.Object({
          query: t.String({ minLength: 1, maxLength: LIMITS.searchQuery }),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
          namespace: t.Optional(t.String()),
          memory_type: t.Optional(MemoryType),
          tags: t.Optional(Tags),
          session_id: t.Optional(t.String()),
          agent_id: t.Optional(t.String()),
        }),
        response: { 200: t.Object({ memories: t.Array(SearchedMemory), total: t.Integer(), query: t.String() }) },
        detail: { summary: "Keyword search (BM25)", description: "Operators and quotes in the query are treated as text." },
      },
    );
