import { t, type Static } from "elysia";
import { Type, type TObject } from "@sinclair/typebox";
import { DEFAULT_NAMESPACE, LIMITS, MemoryType, ScopeField, StoreFields, PatchFields, Timestamp, Uuid, type Memory } from "../domain/memory";
import { IngestSource } from "../domain/ingest/ingest";
import { SortField, SortOrder } from "../domain/list-query";
import { SuggestionReason } from "../domain/suggested";
import { RelationInput } from "../domain/relation";
import type { PaidRoute } from "../billing/prices";
import type { AppDeps } from "../http/deps";
import { core, memoryView } from "../http/present";
import { filterOf, refinementOf } from "../http/memory-query";
import { recallAnswer, RecallBody, searchAnswer, SearchBody } from "../http/operations/retrieval";
import { ingestAnswer, IngestBody } from "../http/operations/ingest";
import { exportAnswer, exportFilter, ExportOptions, namespacesAnswer } from "../http/operations/export";
import { storeBatchAnswer, StoreBatchBody, StoreReply, storeReply } from "../http/operations/store";
import { memoryAnswer } from "../http/operations/memory";
import { suggestedAnswer } from "../http/operations/suggested";
import { graphAnswer } from "../http/operations/graph";

/**
 * The MCP tools: one row per tool, each the counterpart of a REST endpoint (named in `rest`).
 * Inputs are the REST body's TypeBox schema (JSON Schema as is), or for GET endpoints the query
 * string's fields with their JSON types (integers, booleans, tag arrays instead of strings). Each
 * runs the same domain calls as its route, through the same paywall for the paid ones, and
 * returns the same JSON the route answers.
 */

/** What a tool runs with: the services and the authenticated caller. */
export interface ToolContext {
  deps: AppDeps;
  wallet: string;
  userId: string;
  /** runs paid work the way the REST route does (free tier, then x402) */
  charge<T>(route: PaidRoute, work: () => Promise<T>): Promise<T>;
}

export interface Tool<S extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  /** the REST endpoint this tool mirrors */
  rest: string;
  input: S;
  /** set for tools that take a free call or a payment, as their endpoint does */
  paid?: PaidRoute;
  /** MCP tool annotations: reads only / may destroy */
  readOnly?: boolean;
  destructive?: boolean;
  run(ctx: ToolContext, args: Static<S>): Promise<Record<string, unknown>>;
  /** a readable rendering of the result (the JSON is in structuredContent); JSON when absent */
  text?(result: any): string;
}

const tool = <S extends TObject>(def: Tool<S>): Tool => def as unknown as Tool;

const Id = t.Object({ id: Uuid });
const Limit = (fallback: number, maximum: number = LIMITS.pageSize) => t.Optional(Type.Integer({ minimum: 1, maximum, description: `default ${fallback}` }));
const Offset = t.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.offset, description: "default 0" }));

type Line = Pick<Memory, "id" | "content"> & Partial<Pick<Memory, "memory_type" | "pinned" | "importance" | "namespace">> & { similarity?: number };
/** One memory as a line of text: id, type, flags and content. */
const line = (m: Line) => {
  const facts = [m.memory_type, m.namespace && m.namespace !== DEFAULT_NAMESPACE ? `ns ${m.namespace}` : undefined, m.pinned ? "pinned" : undefined, m.similarity !== undefined ? `score ${m.similarity.toFixed(3)}` : undefined];
  return `- ${m.id} [${facts.filter(Boolean).join(", ")}] ${m.content}`;
};
const lines = (heading: string, memories: Line[]) => (memories.length ? `${heading}\n${memories.map(line).join("\n")}` : `${heading}\n(none)`);

const ListInput = t.Object({
  limit: Limit(20),
  offset: Offset,
  tags: t.Optional(t.Array(t.String({ maxLength: LIMITS.tagChars }), { maxItems: LIMITS.tags, description: "memories having any of these tags" })),
  namespace: t.Optional(ScopeField),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  memory_type: t.Optional(MemoryType),
  pinned: t.Optional(t.Boolean()),
  immutable: t.Optional(t.Boolean()),
  after: t.Optional(Timestamp),
  before: t.Optional(Timestamp),
  sort: t.Optional(SortField),
  order: t.Optional(SortOrder),
  metadata: t.Optional(t.Record(t.String(), t.Unknown(), { maxProperties: LIMITS.metadataKeys, description: "every key must match" })),
});

