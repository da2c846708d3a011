import { Elysia, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { CLOSED, LIMITS, ScopeField } from "../../domain/memory";
import { keywordSearch } from "../../domain/search";
import { accepts } from "../../domain/list-query";
import { authPlugin } from "../auth-plugin";
import { jsonBody, QueryInt } from "../validation";
import type { AppDeps } from "../deps";
import { ListedMemory, memoryView, RecalledMemorySchema, SearchedMemory } from "../present";
import { filterOf, MemoryQuery, refinementOf } from "../memory-query";
import { ContextItem } from "../../domain/context";
import { recallAnswer, RecallBody, searchAnswer, SearchBody } from "../operations/retrieval";

/** Recall (hybrid, paid) and keyword search (BM25, free). */
export const retrievalRoutes = (deps: AppDeps) => {
  const listed = memoryView(deps.embedder.modelId);
  return new Elysia({ detail: { tags: ["retrieval"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/recall",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "POST /v1/recall", request, setHeader, () => recallAnswer(deps, userId, body)),
      {
        ...jsonBody(RecallBody),
        response: { 200: t.Object({ memories: t.Array(RecalledMemorySchema), query_tokens: t.Integer() }) },
        detail: {
          summary: "Hybrid semantic recall (paid)",
          description: "score = hybrid × context_importance × access_boost × type_decay; docs/retrieval.md explains every signal. Increments access_count of the returned memories.",
        },
      },
    )
    .post(
      "/v1/search",
      async ({ body, userId }) => searchAnswer(deps, userId, body),
      {
        ...jsonBody(SearchBody),
        response: { 200: t.Object({ memories: t.Array(SearchedMemory), total: t.Integer(), query: t.String() }) },
        detail: { summary: "Keyword search (BM25)", description: "Operators and quotes in the query are treated as text." },
      },
    )
    .get(
      "/v1/memories/search",
      async ({ query, userId }) => {
        const refinement = refinementOf(query);
        const refined = refinement.metadata !== undefined || refinement.immutable !== undefined;
        const limit = query.limit ?? 10;
        // A metadata or immutable condition is applied to the best BM25 hits (up to the page limit's maximum).
        const found = await keywordSearch(deps.store, deps.clock, userId, query.q, filterOf(query), refined ? LIMITS.pageSize : limit);
        let memories = refined ? found.memories.filter((m) => accepts(refinement, m)).slice(0, limit) : found.memories;
        if (query.sort) {
          const sign = query.order === "asc" ? 1 : -1;
          const key = (m: (typeof memories)[number]) => (query.sort === "importance" ? m.importance : Date.parse(m[query.sort!]));
          memories = [...memories].sort((a, b) => sign * (key(a) - key(b)));
        }
        return { memories: memories.map(listed), total: refined ? memories.length : found.total, query: query.q };
      },
      {
        query: t.Object({
          q: t.String({ minLength: 1, maxLength: LIMITS.searchQuery }),
          limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
          ...MemoryQuery,
        }),
        response: { 200: t.Object({ memories: t.Array(ListedMemory), total: t.Integer(), query: t.String() }) },
        detail: {
          summary: "Keyword search (BM25), MemoClaw's GET form",
          description: "POST /v1/search's search with the query in `q` and GET /v1/memories's filters; full memories. `sort`/`order` reorder the best hits.",
        },
      },
    )
    .post(
      "/v1/context",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "POST /v1/context", request, setHeader, async () => {
          const { llm_tokens: _, items, ...assembled } = await deps.context.assemble(userId, {
            query: body.query,
            filter: { namespace: body.namespace, session_id: body.session_id, agent_id: body.agent_id },
            max_memories: body.max_memories ?? body.limit ?? 10,
            max_tokens: body.max_tokens ?? 4000,
            format: body.format ?? "text",
            include_metadata: body.include_metadata ?? false,
            summarize: body.summarize ?? false,
          });
          return { ...assembled, memories: items };
        }),
      {
        ...jsonBody(t.Object({
          query: t.Optional(t.String({ maxLength: LIMITS.recallQuery })),
          namespace: t.Optional(ScopeField),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
          // TypeBox's Integer, not Elysia's t.Integer, which would take the string "5": a JSON body has numbers
          max_memories: t.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
          limit: t.Optional(Type.Integer({ minimum: 1, maximum: 100, description: "the same as max_memories (MemoClaw clients send it); max_memories wins" })),
          max_tokens: t.Optional(Type.Integer({ minimum: 100, maximum: 16000 })),
          format: t.Optional(t.Union([t.Literal("text"), t.Literal("structured")])),
          include_metadata: t.Optional(t.Boolean()),
          summarize: t.Optional(t.Boolean()),
        }, CLOSED)),
        response: {
          200: t.Object({
            context: t.Union([t.String(), t.Object({ memories: t.Array(ContextItem) })]),
            memories_used: t.Integer(),
            tokens: t.Integer({ description: "estimated as ceil(characters / 4) of the returned context" }),
            memories: t.Array(ContextItem, { description: "the memories in the context, in order (MemoClaw clients read them)" }),
          }),
        },
        detail: {
          summary: "Assemble a prompt-ready context block (paid)",
          description: "Pinned memories first, then by recall score for `query` (or by recency × importance without one), within max_memories and max_tokens.",
        },
      },
    );
};
