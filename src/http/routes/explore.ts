import { Elysia, t } from "elysia";
import { LIMITS, ScopeField, Uuid } from "../../domain/memory";
import { QueryInt } from "../validation";
import { Relation } from "../../domain/relation";
import { suggest, SuggestionReason } from "../../domain/suggested";
import { graphAround, graphOfNamespace } from "../../domain/graph";
import { invalid } from "../../domain/errors";
import { authPlugin } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { memoryView, ListedMemory } from "../present";

/** Views for a person or agent curating memory: what deserves attention, and how memories connect. */
export const exploreRoutes = (deps: AppDeps) => {
  const listed = memoryView(deps.embedder.modelId);
  return new Elysia({ detail: { tags: ["explore"] } })
    .use(authPlugin(deps))
    .get(
      "/v1/suggested",
      async ({ query, userId }) => {
        const filter = { namespace: query.namespace, session_id: query.session_id, agent_id: query.agent_id };
        const found = await suggest(deps.store, deps.clock, userId, filter, query.limit ?? 10, query.category);
        const relationCounts = await deps.store.relationCounts(userId, found.suggestions.map((s) => s.memory.id), deps.clock());
        return {
          suggestions: found.suggestions.map(({ memory, reason }) => ({ reason, memory: listed(memory) })),
          suggested: found.suggestions.map(({ memory, reason, review_score }) => ({
            ...listed(memory),
            relation_count: relationCounts.get(memory.id) ?? 0,
            category: reason,
            review_score,
          })),
          categories: found.counts,
          total: found.total,
        };
      },
      {
        query: t.Object({
          namespace: t.Optional(ScopeField),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
          category: t.Optional(SuggestionReason),
          limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
        }),
        response: {
          200: t.Object({
            suggestions: t.Array(t.Object({ reason: SuggestionReason, memory: ListedMemory })),
            suggested: t.Array(
              t.Composite([ListedMemory, t.Object({ relation_count: t.Integer(), category: SuggestionReason, review_score: t.Number({ description: "0..1, higher asks for review sooner" }) })]),
              { description: "the same memories flat, with category (= reason) (MemoClaw's shape)" },
            ),
            categories: t.Object({ decaying: t.Integer(), hot: t.Integer(), fresh: t.Integer(), stale: t.Integer() }, { description: "memories flagged per reason" }),
            total: t.Integer({ description: "memories flagged (in `category` when given)" }),
          }),
        },
        detail: {
          summary: "Memories worth a look",
          description: "Up to `limit` (default 10) memories flagged decaying, hot, fresh or stale, in that order (only `category` when given). Looks at the 5,000 most recent memories.",
        },
      },
    )
    .get(
      "/v1/graph",
      async ({ query, userId }) => {
        const depth = query.depth ?? 2;
        const maxNodes = query.max_nodes ?? 100;
        if (!query.memory_id && !query.namespace) throw invalid("query: give memory_id or namespace", { field: "query", rule: "required", one_of: ["memory_id", "namespace"] });
        const graph = query.memory_id
          ? await graphAround(deps.store, deps.clock, userId, query.memory_id, depth, maxNodes)
          : await graphOfNamespace(deps.store, deps.clock, userId, query.namespace!, depth, maxNodes);
        return { nodes: graph.nodes.map(({ memory, depth }) => ({ ...listed(memory), depth })), edges: graph.edges, truncated: graph.truncated };
      },
      {
        query: t.Object({
          memory_id: t.Optional(Uuid),
          namespace: t.Optional(ScopeField),
          depth: t.Optional(QueryInt("depth", 1, 3)),
          max_nodes: t.Optional(QueryInt("max_nodes", 1, 500)),
        }),
        response: {
          200: t.Object({
            nodes: t.Array(t.Composite([ListedMemory, t.Object({ depth: t.Integer({ description: "hops from the start" }) })])),
            edges: t.Array(Relation),
            truncated: t.Boolean({ description: "true when max_nodes stopped the walk" }),
          }),
        },
        detail: {
          summary: "Relation graph around a memory or of a namespace",
          description: "Breadth-first over relations in both directions, up to `depth` hops (1–3, default 2) and `max_nodes` (default 100, max 500). Give `memory_id` or `namespace`.",
        },
      },
    );
};
