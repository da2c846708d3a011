import { Elysia, t } from "elysia";
import { LIMITS, ScopeField, Uuid } from "../../domain/memory";
import { QueryInt } from "../validation";
import { Relation } from "../../domain/relation";
import { SuggestionReason } from "../../domain/suggested";
import { authPlugin } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { ListedMemory } from "../present";
import { suggestedAnswer, SuggestedReply } from "../operations/suggested";
import { graphAnswer } from "../operations/graph";

/** Views for a person or agent curating memory: what deserves attention, and how memories connect. */
export const exploreRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["explore"] } })
    .use(authPlugin(deps))
    .get(
      "/v1/suggested",
      ({ query, userId }) =>
        suggestedAnswer(deps, userId, { namespace: query.namespace, session_id: query.session_id, agent_id: query.agent_id }, query.limit ?? 10, query.category),
      {
        query: t.Object({
          namespace: t.Optional(ScopeField),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
          category: t.Optional(SuggestionReason),
          limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
        }),
        response: { 200: SuggestedReply },
        detail: {
          summary: "Memories worth a look",
          description: "Up to `limit` (default 10) memories flagged decaying, hot, fresh or stale, in that order (only `category` when given). Looks at the 5,000 most recent memories.",
        },
      },
    )
    .get(
      "/v1/graph",
      ({ query, userId }) => graphAnswer(deps, userId, query),
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
          description: "Breadth-first over relations in both directions, up to `depth` hops (1–3, default 2) and `max_nodes` (default 100, max 500), around `memory_id`, else from the most recent memories of `namespace`, else of every namespace.",
        },
      },
    );