const ContextInput = t.Object({
  query: t.Optional(t.String({ maxLength: LIMITS.recallQuery })),
  namespace: t.Optional(ScopeField),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  max_memories: t.Optional(Type.Integer({ minimum: 1, maximum: 100, description: "default 10" })),
  max_tokens: t.Optional(Type.Integer({ minimum: 100, maximum: 16000, description: "default 4000" })),
  format: t.Optional(t.Union([t.Literal("text"), t.Literal("structured")])),
  include_metadata: t.Optional(t.Boolean()),
  summarize: t.Optional(t.Boolean()),
});

export const TOOLS: Tool[] = [
  tool({
    name: "store",
    title: "Store a memory",
    description: "Store one memory (paid: one free call or an x402 payment). A near-duplicate in the same namespace is merged into the existing memory (deduplicated: true, its id).",
    rest: "POST /v1/store",
    input: StoreFields,
    paid: "POST /v1/store",
    async run({ deps, userId, charge }, args) {
      return storeReply(await charge("POST /v1/store", () => deps.memories.storeMany(userId, [args])));
    },
    text: (r: Static<typeof StoreReply>) => {
      if (!r.deduplicated) return `Stored memory ${r.id}.`;
      const d = r.merge_dropped;
      const lost = d ? [...d.tags.map((tag) => `tag ${tag}`), ...d.metadata_keys.map((key) => `metadata ${key}`), ...d.fields].join(", ") : "";
      return `Merged into existing memory ${r.id} (near-duplicate)${lost ? `; not kept: ${lost}` : ""}.`;
    },
  }),
  tool({
    name: "store_batch",
    title: "Store up to 100 memories",
    description: "Store 1 to 100 memories in one call (paid as one batch). `ids` has one id per item, in order; a duplicate item carries the id it merged into.",
    rest: "POST /v1/store/batch",
    input: StoreBatchBody,
    paid: "POST /v1/store/batch",
    run: ({ deps, userId, charge }, args) => charge("POST /v1/store/batch", () => storeBatchAnswer(deps, userId, args)),
    text: (r) => `Stored ${r.count} memories (${r.deduplicated_count} merged into existing ones): ${r.ids.join(", ")}`,
  }),
  tool({
    name: "recall",
    title: "Recall memories (semantic)",
    description: "Hybrid semantic + keyword recall ranked by relevance, recency, importance and decay (paid). Use it before answering anything that may depend on what was remembered.",
    rest: "POST /v1/recall",
    input: RecallBody,
    paid: "POST /v1/recall",
    readOnly: true,
    async run({ deps, userId, charge }, body) {
      return charge("POST /v1/recall", () => recallAnswer(deps, userId, body));
    },
    text: (r) => lines(`${r.memories.length} memories recalled:`, r.memories),
  }),
  tool({
    name: "search",
    title: "Keyword search (BM25)",
    description: "Full-text keyword search (BM25), no embedding; free.",
    rest: "POST /v1/search",
    input: SearchBody,
    readOnly: true,
    run: ({ deps, userId }, body) => searchAnswer(deps, userId, body),
    text: (r) => lines(`${r.total} matches for ${JSON.stringify(r.query)}:`, r.memories),
  }),
  tool({
    name: "list",
    title: "List memories",
    description: "List memories, newest first, with filters (tags, namespace, session, agent, type, pinned, immutable, after/before, metadata) and paging.",
    rest: "GET /v1/memories",
    input: ListInput,
    readOnly: true,
    async run({ deps, userId }, query) {
      const listed = memoryView(deps.embedder.modelId);
      const page = { limit: query.limit ?? 20, offset: query.offset ?? 0 };
      const { memories, total } = await deps.memories.list(userId, filterOf(query), page, refinementOf(query));
      return { memories: memories.map(listed), total, ...page };
    },
    text: (r) => lines(`${r.memories.length} of ${r.total} memories (offset ${r.offset}):`, r.memories),
  }),
  tool({
    name: "get",
    title: "Get a memory",
    description: "One memory by id (NOT_FOUND when missing, deleted or not yours).",
    rest: "GET /v1/memories/:id",
    input: Id,
    readOnly: true,
    run: ({ deps, userId }, { id }) => memoryAnswer(deps, userId, id),
    text: (m) => `${line(m)}\n${JSON.stringify({ metadata: m.metadata, importance: m.importance, session_id: m.session_id, agent_id: m.agent_id, created_at: m.created_at, updated_at: m.updated_at })}`,
  }),
  tool({
    name: "update",
    title: "Update a memory",
    description: "Change fields of one memory (content re-embeds it); records a history entry. Immutable memories give CONFLICT.",
    rest: "PATCH /v1/memories/:id",
    input: t.Composite([Id, PatchFields], { minProperties: 2 }),
    async run({ deps, userId }, { id, ...patch }) {
      return memoryView(deps.embedder.modelId)(await deps.memories.update(userId, id, patch, { history: true }));
    },
    text: (m) => `Updated:\n${line(m)}`,
  }),
  tool({
    name: "delete",
    title: "Delete a memory",
    description: "Soft-delete one memory (CONFLICT when immutable).",
    rest: "DELETE /v1/memories/:id",
    input: Id,
    destructive: true,
    async run({ deps, userId }, { id }) {
      await deps.memories.delete(userId, id);
      return { deleted: true, id };
    },
    text: (r) => `Deleted memory ${r.id}.`,
  }),
  tool({
    name: "bulk_delete",
    title: "Delete up to 100 memories",
    description: "Soft-delete 1 to 100 memories; `errors` lists the ids not deleted (missing, not yours, immutable).",
    rest: "DELETE /v1/memories",
    input: t.Object({ ids: t.Array(Uuid, { minItems: 1, maxItems: LIMITS.batch }) }),
    destructive: true,
    async run({ deps, userId }, { ids }) {
      const { deleted, errors, failures } = await deps.memories.deleteMany(userId, ids);
      const reasons = new Map(failures.map((f) => [f.id, f.reason]));
      const results = [...new Set(ids)].map((id) => (reasons.has(id) ? { id, deleted: false, error: reasons.get(id)! } : { id, deleted: true }));
      return { deleted, errors, results, failed: failures.map((f) => ({ id: f.id, error: f.reason })) };
    },
    text: (r) => `Deleted ${r.deleted}; not deleted: ${r.failed.length ? r.failed.map((f: { id: string; error: string }) => `${f.id} (${f.error})`).join(", ") : "none"}.`,
  }),
  tool({
    name: "pin",
    title: "Pin a memory (core)",
    description: "Pin a memory: exempt from decay, first in context.",
    rest: "POST /v1/memories/core",
    input: Id,
    async run({ deps, userId }, { id }) {
      await deps.memories.setPinned(userId, id, true);
      return { pinned: true, id };
    },
    text: (r) => `Pinned memory ${r.id}.`,
  }),
  tool({
    name: "unpin",
    title: "Unpin a memory",
    description: "Unpin a memory (NOT_FOUND when it is not pinned); it resumes decaying.",
    rest: "DELETE /v1/memories/core/:id",
    input: Id,
    async run({ deps, userId }, { id }) {
      await deps.memories.setPinned(userId, id, false);
      return { unpinned: true, id };
    },
    text: (r) => `Unpinned memory ${r.id}.`,
  }),
  tool({
    name: "relate",
    title: "Relate two memories",
    description: "Create a typed relation from memory `id` (source) to `target_id`.",
    rest: "POST /v1/memories/:id/relations",
    input: t.Composite([t.Object({ id: Uuid }), RelationInput]),
    async run({ deps, userId }, { id, ...input }) {
      return { ...(await deps.relations.create(userId, id, input)), created: true };
    },
    text: (r) => `Related ${r.source_id} -${r.relation_type}-> ${r.target_id} (relation ${r.id}).`,
  }),
  tool({
    name: "relations",
    title: "Relations of a memory",
    description: "Incoming and outgoing relations of a memory, newest first, each with the memory at its other end.",
    rest: "GET /v1/memories/:id/relations",
    input: Id,
    readOnly: true,
    async run({ deps, userId }, { id }) {
      return { relations: await deps.relations.list(userId, id) };
    },
  }),
  tool({
    name: "graph",
    title: "Relation graph",
    description: "The relation graph around a memory (memory_id), of a namespace, or of every namespace when neither is given: breadth-first up to `depth` hops (1–3, default 2) and `max_nodes` (default 100, max 500).",
    rest: "GET /v1/graph",
    input: t.Object({
      memory_id: t.Optional(Uuid),
      namespace: t.Optional(ScopeField),
      depth: t.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
      max_nodes: t.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    }),
    readOnly: true,
    run: ({ deps, userId }, query) => graphAnswer(deps, userId, query),
  }),
  tool({
    name: "history",
    title: "Change history",
    description: "The change history of a memory (one entry per update), newest first.",
    rest: "GET /v1/memories/:id/history",
    input: Id,
    readOnly: true,
    async run({ deps, userId }, { id }) {
      return { history: await deps.memories.history(userId, id) };
    },
  }),
  tool({
    name: "context",
    title: "Assemble context",
    description: "A prompt-ready block of the memories most relevant to `query` (pinned first) within max_memories and max_tokens (paid).",
    rest: "POST /v1/context",
    input: ContextInput,
    paid: "POST /v1/context",
    readOnly: true,
    async run({ deps, userId, charge }, body) {
      return charge("POST /v1/context", async () => {
        const { llm_tokens: _, items, ...assembled } = await deps.context.assemble(userId, {
          query: body.query,
          filter: { namespace: body.namespace, session_id: body.session_id, agent_id: body.agent_id },
          max_memories: body.max_memories ?? 10,
          max_tokens: body.max_tokens ?? 4000,
          format: body.format ?? "text",
          include_metadata: body.include_metadata ?? false,
          summarize: body.summarize ?? false,
        });
        return { ...assembled, memories: items };
      });
    },
    text: (r) => (typeof r.context === "string" ? r.context : JSON.stringify(r.context, null, 2)),
  }),
  tool({
    name: "ingest",
    title: "Ingest a conversation or text",
    description: "Extract facts from `messages` (roles user, assistant, system, tool) or `text` and store the new ones; duplicates of existing memories are skipped (paid).",
    rest: "POST /v1/ingest",
    input: IngestBody,
    paid: "POST /v1/ingest",
    run: ({ deps, userId, charge }, body) => charge("POST /v1/ingest", () => ingestAnswer(deps, userId, body)),
    text: (r) => `Extracted ${r.facts_extracted} facts: stored ${r.facts_stored}, ${r.facts_deduplicated} already known, ${r.relations_created} relations.`,
  }),
  tool({
    name: "extract",
    title: "Extract facts (no storing)",
    description: "The same extraction as ingest, without storing anything; free.",
    rest: "POST /v1/extract",
    input: t.Object(IngestSource),
    readOnly: true,
    async run({ deps }, body) {
      const { facts, tokens_used } = await deps.ingest.extract(body);
      return { facts, tokens_used };
    },
    text: (r) => (r.facts.length ? r.facts.map((f: { memory_type: string; content: string }) => `- [${f.memory_type}] ${f.content}`).join("\n") : "(no facts)"),
  }),
  tool({
    name: "stats",
    title: "Memory statistics",
    description: "Counts by type and namespace, pinned, never accessed, importance, oldest and newest.",
    rest: "GET /v1/stats",
    input: t.Object({}),
    readOnly: true,
    async run({ deps, userId }) {
      return deps.store.stats(userId, deps.clock());
    },
  }),
  tool({
    name: "namespaces",
    title: "Namespaces",
    description: "Namespaces with their active memory counts and newest memory time.",
    rest: "GET /v1/namespaces",
    input: t.Object({}),
    readOnly: true,
    run: ({ deps, userId }) => namespacesAnswer(deps, userId),
    text: (r) => r.namespaces.map((n: { namespace: string; count: number }) => `- ${n.namespace}: ${n.count}`).join("\n") || "(none)",
  }),
  tool({
    name: "suggested",
    title: "Memories worth a look",
    description: "Memories flagged decaying, hot, fresh or stale (only `category` when given), up to `limit` (default 10).",
    rest: "GET /v1/suggested",
    input: t.Object({
      namespace: t.Optional(ScopeField),
      session_id: t.Optional(ScopeField),
      agent_id: t.Optional(ScopeField),
      category: t.Optional(SuggestionReason),
      limit: Limit(10),
    }),
    readOnly: true,
    run: ({ deps, userId }, query) =>
      suggestedAnswer(deps, userId, { namespace: query.namespace, session_id: query.session_id, agent_id: query.agent_id }, query.limit ?? 10, query.category),
    text: (r) =>
      r.suggestions.length ? r.suggestions.map((s: { reason: string; memory: Line }) => `${s.reason}: ${line(s.memory).slice(2)}`).join("\n") : "(nothing flagged)",
  }),
  tool({
    name: "export",
    title: "Export memories",
    description: "Export memories (newest first) as JSON, JSONL, CSV or Markdown, with filters.",
    rest: "GET /v1/export",
    input: ExportOptions,
    readOnly: true,
    run: ({ deps, userId }, query) => exportAnswer(deps, userId, exportFilter(query), query.format),
    text: (r) => (typeof r.memories === "string" ? r.memories : r.jsonl ?? JSON.stringify(r.memories, null, 2)),
  }),
];

/** The pinned memories, as GET /v1/memories/core answers them (first 100). */
export async function coreMemories(deps: AppDeps, userId: string) {
  const { memories, total } = await deps.memories.list(userId, { pinned: true }, { limit: LIMITS.pageSize, offset: 0 });
  return { memories: memories.map(core), total };
}
