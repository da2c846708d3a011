import { Elysia, t, type Static } from "elysia";
import { CLOSED, LIMITS, PatchFields, Uuid } from "../../domain/memory";
import { DomainError, invalid } from "../../domain/errors";
import { checked, jsonBody, QueryInt, NO_BODY } from "../validation";
import { authPlugin, type Caller } from "../auth-plugin";
import type { AppDeps } from "../deps";
import { memoryView, ListedMemory } from "../present";
import { filterOf, MemoryQuery, refinementOf } from "../memory-query";
import { HistoryEntry } from "../../domain/history";
import { memoryAnswer, MemoryReply } from "../operations/memory";
import { storeBatchAnswer, StoreBatchBody, StoreBatchReply, StoreBody, storeRelated, StoreReply, storeReply } from "../operations/store";

const BatchUpdate = t.Composite([t.Object({ id: Uuid }), PatchFields], { minProperties: 2, ...CLOSED });
// Items are validated one by one in the handler, so one bad item is reported, not fatal. They are
// t.Unknown, not t.Record: Elysia coerces a string into an array of records ("ab" → [{0:"a"},{0:"b"}]).
const BatchUpdateBody = t.Object({ updates: t.Array(t.Unknown({ description: "{id, ...fields}" }), { minItems: 1, maxItems: LIMITS.batch }) }, CLOSED);
const BatchUpdateReply = t.Object({
  updated: t.Integer(),
  errors: t.Array(t.Object({ id: t.String(), status: t.Integer(), message: t.String() })),
  results: t.Array(t.Object({ id: t.String(), updated: t.Boolean(), error: t.Optional(t.String()) }), { description: "one per item, in order (MemoClaw clients read it)" }),
  failed: t.Integer(),
  tokens_used: t.Integer({ description: "always 0: no LLM is used (MemoClaw clients read it)" }),
});

const IdParams = t.Object({ id: Uuid });
const Ids = t.Object({ ids: t.Array(Uuid, { minItems: 1, maxItems: LIMITS.batch }) }, CLOSED);
const BulkDeleteReply = t.Object({
  deleted: t.Integer(),
  errors: t.Array(t.String()),
  results: t.Array(t.Object({ id: t.String(), deleted: t.Boolean(), error: t.Optional(t.String()) }), { description: "one per distinct id (MemoClaw clients read it)" }),
  failed: t.Array(t.Object({ id: t.String(), error: t.String() })),
});

