import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import type { AppDeps } from "./deps";
import { toErrorReply } from "./errors";
import { reportFreeTier } from "./auth-plugin";
import { checkDeclaredLength, closedQueries, parseJsonBody, requestIdOf } from "./validation";
import { memoryRoutes } from "./routes/memories";
import { coreRoutes } from "./routes/core";
import { relationRoutes } from "./routes/relations";
import { retrievalRoutes } from "./routes/retrieval";
import { accountRoutes, publicRoutes } from "./routes/account";
import { exploreRoutes } from "./routes/explore";
import { ingestRoutes } from "./routes/ingest";
import { consolidateRoutes } from "./routes/consolidate";
import { healthRoutes } from "./health";
import { explorerRoutes } from "./routes/explorer";
import { mcpRoutes } from "../mcp/http-route";
import { log } from "../log";
import { requestLog } from "./request-log";
import { metricsRoutes } from "./routes/metrics";
import { watch } from "../metrics/sources";

/** The whole HTTP surface; routes are thin: schema-validated, delegating to src/domain. */
export function createApp(deps: AppDeps) {
  // Responses are still checked against their schemas; encodeSchema would also run TypeBox's
  // Encode (a deep clone) on every answer because Elysia's t.Integer/t.Number are transforms, and our
  // answers need no encoding: that clone was ~10% of the CPU of a list or search request.
  const app = new Elysia({ encodeSchema: false });
  // The metrics read this service's cache and embedding queue until it stops.
  const unwatch = watch({ engine: deps.engine, embedder: deps.embedder });
  return app
    .onStop(unwatch)
    .use(requestLog(deps.config.JWT_SECRET))
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
      checkDeclaredLength(request);
    })
    .onParse({ as: "global" }, parseJsonBody)
    .onTransform({ as: "global" }, closedQueries(app))
    .onError({ as: "global" }, async (context) => {
      const { code, error, set, request, route } = context;
      const { reply, unexpected } = toErrorReply(code, error);
      const requestId = String(set.headers["x-request-id"] ?? requestIdOf(request));
      set.headers["x-request-id"] = requestId;
      if (unexpected) {
        // The client gets the request id, never the stack: the log has both.
        const failure = error instanceof Error ? { error: error.message, stack: error.stack } : { error: String(error) };
        const line = `[engram] ${request.method} ${new URL(request.url).pathname} failed (request ${requestId}): ${failure.stack ?? failure.error}`;
        log.entry("error", { source: "engram", msg: "request failed", request_id: requestId, method: request.method, route: route || "unmatched", ...failure }, () => line);
        const body = reply.body as { error?: { details?: Record<string, unknown> } };
        if (body.error?.details) body.error.details.request_id = requestId;
      }
      set.status = reply.status;
      for (const [name, value] of Object.entries(reply.headers ?? {})) set.headers[name] = value;
      await reportFreeTier(context);
      return reply.body;
    })
    .use(
      swagger({
        path: "/swagger",
        documentation: {
          info: { title: "engram", version: "0.1.0", description: "Long-term memory for software agents, per wallet." },
          components: {
            securitySchemes: {
              walletAuth: { type: "apiKey", in: "header", name: "x-wallet-auth", description: "{address}:{unix_ts}:{EIP-191 signature of service-auth:{unix_ts}}" },
              session: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
            },
          },
          security: [{ walletAuth: [] }, { session: [] }],
        },
      }),
    )
    .use(healthRoutes(deps.store, () => deps.embedder.modelId))
    .use(metricsRoutes(deps.config.METRICS_TOKEN))
    .use(explorerRoutes())
    .use(mcpRoutes(deps))
    .use(publicRoutes(deps))
    .use(accountRoutes(deps))
    .use(coreRoutes(deps))
    .use(memoryRoutes(deps))
    .use(relationRoutes(deps))
    .use(retrievalRoutes(deps))
    .use(exploreRoutes(deps))
    .use(ingestRoutes(deps))
    .use(consolidateRoutes(deps));
}
