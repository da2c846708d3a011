import type { MemoryFilter } from "../../domain/store-port";
import { toCsv, toMarkdown } from "../../domain/export-format";
import type { AppDeps } from "../deps";
import { exported } from "../present";

export type ExportFormat = "json" | "csv" | "markdown" | "jsonl";

/** Memories read per list call while exporting. */
const EXPORT_PAGE = 1000;

/**
 * The export answer `{format, memories, count}` (+ `jsonl`) for GET /v1/export and the MCP `export`
 * tool; each caller turns its own input (query strings or JSON arguments) into the filter.
 */
export async function exportAnswer(deps: Pick<AppDeps, "memories">, userId: string, filter: MemoryFilter, format: ExportFormat = "json") {
  const memories = [];
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const page = await deps.memories.list(userId, filter, { limit: EXPORT_PAGE, offset });
    memories.push(...page.memories);
    if (page.memories.length < EXPORT_PAGE) break;
  }
  if (format === "jsonl") {
    const rows = memories.map(exported);
    return { format, memories: rows, count: memories.length, jsonl: rows.map((row) => JSON.stringify(row)).join("\n") };
  }
  const body = format === "csv" ? toCsv(memories) : format === "markdown" ? toMarkdown(memories) : memories.map(exported);
  return { format, memories: body, count: memories.length };
}

/** The namespaces answer for GET /v1/namespaces and the MCP `namespaces` tool, with MemoClaw's `name` and `last_memory_at`. */
export async function namespacesAnswer(deps: AppDeps, userId: string) {
  const namespaces = await deps.store.namespaces(userId, deps.clock());
  const described = [];
  for (const { namespace, count } of namespaces) {
    const newest = await deps.memories.list(userId, { namespace }, { limit: 1, offset: 0 });
    described.push({ namespace, name: namespace, count, last_memory_at: newest.memories[0]?.created_at ?? null });
  }
  return { namespaces: described, total: described.length };
}
