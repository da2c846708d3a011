import { Elysia, t } from "elysia";
import { LIMITS, MemoryType, ScopeField, Timestamp } from "../../domain/memory";
import { keywordSearch } from "../../domain/search";
import { authPlugin } from "../auth-plugin";
import { jsonBody } from "../validation";
import type { AppDeps } from "../deps";
import { recalled, RecalledMemorySchema, searched, SearchedMemory } from "../present";
import { ContextItem } from "../../domain/context";

const Tags = t.Array(t.String({ maxLength: LIMITS.tagChars }), { maxItems: LIMITS.tags });

/** Recall (hybrid, paid) and keyword search (BM25, free). */
export const retrievalRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["retrieval"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/recall",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "POST /v1/recall", request, setHeader, async () => {
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
        ...jsonBody(t.Object({
          query: t.String({ minLength: 1, maxLength: LIMITS.recallQuery }),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: LIMITS.pageSize })),
          min_similarity: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
          namespace: t.Optional(ScopeField),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
          include_relations: t.Optional(t.Boolean()),
          filters: t.Optional(t.Object({ tags: t.Optional(Tags), after: t.Optional(Timestamp) })),
        })),
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
        ...jsonBody(t.Object({
          query: t.String({ minLength: 1, maxLength: LIMITS.searchQuery }),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: LIMITS.pageSize })),
          namespace: t.Optional(ScopeField),
          memory_type: t.Optional(MemoryType),
          tags: t.Optional(Tags),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
        })),
        response: { 200: t.Object({ memories: t.Array(SearchedMemory), total: t.Integer(), query: t.String() }) },
        detail: { summary: "Keyword search (BM25)", description: "Operators and quotes in the query are treated as text." },
      },
    )
    .post(
      "/v1/context",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "POST /v1/context", request, setHeader, async () => {
          const { llm_tokens: _, ...assembled } = await deps.context.assemble(userId, {
            query: body.query,
            filter: { namespace: body.namespace, session_id: body.session_id, agent_id: body.agent_id },
            max_memories: body.max_memories ?? 10,
            max_tokens: body.max_tokens ?? 4000,
            format: body.format ?? "text",
            include_metadata: body.include_metadata ?? false,
            summarize: body.summarize ?? false,
          });
          return assembled;
        }),
      {
        ...jsonBody(t.Object({
          query: t.Optional(t.String({ maxLength: LIMITS.recallQuery })),
          namespace: t.Optional(ScopeField),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
          max_memories: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
          max_tokens: t.Optional(t.Integer({ minimum: 100, maximum: 16000 })),
          format: t.Optional(t.Union([t.Literal("text"), t.Literal("structured")])),
          include_metadata: t.Optional(t.Boolean()),
          summarize: t.Optional(t.Boolean()),
        })),
        response: {
          200: t.Object({
            context: t.Union([t.String(), t.Object({ memories: t.Array(ContextItem) })]),
            memories_used: t.Integer(),
            tokens: t.Integer({ description: "estimated as ceil(characters / 4) of the returned context" }),
          }),
        },
        detail: {
          summary: "Assemble a prompt-ready context block (paid)",
          description: "Pinned memories first, then by recall score for `query` (or by recency × importance without one), within max_memories and max_tokens.",
        },
      },
    );
