import { Elysia, t } from "elysia";
import { LIMITS, PatchFields, ScopeField, StoreFields, Uuid } from "../../domain/memory";
import { DomainError } from "../../domain/errors";
import { checked, jsonBody, QueryInt, TagsQuery } from "../validation";
import { authPlugin } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { listed, ListedMemory } from "../present";
import { HistoryEntry } from "../../domain/history";

const BatchUpdate = t.Composite([t.Object({ id: Uuid }), PatchFields], { minProperties: 2 });

const IdParams = t.Object({ id: Uuid });
const Ids = t.Array(Uuid, { minItems: 1, maxItems: LIMITS.batch });
const Scope = { namespace: t.Optional(ScopeField), session_id: t.Optional(ScopeField), agent_id: t.Optional(ScopeField) };

/** The memory lifecycle: store, list, get, update, delete, history. */
export const memoryRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["memories"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/store",
      async ({ body, wallet, userId, setHeader, request, set }) => {
        const outcome = await deps.paywall.charge(wallet, "POST /v1/store", request, setHeader, () =>
          deps.memories.storeMany(userId, [body]),
        );
        set.status = 201;
        return { id: outcome.ids[0]!, stored: true, deduplicated: outcome.deduplicated > 0, tokens_used: outcome.tokens_used };
      },
      {
        ...jsonBody(StoreFields),
        response: { 201: t.Object({ id: Uuid, stored: t.Literal(true), deduplicated: t.Boolean(), tokens_used: t.Integer() }) },
        detail: { summary: "Store one memory (paid)", description: "A near-duplicate of an existing memory in the same namespace is merged into it (`deduplicated: true`, the existing id)." },
      },
    )
    .post(
      "/v1/store/batch",
      async ({ body, wallet, userId, setHeader, request, set }) => {
        const outcome = await deps.paywall.charge(wallet, "POST /v1/store/batch", request, setHeader, () =>
          deps.memories.storeMany(userId, body.memories),
        );
        set.status = 201;
        return { ids: outcome.ids, stored: true, count: outcome.stored, deduplicated_count: outcome.deduplicated, tokens_used: outcome.tokens_used };
      },
      {
        ...jsonBody(t.Object({ memories: t.Array(StoreFields, { minItems: 1, maxItems: LIMITS.batch }) })),
        response: {
          201: t.Object({ ids: t.Array(Uuid), stored: t.Literal(true), count: t.Integer(), deduplicated_count: t.Integer(), tokens_used: t.Integer() }),
        },
        detail: { summary: "Store up to 100 memories (paid)", description: "All-or-nothing validation. `ids` has one id per item, in order; a duplicate item carries the id it merged into." },
      },
    )
    .get(
      "/v1/memories",
      async ({ query, userId }) => {
        const page = { limit: query.limit ?? 20, offset: query.offset ?? 0 };
        const filter = { namespace: query.namespace, session_id: query.session_id, agent_id: query.agent_id, tags: query.tags };
        const { memories, total } = await deps.memories.list(userId, filter, page);
        return { memories: memories.map(listed), total, ...page };
      },
      {
        query: t.Object({
          limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
          offset: t.Optional(QueryInt("offset", 0, LIMITS.offset)),
          tags: t.Optional(TagsQuery),
          ...Scope,
        }),
        response: { 200: t.Object({ memories: t.Array(ListedMemory), total: t.Integer(), limit: t.Integer(), offset: t.Integer() }) },
        detail: { summary: "List memories, newest first" },
      },
    )
    .patch(
      "/v1/memories/batch",
      async ({ body, wallet, userId, setHeader, request }) =>
        deps.paywall.charge(wallet, "PATCH /v1/memories/batch", request, setHeader, async () => {
          const errors: { id: string; status: number; message: string }[] = [];
          let updated = 0;
          for (const [i, item] of body.updates.entries()) {
            const id = String((item as { id?: unknown } | null)?.id).slice(0, 64);
            try {
              const { id: _, ...patch } = checked(BatchUpdate, item, `body/updates/${i}`);
              await deps.memories.update(userId, id, patch, { history: false });
              updated++;
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              errors.push({ id, status: error.status, message: error.message });
            }
          }
          return { updated, errors };
        }),
      {
        // Items are validated one by one in the handler, so one bad item is reported, not fatal. They are
        // t.Unknown, not t.Record: Elysia coerces a string into an array of records ("ab" → [{0:"a"},{0:"b"}]).
        ...jsonBody(t.Object({ updates: t.Array(t.Unknown({ description: "{id, ...fields}" }), { minItems: 1, maxItems: LIMITS.batch }) })),
        response: { 200: t.Object({ updated: t.Integer(), errors: t.Array(t.Object({ id: t.String(), status: t.Integer(), message: t.String() })) }) },
        detail: { summary: "Update up to 100 memories (paid)", description: "Failing items (404, 409, 422) are reported in `errors`; the rest proceed. Records no history (only PATCH /v1/memories/:id does)." },
      },
    )
    .get("/v1/memories/:id", async ({ params, userId }) => listed(await deps.memories.get(userId, params.id)), {
      params: IdParams,
      response: { 200: ListedMemory },
      detail: { summary: "Get one memory" },
    })
    .patch("/v1/memories/:id", async ({ params, body, userId }) => listed(await deps.memories.update(userId, params.id, body, { history: true })), {
      params: IdParams,
      ...jsonBody(PatchFields),
      response: { 200: ListedMemory },
      detail: { summary: "Update one memory", description: "Records a history entry with the fields that changed. Immutable memories answer 409." },
    })
    .delete(
      "/v1/memories/:id",
      async ({ params, userId }) => {
        await deps.memories.delete(userId, params.id);
        return { deleted: true as const, id: params.id };
      },
      { params: IdParams, response: { 200: t.Object({ deleted: t.Literal(true), id: Uuid }) }, detail: { summary: "Soft-delete one memory" } },
    )
    .delete("/v1/memories", async ({ body, userId }) => deps.memories.deleteMany(userId, body.ids), {
      ...jsonBody(t.Object({ ids: Ids })),
      response: { 200: t.Object({ deleted: t.Integer(), errors: t.Array(t.String()) }) },
      detail: { summary: "Soft-delete up to 100 memories", description: "`errors` lists ids not deleted: missing, another wallet's, or immutable." },
    })
    .get("/v1/memories/:id/history", async ({ params, userId }) => ({ history: await deps.memories.history(userId, params.id) }), {
      params: IdParams,
      response: { 200: t.Object({ history: t.Array(HistoryEntry) }) },
      detail: { summary: "Change history of a memory, newest first" },
    });
