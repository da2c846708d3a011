import { Elysia, t } from "elysia";
import { CLOSED, LIMITS, ScopeField, Uuid } from "../../domain/memory";
import { jsonBody, QueryInt, NO_BODY } from "../validation";
import { authPlugin } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { core, CoreMemory, ListedMemory, memoryView } from "../present";
import { coreMemories } from "../../domain/core-memories";

const MemoClawCoreQuery = t.Object({
  namespace: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
  offset: t.Optional(QueryInt("offset", 0, LIMITS.offset)),
});

/** Core (pinned) memories: exempt from type-based decay and put first in context. */
export const coreRoutes = (deps: AppDeps) => {
  const listed = memoryView(deps.embedder.modelId);
  const memoClawCore = {
    query: MemoClawCoreQuery,
    response: { 200: t.Object({ memories: t.Array(ListedMemory), total: t.Integer() }) },
    detail: {
      summary: "MemoClaw's core memories",
      description: "Pinned memories first, then unpinned ones with importance ≥ 0.8 or recalled ≥ 5 times, most important first; full memories.",
    },
  };
  const listCore = async ({ query, userId }: { query: typeof MemoClawCoreQuery.static; userId: string }) => {
    const page = { limit: query.limit ?? 20, offset: query.offset ?? 0 };
    const { memories, total } = await coreMemories(deps.memories, userId, { namespace: query.namespace, agent_id: query.agent_id }, page);
    return { memories: memories.map(listed), total };
  };
  return new Elysia({ detail: { tags: ["core memories"] } })
    .use(authPlugin(deps))
    .get("/v1/core-memories", (c) => listCore(c), memoClawCore)
    .get("/v1/core", (c) => listCore(c), memoClawCore)
    .get(
      "/v1/memories/core",
      async ({ query, userId }) => {
        const page = { limit: query.limit ?? 20, offset: query.offset ?? 0 };
        const { memories, total } = await deps.memories.list(userId, { pinned: true, namespace: query.namespace }, page);
        return { memories: memories.map(core), total };
      },
      {
        query: t.Object({
          namespace: t.Optional(ScopeField),
          limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
          offset: t.Optional(QueryInt("offset", 0, LIMITS.offset)),
        }),
        response: { 200: t.Object({ memories: t.Array(CoreMemory), total: t.Integer() }) },
        detail: { summary: "List pinned memories" },
      },
    )
    .post(
      "/v1/memories/core",
      async ({ body, userId }) => {
        await deps.memories.setPinned(userId, body.memory_id, true);
        return { pinned: true as const, id: body.memory_id };
      },
      { ...jsonBody(t.Object({ memory_id: Uuid }, CLOSED)), response: { 200: t.Object({ pinned: t.Literal(true), id: Uuid }) }, detail: { summary: "Pin a memory" } },
    )
    .delete(
      "/v1/memories/core/:id",
      async ({ params, userId }) => {
        await deps.memories.setPinned(userId, params.id, false);
        return { unpinned: true as const, id: params.id };
      },
      { ...NO_BODY, params: t.Object({ id: Uuid }), response: { 200: t.Object({ unpinned: t.Literal(true), id: Uuid }) }, detail: { summary: "Unpin a memory (404 if not pinned)" } },
    );
};
