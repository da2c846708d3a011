import { t, type Static } from "elysia";
import { MemoryType, ScopeField, Tags, Timestamp, storedTimestamp } from "../../domain/memory";
import type { MemoryFilter } from "../../domain/store-port";
import { csvHeader, csvRows, markdownSections, markdownTitle } from "../../domain/export-format";
import type { AppDeps } from "../deps";
import { ExportedMemory, exported } from "../present";

export const ExportFormat = t.Union([t.Literal("json"), t.Literal("csv"), t.Literal("markdown"), t.Literal("jsonl")]);
export type ExportFormat = Static<typeof ExportFormat>;

/** What an export is asked for: the MCP `export` tool's input; GET /v1/export's query reads as it (its booleans and tags decoded). */
export const ExportOptions = t.Object({
  format: t.Optional(ExportFormat),
  namespace: t.Optional(ScopeField),
  memory_type: t.Optional(MemoryType),
  tags: t.Optional(Tags),
  session_id: t.Optional(ScopeField),
  agent_id: t.Optional(ScopeField),
  before: t.Optional(Timestamp),
  after: t.Optional(Timestamp),
  include_deleted: t.Optional(t.Boolean()),
});
export type ExportOptions = Static<typeof ExportOptions>;

/** The memories an export covers. */
export function exportFilter(options: ExportOptions): MemoryFilter {
  return {
    namespace: options.namespace,
    memory_type: options.memory_type,
    tags: options.tags,
    session_id: options.session_id,
    agent_id: options.agent_id,
    created_before: storedTimestamp(options.before),
    created_after: storedTimestamp(options.after),
    include_deleted: options.include_deleted ?? false,
  };
}

/** The export answer, GET /v1/export's body and the MCP `export` tool's result. */
export const ExportAnswer = t.Object({
  format: t.String(),
  memories: t.Union([t.Array(ExportedMemory), t.String()]),
  count: t.Integer(),
  jsonl: t.Optional(t.String({ description: "format=jsonl: one JSON memory per line (memories is the array, as for json)" })),
});

/**
 * Memories read per list call while exporting. An export is written a page at a time, so what it
 * holds at once is one page, not the wallet (a whole large wallet at once is tens of MB the
 * allocators keep after it is freed).
 */
const EXPORT_PAGE = 250;

/** One list call's answer: a page of memories and the count under the filter when it was read. */
type ListedPage = Awaited<ReturnType<AppDeps["memories"]["list"]>>;

const readPage = (deps: Pick<AppDeps, "memories">, userId: string, filter: MemoryFilter, offset: number): Promise<ListedPage> =>
  deps.memories.list(userId, filter, { limit: EXPORT_PAGE, offset });

/** The wallet's memories under the filter, newest first, a page at a time from the first (read already), each with the count when it was read. */
async function* pages(deps: Pick<AppDeps, "memories">, userId: string, filter: MemoryFilter, first: ListedPage): AsyncGenerator<ListedPage> {
  for (let page = first, offset = 0; ; page = await readPage(deps, userId, filter, (offset += EXPORT_PAGE))) {
    yield page;
    if (page.memories.length < EXPORT_PAGE) return;
  }
}

/** A string's JSON encoding without its quotes: pieces of one JSON string written one after another. */
const jsonStringPart = (text: string): string => JSON.stringify(text).slice(1, -1);

/**
 * The export answer `{format, memories, count}` (+ `jsonl`) as JSON text, a piece per page:
 * `memories` is an array of exported memories (json, jsonl) or one string (the CSV or Markdown
 * document); `count` is the number of memories written.
 */
async function* exportJson(format: ExportFormat, memoryPages: AsyncGenerator<ListedPage>): AsyncGenerator<string> {
  const asText = format === "csv" || format === "markdown";
  yield `{"format":${JSON.stringify(format)},"memories":${asText ? '"' : "["}`;
  let count = 0;
  // jsonl repeats the rows as one string after the array; its lines are kept as encoded text
  const jsonlLines: string[] = [];
  for await (const page of memoryPages) {
    if (format === "csv") yield jsonStringPart((count === 0 ? csvHeader() : "") + csvRows(page.memories));
    else if (format === "markdown") yield jsonStringPart((count === 0 ? markdownTitle(page.total) : "") + markdownSections(page.memories));
    else {
      const rows = page.memories.map((memory) => JSON.stringify(exported(memory)));
      if (format === "jsonl") jsonlLines.push(...rows.map(jsonStringPart));
      if (rows.length > 0) yield (count === 0 ? "" : ",") + rows.join(",");
    }
    count += page.memories.length;
  }
  yield `${asText ? '"' : "]"},"count":${count}`;
  if (format === "jsonl") yield `,"jsonl":"${jsonlLines.join("\\n")}"`;
  yield "}";
}

/**
 * GET /v1/export's answer, streamed as it is read. The first page is read before answering, so a
 * store that fails answers with an error status; a failure on a later page ends the stream early
 * (the body is then not valid JSON, never a shorter export that looks whole).
 */
export async function exportStream(deps: Pick<AppDeps, "memories">, userId: string, filter: MemoryFilter, format: ExportFormat = "json"): Promise<Response> {
  const first = await readPage(deps, userId, filter, 0);
  const pieces = exportJson(format, pages(deps, userId, filter, first));
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await pieces.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "application/json" } });
}

/** The export answer as an object, for the MCP `export` tool: the same text as GET /v1/export, parsed. */
export async function exportAnswer(deps: Pick<AppDeps, "memories">, userId: string, filter: MemoryFilter, format: ExportFormat = "json") {
  return JSON.parse(await (await exportStream(deps, userId, filter, format)).text()) as Static<typeof ExportAnswer>;
}

/** The namespaces answer for GET /v1/namespaces and the MCP `namespaces` tool, with MemoClaw's `name` and `last_memory_at`. */
export async function namespacesAnswer(deps: AppDeps, userId: string, filter: Pick<MemoryFilter, "agent_id"> = {}) {
  const namespaces = await deps.store.namespaces(userId, deps.clock(), filter);
  const described = [];
  for (const { namespace, count } of namespaces) {
    const newest = await deps.memories.list(userId, { namespace, agent_id: filter.agent_id }, { limit: 1, offset: 0 });
    described.push({ namespace, name: namespace, count, last_memory_at: newest.memories[0]?.created_at ?? null });
  }
  return { namespaces: described, total: described.length };
}
