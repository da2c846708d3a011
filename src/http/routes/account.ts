import { Elysia, t } from "elysia";
import { CLOSED, MemoryType, ScopeField, Timestamp } from "../../domain/memory";
import { Stats } from "../../domain/stats";
import { verifyWalletSignature, authMessage, SIGNATURE_TOLERANCE_SECONDS } from "../../auth/wallet-signature";
import { DomainError } from "../../domain/errors";
import { authPlugin } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { ExportAnswer, ExportFormat, exportFilter, exportStream, namespacesAnswer } from "../operations/export";
import { jsonBody, TagsQuery } from "../validation";
import { tagCounts } from "../../domain/tag-counts";

/** Public free-tier info and session exchange. */
export const publicRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["account"] } })
    .get(
      "/v1/free-tier/info",
      () => ({
        free_tier: {
          enabled: deps.config.FREE_TIER_CALLS > 0,
          calls_per_wallet: deps.config.FREE_TIER_CALLS,
          description: `Each wallet gets ${deps.config.FREE_TIER_CALLS} free calls to paid endpoints; free endpoints never count.`,
        },
        auth: {
          header: "x-wallet-auth",
          format: "{wallet_address}:{unix_timestamp}:{signature}",
          message_to_sign: authMessage(deps.config.AUTH_MESSAGE_PREFIX, "{unix_timestamp}"),
          expiry_seconds: SIGNATURE_TOLERANCE_SECONDS,
        },
        after_free_tier: {
          payment: `x402 (USDC on ${deps.config.X402_NETWORK === "base" ? "Base" : "Base Sepolia"})`,
          note:
            deps.config.PAYMENTS === "on"
              ? "After the free calls, paid endpoints answer 402 with x402 payment requirements; pay with X-PAYMENT or PAYMENT-SIGNATURE."
              : "Payments are disabled on this server: after the free calls, paid endpoints answer 402 payments_disabled.",
        },
      }),
      { detail: { summary: "Free tier and authentication (public)" } },
    )
    .post(
      "/auth/session",
      async ({ body }) => {
        const now = deps.clock();
        const check = await verifyWalletSignature(body, deps.config.AUTH_MESSAGE_PREFIX, now);
        if (!check.ok) throw new DomainError(401, "unauthorized", check.reason);
        const session = await deps.tokens.issue(check.wallet, now);
        return { token: session.token, wallet: check.wallet, expires_at: session.expires_at };
      },
      {
        ...jsonBody(t.Object({ address: t.String({ minLength: 1, maxLength: 100 }), timestamp: t.Number(), signature: t.String({ minLength: 1, maxLength: 1000 }) }, CLOSED)),
        response: { 200: t.Object({ token: t.String(), wallet: t.String(), expires_at: t.String({ format: "date-time" }) }) },
        detail: { summary: "Exchange a wallet signature for a 7-day session token (public)" },
      },
    );

/** The wallet's own account views: free-tier status, stats, namespaces, export. */
export const accountRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["account"] } })
    .use(authPlugin(deps))
    .get("/v1/free-tier/status", ({ wallet }) => deps.freeTier.status(wallet), {
      response: { 200: t.Object({ wallet: t.String(), free_tier_remaining: t.Integer(), free_tier_total: t.Integer(), free_tier_used: t.Integer() }) },
      detail: { summary: "Free calls left for this wallet" },
    })
    .get("/v1/stats", ({ query, userId }) => deps.store.stats(userId, deps.clock(), query), {
      query: t.Object({ namespace: t.Optional(ScopeField) }),
      response: { 200: Stats },
      detail: { summary: "Memory statistics", description: "Of the whole wallet, or of one `namespace` (MemoClaw's CLI sends it)." },
    })
    .get(
      "/v1/namespaces",
      ({ query, userId }) => namespacesAnswer(deps, userId, query),
      {
        query: t.Object({ agent_id: t.Optional(ScopeField) }),
        response: {
          200: t.Object({
            namespaces: t.Array(
              t.Object({
                namespace: t.String(),
                name: t.String({ description: "the same as namespace (MemoClaw clients read it)" }),
                count: t.Integer(),
                last_memory_at: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "created_at of its newest memory" }),
              }),
            ),
            total: t.Integer({ description: "number of namespaces" }),
          }),
        },
        detail: { summary: "Namespaces with their active memory counts" },
      },
    )
    .get("/v1/tags", async ({ query, userId }) => ({ tags: await tagCounts(deps.memories, userId, { namespace: query.namespace, agent_id: query.agent_id }) }), {
      query: t.Object({ namespace: t.Optional(ScopeField), agent_id: t.Optional(ScopeField) }),
      response: { 200: t.Object({ tags: t.Array(t.Object({ tag: t.String(), count: t.Integer() })) }) },
      detail: { summary: "Tags in use, with how many active memories carry each (MemoClaw)" },
    })
    .get(
      "/v1/export",
      ({ query, userId }) => exportStream(deps, userId, exportFilter({ ...query, include_deleted: query.include_deleted === "true" }), query.format),
      {
        query: t.Object({
          format: t.Optional(ExportFormat),
          namespace: t.Optional(ScopeField),
          memory_type: t.Optional(MemoryType),
          tags: t.Optional(TagsQuery),
          session_id: t.Optional(ScopeField),
          agent_id: t.Optional(ScopeField),
          before: t.Optional(Timestamp),
          after: t.Optional(Timestamp),
          include_deleted: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])),
        }),
        response: {
          200: ExportAnswer,
        },
        detail: {
          summary: "Export memories as JSON, CSV or Markdown",
          description: "`memories` is an array for json and a string (the CSV or Markdown document) for csv and markdown. Newest first.",
        },
      },
    );