/** The memory lifecycle: store, list, get, update, delete, history. */
export const memoryRoutes = (deps: AppDeps) => {
  const listed = memoryView(deps.embedder.modelId);

  /** PATCH /v1/memories/batch and its MemoClaw name POST /v1/memories/batch-update: one implementation. */
  const updateBatch = ({ body, wallet, userId, setHeader, request }: Caller & { body: Static<typeof BatchUpdateBody>; request: Request }) =>
    deps.paywall.charge(wallet, "PATCH /v1/memories/batch", request, setHeader, async () => {
      const errors: { id: string; status: number; message: string }[] = [];
      const results: { id: string; updated: boolean; error?: string }[] = [];
      let updated = 0;
      for (const [i, item] of body.updates.entries()) {
        const given = (item as { id?: unknown } | null)?.id;
        const id = typeof given === "string" ? given.slice(0, 64) : ""; // "": the item names no memory
        try {
          if (typeof given !== "string") throw invalid(`body/updates/${i}/id: required: the id of the memory to update`, { field: `body/updates/${i}/id`, rule: "required" });
          const { id: _, ...patch } = checked(BatchUpdate, item, `body/updates/${i}`);
          await deps.memories.update(userId, id, patch, { history: false });
          updated++;
          results.push({ id, updated: true });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          errors.push({ id, status: error.status, message: error.message });
          results.push({ id, updated: false, error: error.message });
        }
      }
      return { updated, errors, results, failed: errors.length, tokens_used: 0 };
    });

  /** DELETE /v1/memories and its MemoClaw names POST /v1/memories/batch-delete and /bulk-delete. */
  const deleteMany = async ({ body, userId }: Caller & { body: Static<typeof Ids> }) => {
    const { deleted, errors, failures } = await deps.memories.deleteMany(userId, body.ids);
    const failedIds = new Set(errors);
    const results = [...new Set(body.ids)].map((id) => {
      const failure = failures.find((f) => f.id === id);
      return failedIds.has(id) ? { id, deleted: false, error: failure!.reason } : { id, deleted: true };
    });
    return { deleted, errors, results, failed: failures.map((f) => ({ id: f.id, error: f.reason })) };
  };
  const deleteOptions = { ...jsonBody(Ids), response: { 200: BulkDeleteReply } };

  return new Elysia({ detail: { tags: ["memories"] } })
    .use(authPlugin(deps))
    .post(
      "/v1/store",
      async ({ body, wallet, userId, setHeader, request, set }) => {
        const { auto_relate, ...fields } = body;
        const { outcome, relations_created } = await deps.paywall.charge(wallet, "POST /v1/store", request, setHeader, () =>
          storeRelated(deps, userId, [fields], auto_relate ?? false),
        );
        set.status = 201;
        return storeReply(outcome, relations_created);
      },
      {
        ...jsonBody(StoreBody),
        response: { 201: StoreReply },
        detail: {
          summary: "Store one memory (paid)",
          description: "A near-duplicate of an existing memory in the same namespace is merged into it (`deduplicated: true`, the existing id); `merge_dropped` lists what the merge did not keep.",
        },
      },
    )
    .post(
      "/v1/store/batch",
      async ({ body, wallet, userId, setHeader, request, set }) => {
        const answer = await deps.paywall.charge(wallet, "POST /v1/store/batch", request, setHeader, () => storeBatchAnswer(deps, userId, body));
        set.status = 201;
        return answer;
      },
      {
        ...jsonBody(StoreBatchBody),
        response: { 201: StoreBatchReply },
        detail: { summary: "Store up to 100 memories (paid)", description: "All-or-nothing validation. `ids` has one id per item, in order; a duplicate item carries the id it merged into." },
      },
    )
    .get(
      "/v1/memories",
      async ({ query, userId }) => {
        const page = { limit: query.limit ?? 20, offset: query.offset ?? 0 };
        const { memories, total } = await deps.memories.list(userId, filterOf(query), page, refinementOf(query));
        return { memories: memories.map(listed), total, ...page };
      },
      {
        query: t.Object({
          limit: t.Optional(QueryInt("limit", 1, LIMITS.pageSize)),
          offset: t.Optional(QueryInt("offset", 0, LIMITS.offset)),
          ...MemoryQuery,
        }),
        response: { 200: t.Object({ memories: t.Array(ListedMemory), total: t.Integer(), limit: t.Integer(), offset: t.Integer() }) },
        detail: {
          summary: "List memories, newest first",
          description: "Filters: the spec's tags/namespace/session_id/agent_id, and memory_type, pinned, immutable, after/before (since/until), metadata (JSON object), sort (created_at, updated_at, importance) and order (asc, desc).",
        },
      },
    )
    .get(
      "/v1/memories/count",
      async ({ query, userId }) => ({ count: (await deps.memories.list(userId, filterOf(query), { limit: 1, offset: 0 }, refinementOf(query))).total }),
      {
        query: t.Object(MemoryQuery),
        response: { 200: t.Object({ count: t.Integer() }) },
        detail: { summary: "Count memories (MemoClaw)", description: "The `total` of GET /v1/memories with the same filters." },
      },
    )
    .patch("/v1/memories/batch", (c) => updateBatch(c), {
      ...jsonBody(BatchUpdateBody),
      response: { 200: BatchUpdateReply },
      detail: { summary: "Update up to 100 memories (paid)", description: "Failing items (404, 409, 422) are reported in `errors`; the rest proceed. Records no history (only PATCH /v1/memories/:id does)." },
    })
    .post("/v1/memories/batch-update", (c) => updateBatch(c), {
      ...jsonBody(BatchUpdateBody),
      response: { 200: BatchUpdateReply },
      detail: { summary: "Update up to 100 memories (paid; MemoClaw name of PATCH /v1/memories/batch)" },
    })
    .get("/v1/memories/:id", ({ params, userId }) => memoryAnswer(deps, userId, params.id), {
      params: IdParams,
      response: { 200: MemoryReply },
      detail: { summary: "Get one memory", description: "With `superseded_by` and `supersedes`: what replaced it and what it replaced (docs/retrieval.md › Current values)." },
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
      { ...NO_BODY, params: IdParams, response: { 200: t.Object({ deleted: t.Literal(true), id: Uuid }) }, detail: { summary: "Soft-delete one memory" } },
    )
    .delete("/v1/memories", (c) => deleteMany(c), {
      ...deleteOptions,
      detail: {
        summary: "Soft-delete up to 100 memories",
        description: "`errors` lists ids not deleted: missing, another wallet's, or immutable; `results` and `failed` say the same per id with the reason (not_found, immutable).",
      },
    })
    .post("/v1/memories/batch-delete", (c) => deleteMany(c), { ...deleteOptions, detail: { summary: "Soft-delete up to 100 memories (MemoClaw name of DELETE /v1/memories)" } })
    .post("/v1/memories/bulk-delete", (c) => deleteMany(c), { ...deleteOptions, detail: { summary: "Soft-delete up to 100 memories (MemoClaw name of DELETE /v1/memories)" } })
    .get("/v1/memories/:id/history", async ({ params, userId }) => ({ history: await deps.memories.history(userId, params.id) }), {
      params: IdParams,
      response: { 200: t.Object({ history: t.Array(HistoryEntry) }) },
      detail: { summary: "Change history of a memory, newest first" },
    });
};
