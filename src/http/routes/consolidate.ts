import { Elysia, t } from "elysia";
import { CLOSED, ScopeField } from "../../domain/memory";
import { consolidate, ConsolidatedCluster } from "../../domain/consolidate";
import { authPlugin } from "../auth-plugin";
import { jsonBody } from "../validation";
import type { AppDeps } from "../deps";

/** Merging a wallet's near-duplicate memories after the fact (MemoClaw's consolidate). */
export const consolidateRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["memories"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/memories/consolidate",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "POST /v1/memories/consolidate", request, setHeader, async () => {
          const dryRun = body.dry_run ?? false;
          const result = await consolidate(deps.store, deps.memories, deps.clock, userId, {
            filter: { namespace: body.namespace, agent_id: body.agent_id, session_id: body.session_id },
            min_similarity: body.min_similarity ?? deps.config.DEDUP_SIMILARITY,
            dry_run: dryRun,
          });
          return {
            clusters: result.clusters,
            merged: result.merged,
            tokens_used: 0,
            dry_run: dryRun,
            details: result.clusters,
            clusters_found: result.clusters.length,
            memories_merged: result.merged,
            memories_created: 0,
            memories_examined: result.examined,
          };
        }),
      {
        ...jsonBody(
          t.Object({
            namespace: t.Optional(ScopeField),
            agent_id: t.Optional(ScopeField),
            session_id: t.Optional(ScopeField),
            min_similarity: t.Optional(t.Number({ minimum: 0, maximum: 1, description: "cosine a duplicate needs; default DEDUP_SIMILARITY. The fact signature must match too, whatever this is." })),
            mode: t.Optional(t.String({ maxLength: 64, description: "accepted for MemoClaw clients; the merge is always the store path's duplicate merge" })),
            dry_run: t.Optional(t.Boolean({ description: "report the clusters, change nothing" })),
          }, CLOSED),
        ),
        response: {
          200: t.Object({
            clusters: t.Array(ConsolidatedCluster, { description: "each cluster of duplicates found (MemoClaw's API reference; the Python SDK, the CLI and memoclaw-mcp read a list)" }),
            merged: t.Integer({ description: "memories folded into another (soft-deleted), or that would be with dry_run" }),
            tokens_used: t.Integer({ description: "always 0: no LLM" }),
            dry_run: t.Boolean(),
            details: t.Array(ConsolidatedCluster, { description: "the same list as clusters (the TypeScript SDK's name for it)" }),
            clusters_found: t.Integer({ description: "the number of clusters" }),
            memories_merged: t.Integer({ description: "the same as merged" }),
            memories_created: t.Integer({ description: "always 0: a cluster keeps one of its memories" }),
            memories_examined: t.Integer({ description: "at most the 5,000 newest matching memories are compared" }),
          }),
        },
        detail: {
          summary: "Merge near-duplicate memories (paid, MemoClaw)",
          description: "Clusters by the store's dedup rule (same namespace; same text, or cosine ≥ min_similarity and the same fact signature), keeps one memory per cluster (pinned/immutable, then most important, then oldest), folds the others into it and soft-deletes them.",
        },
      },
    );
