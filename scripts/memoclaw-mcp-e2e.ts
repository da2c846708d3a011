/**
 * Drives the public MemoClaw MCP server (`memoclaw-mcp`, not part of this repository) against a running
 * engram over stdio, with the official MCP SDK's `Client` + `StdioClientTransport`, and reports how many
 * of its tools work: every tool is called once or more in an everyday order and its answer is checked
 * (the stored memory is found, the update is visible through `memoclaw_get`, …).
 *
 *   # the server's source, anywhere outside this repository, with its npm dependencies installed:
 *   git --git-dir=<memoclaw-mcp.git> archive HEAD | tar -x -C /tmp/mc-mcp
 *   (cd /tmp/mc-mcp && npm install)
 *   AUTH_MESSAGE_PREFIX=memoclaw-auth FREE_TIER_CALLS=100000 PORT=8896 DATA_DIR=/tmp/engram-mcp-e2e bun run start &
 *   bun scripts/memoclaw-mcp-e2e.ts --server /tmp/mc-mcp --url http://127.0.0.1:8896
 *
 * The server runs (`bun src/index.ts`) with a fresh test wallet and a throw-away HOME. Tools are called
 * with a raw `tools/call` so that the answer can be checked even when its `structuredContent` breaks
 * the tool's own `outputSchema`; that check is then made separately (it is what `Client.callTool`
 * does, and such a tool fails there): a row marked `schema` worked but would be rejected by a strict
 * SDK client because of the server's schema (a client bug, e.g. a nullable field declared `string`).
 * A row marked `spec` is a known, deliberate difference (engram follows the spec). Every step runs even
 * when an earlier one failed. The exit code is the number of failed steps.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { generatePrivateKey } from "viem/accounts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const { values } = parseArgs({ options: { server: { type: "string" }, url: { type: "string", default: "http://127.0.0.1:8787" } } });
if (!values.server) {
  console.error("usage: bun scripts/memoclaw-mcp-e2e.ts --server <path to the MCP server's folder (with src/index.ts)> [--url http://127.0.0.1:8787]");
  process.exit(2);
}
const folder = resolve(values.server);
const home = mkdtempSync(join(tmpdir(), "memoclaw-mcp-home-"));
const files = mkdtempSync(join(tmpdir(), "memoclaw-mcp-files-"));
const env: Record<string, string> = {
  PATH: process.env.PATH ?? "",
  HOME: home,
  MEMOCLAW_URL: values.url!,
  MEMOCLAW_PRIVATE_KEY: generatePrivateKey(),
  MEMOCLAW_MAX_RETRIES: "0",
  MEMOCLAW_TIMEOUT: "60000",
};
const transport = new StdioClientTransport({ command: "bun", args: [join(folder, "src", "index.ts")], cwd: folder, env, stderr: "pipe" });
let serverLog = "";
transport.stderr?.on("data", (chunk: Buffer) => (serverLog = (serverLog + chunk.toString()).slice(-4000)));
const client = new Client({ name: "engram-mcp-e2e", version: "1.0.0" });
await client.connect(transport);
const tools = (await client.listTools()).tools;
const validator = new AjvJsonSchemaValidator();
const outputCheck = new Map(tools.filter((t) => t.outputSchema).map((t) => [t.name, validator.getValidator(t.outputSchema as any)]));

type Answer = { text: string; data: any; isError: boolean; schemaError?: string };
const called = new Set<string>();
const schemaErrors = new Map<string, string>();
/** One raw `tools/call`; `data` is the structured content (or the text parsed as JSON, if it is). */
async function call(name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  called.add(name);
  const r = await client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, { timeout: 120_000 });
  const text = r.content.map((c: any) => (c.type === "text" ? c.text : c.type === "resource_link" ? `[${c.uri}]` : "")).join("\n");
  let data: any = r.structuredContent;
  if (data === undefined) {
    try {
      data = JSON.parse(text);
    } catch {}
  }
  let schemaError: string | undefined;
  const check = outputCheck.get(name);
  if (!r.isError && check && r.structuredContent) {
    const v = check(r.structuredContent);
    if (!v.valid) schemaError = v.errorMessage;
  } else if (!r.isError && check && !r.structuredContent) schemaError = "no structuredContent";
  if (schemaError && !schemaErrors.has(name)) schemaErrors.set(name, schemaError);
  return { text, data, isError: Boolean(r.isError), schemaError };
}
/** Calls and requires a non-error answer. */
async function ok(name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const r = await call(name, args);
  if (r.isError) throw new Error(r.text.replace(/\s+/g, " ").slice(0, 200));
  return r;
}

const results: { step: string; tool: string; status: "ok" | "FAIL" | "spec"; note?: string }[] = [];
function check(condition: unknown, what: string): void {
  if (!condition) throw new Error(`expected ${what}`);
}
async function step<T>(tool: string, name: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    const value = await run();
    results.push({ step: name, tool, status: "ok" });
    return value;
  } catch (error) {
    results.push({ step: name, tool, status: "FAIL", note: String((error as Error).message ?? error).replace(/\s+/g, " ").slice(0, 220) });
    return undefined;
  }
}
async function specStep(tool: string, name: string, why: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
    results.push({ step: name, tool, status: "spec", note: why });
  } catch (error) {
    results.push({ step: name, tool, status: "FAIL", note: String((error as Error).message ?? error).replace(/\s+/g, " ").slice(0, 220) });
  }
}
/** A memory through the server's own `memoclaw_get`. */
async function get(id: string): Promise<any> {
  const r = await ok("memoclaw_get", { id });
  return r.data?.memory ?? r.data;
}
const memoriesOf = (r: Answer): any[] => r.data?.memories ?? r.data?.suggestions ?? [];

const ns = `mcp-e2e-${Date.now()}`;
const ns2 = `${ns}-other`;

await step("memoclaw_init", "init (health, wallet)", async () => {
  const r = await ok("memoclaw_init");
  check(r.data?.healthy === true && /^0x[0-9a-fA-F]{40}$/.test(r.data?.wallet ?? ""), `healthy and a wallet (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_status", "status (free tier)", async () => {
  const r = await ok("memoclaw_status");
  check(typeof r.data?.free_tier_remaining === "number" && r.data.free_tier_remaining > 0, `free calls left (got ${r.text.slice(0, 120)})`);
});
const first = await step("memoclaw_store", "store (tags, importance, type)", async () => {
  const r = await ok("memoclaw_store", { content: "The user prefers dark mode in every editor.", namespace: ns, tags: ["ui", "editor"], importance: 0.8, memory_type: "preference" });
  const id = r.data?.memory?.id;
  check(typeof id === "string", `{memory:{id}} (got ${r.text.slice(0, 120)})`);
  const m = await get(id);
  check(m.importance === 0.8 && m.memory_type === "preference" && m.tags?.join() === "ui,editor", `the fields stored (got ${JSON.stringify(m).slice(0, 160)})`);
  return id as string;
});
const second = await step("memoclaw_store", "store (pinned, session, agent)", async () => {
  const r = await ok("memoclaw_store", { content: "Deploys happen on Tuesdays after the standup.", namespace: ns, pinned: true, session_id: "s1", agent_id: "a1" });
  const m = await get(r.data?.memory?.id);
  check(m.pinned === true && m.session_id === "s1" && m.agent_id === "a1", "pinned, session, agent");
  return m.id as string;
});
await step("memoclaw_bulk_store", "bulk_store", async () => {
  const r = await ok("memoclaw_bulk_store", {
    memories: [
      { content: "The billing service is written in Go.", namespace: ns, tags: ["ops"] },
      { content: "Alice owns the payments roadmap.", namespace: ns },
      { content: "Staging runs on one small box.", namespace: ns },
    ],
  });
  check(r.data?.succeeded === 3 && r.data?.failed === 0, `the tool to report 3 stored (got ${r.text.slice(0, 160)})`);
});
// The bulk-stored ids, found by listing (so later steps run even when bulk_store's report is wrong).
const listed = memoriesOf(await call("memoclaw_list", { namespace: ns, limit: 50 }));
const batch = ["billing", "Alice", "Staging"].map((word) => listed.find((m: any) => m.content.includes(word))?.id as string);
await step("memoclaw_bulk_store", "bulk_store (stored, tags kept)", async () => {
  check(batch.every(Boolean), `3 bulk memories listed (got ${batch.filter(Boolean).length})`);
  check((await get(batch[0]!)).tags?.join() === "ops", "the item's tags kept");
});
await step("memoclaw_recall", "recall", async () => {
  const r = await ok("memoclaw_recall", { query: "editor theme", namespace: ns, limit: 3, min_similarity: 0 });
  check(memoriesOf(r)[0]?.id === first, `the preference first (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_recall", "recall (tags filter)", async () => {
  const r = await ok("memoclaw_recall", { query: "what language", namespace: ns, tags: ["ops"], min_similarity: 0 });
  check(memoriesOf(r).length === 1 && memoriesOf(r)[0].content.includes("billing"), "the tagged memory only");
});
await step("memoclaw_search", "search (keyword)", async () => {
  const r = await ok("memoclaw_search", { query: "billing", namespace: ns });
  check(memoriesOf(r).length === 1 && memoriesOf(r)[0].content.includes("billing"), `one hit (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_list", "list", async () => {
  const r = await ok("memoclaw_list", { namespace: ns });
  check(memoriesOf(r).length === 5 && r.data?.total === 5, `5 memories (got ${memoriesOf(r).length}, total ${r.data?.total})`);
});
await step("memoclaw_list", "list (memory_type, pinned filters)", async () => {
  const a = await ok("memoclaw_list", { namespace: ns, memory_type: "preference" });
  const b = await ok("memoclaw_list", { namespace: ns, pinned: true });
  check(memoriesOf(a).length === 1 && memoriesOf(a)[0].id === first, "the preference only");
  check(memoriesOf(b).length === 1 && memoriesOf(b)[0].id === second, "the pinned one only");
});
await step("memoclaw_get", "get", async () => {
  const m = await get(first!);
  check(m.id === first && m.content.includes("dark mode") && m.namespace === ns, "the memory");
});
await step("memoclaw_update", "update (content, importance, tags, session, agent)", async () => {
  await ok("memoclaw_update", { id: first, content: "The user prefers dark mode everywhere.", importance: 0.9, tags: ["ui", "theme"], session_id: "s2", agent_id: "a2" });
  const m = await get(first!);
  check(m.content.endsWith("everywhere.") && m.importance === 0.9 && m.tags?.join() === "ui,theme" && m.session_id === "s2" && m.agent_id === "a2", `every field changed (got ${JSON.stringify(m).slice(0, 200)})`);
});
await step("memoclaw_history", "history", async () => {
  const r = await ok("memoclaw_history", { id: first });
  check(Array.isArray(r.data?.history) && r.data.history.length >= 1, `one entry or more (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_pin", "pin", async () => {
  await ok("memoclaw_pin", { id: first });
  check((await get(first!)).pinned === true, "pinned");
});
await step("memoclaw_unpin", "unpin", async () => {
  await ok("memoclaw_unpin", { id: first });
  check((await get(first!)).pinned === false, "unpinned");
});
await step("memoclaw_batch_update", "batch_update", async () => {
  const r = await ok("memoclaw_batch_update", { updates: [{ id: batch![1], importance: 0.3 }, { id: batch![2], tags: ["infra"] }] });
  check(r.data?.updated === 2, `2 updated (got ${r.text.slice(0, 120)})`);
  check((await get(batch![1]!)).importance === 0.3 && (await get(batch![2]!)).tags?.join() === "infra", "both changes visible");
});
let relationId: string | undefined;
await step("memoclaw_create_relation", "create_relation", async () => {
  const r = await ok("memoclaw_create_relation", { memory_id: batch![0], target_id: first, relation_type: "related_to" });
  relationId = r.data?.relation?.id;
  check(typeof relationId === "string", `the relation id (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_list_relations", "list_relations", async () => {
  const r = await ok("memoclaw_list_relations", { memory_id: batch![0] });
  const rel = r.data?.relations;
  check(Array.isArray(rel) && rel.length === 1 && rel[0].id === relationId, `the relation (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_graph", "graph", async () => {
  const r = await ok("memoclaw_graph", { memory_id: batch![0], depth: 1 });
  const nodes = (r.data?.nodes ?? []).map((n: any) => n.id);
  check(nodes.includes(first) || r.text.includes(first!), `the related memory as a node (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_delete_relation", "delete_relation", async () => {
  await ok("memoclaw_delete_relation", { memory_id: batch![0], relation_id: relationId });
  const r = await ok("memoclaw_list_relations", { memory_id: batch![0] });
  check(r.data?.relations?.length === 0, "no relation left");
});
await step("memoclaw_context", "context", async () => {
  const r = await ok("memoclaw_context", { query: "what does the user prefer", namespace: ns, limit: 3 });
  check(memoriesOf(r).some((m: any) => m.content.includes("dark mode")) || r.text.includes("dark mode"), `the preference (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_core_memories", "core_memories", async () => {
  const r = await ok("memoclaw_core_memories", { namespace: ns, limit: 5 });
  check(memoriesOf(r)[0]?.id === second, `the pinned memory first (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_suggested", "suggested", async () => {
  const r = await ok("memoclaw_suggested", { namespace: ns, limit: 5 });
  const items = memoriesOf(r);
  check(items.length >= 1 && items.every((m: any) => typeof m.id === "string" && typeof m.content === "string"), `memories as suggestions (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_check_duplicates", "check_duplicates", async () => {
  const r = await ok("memoclaw_check_duplicates", { content: "The billing service is written in Go.", namespace: ns, min_similarity: 0.5 });
  check(r.data?.has_duplicates === true && r.data.duplicates?.[0]?.id === batch![0], `the billing memory (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_count", "count", async () => {
  const r = await ok("memoclaw_count", { namespace: ns });
  check(r.data?.count === 5, `5 (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_tags", "tags", async () => {
  const r = await ok("memoclaw_tags", { namespace: ns });
  const tags = (r.data?.tags ?? []).map((t: any) => t.tag);
  check(tags.includes("ops") && tags.includes("theme"), `ops and theme (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_namespaces", "namespaces", async () => {
  const r = await ok("memoclaw_namespaces");
  check((r.data?.namespaces ?? []).some((n: any) => (n.namespace ?? n.name) === ns && n.count === 5), `the namespace with 5 (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_stats", "stats", async () => {
  const r = await ok("memoclaw_stats");
  check(r.data?.total_memories >= 5, `totals (got ${r.text.slice(0, 120)})`);
});
const exported = await step("memoclaw_export", "export (json)", async () => {
  const r = await ok("memoclaw_export", { namespace: ns });
  check(memoriesOf(r).length === 5 && r.data?.count === 5, `5 rows (got ${r.text.slice(0, 120)})`);
  return memoriesOf(r);
});
await step("memoclaw_export", "export (jsonl)", async () => {
  const r = await ok("memoclaw_export", { namespace: ns, format: "jsonl" });
  check(r.text.includes("dark mode") || memoriesOf(r).length === 5, `the rows (got ${r.text.slice(0, 120)})`);
});
const ns3 = `${ns}-imported`;
await step("memoclaw_import", "import", async () => {
  const rows = (exported ?? [{ content: "Imported fallback row." }]).map((m: any) => ({ content: m.content, importance: m.importance, tags: m.tags, memory_type: m.memory_type, namespace: ns3 }));
  const r = await ok("memoclaw_import", { memories: rows });
  const list = await ok("memoclaw_list", { namespace: ns3 });
  check(memoriesOf(list).length === rows.length, `the rows listed (got ${memoriesOf(list).length})`);
  check(r.data?.succeeded === rows.length, `the tool to report ${rows.length} imported (got ${r.text.slice(0, 120)})`);
});
await step("memoclaw_ingest", "ingest (text)", async () => {
  const r = await ok("memoclaw_ingest", { text: "I switched from Vim to Helix last month.", namespace: `${ns}-ingest` });
  check(typeof r.data?.memories_created === "number" && r.data.memories_created >= 1, `memories_created (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_extract", "extract (messages)", async () => {
  const r = await ok("memoclaw_extract", { messages: [{ role: "user", content: "My favourite database is SQLite. I live in Lisbon." }], namespace: `${ns}-ingest` });
  const list = await ok("memoclaw_list", { namespace: `${ns}-ingest`, limit: 50 });
  check(memoriesOf(list).some((m: any) => /SQLite|Lisbon/.test(m.content)), `stored facts (got ${r.text.slice(0, 160)})`);
});
await step("memoclaw_migrate", "migrate (files)", async () => {
  const r = await ok("memoclaw_migrate", { files: [{ filename: "MEMORY.md", content: "# Notes\n- The user drinks green tea\n- Standups are at 9:30\n" }], namespace: `${ns}-migrated` });
  check(r.data?.files_processed === 1 && r.data?.memories_created >= 1, `a file processed (got ${r.text.slice(0, 160)})`);
  const list = await ok("memoclaw_list", { namespace: `${ns}-migrated` });
  check(memoriesOf(list).length >= 1, "migrated memories listed");
});
await step("memoclaw_consolidate", "consolidate (dry run)", async () => {
  await ok("memoclaw_store", { content: "The billing service is written in Go!", namespace: ns3 });
  const before = (await ok("memoclaw_count", { namespace: ns3 })).data?.count;
  const r = await ok("memoclaw_consolidate", { namespace: ns3, dry_run: true, min_similarity: 0.8 });
  check(Array.isArray(r.data?.clusters) && typeof r.data.merged === "number" && r.data.dry_run === true, `{clusters: [...], merged, dry_run} (got ${r.text.slice(0, 120)})`);
  const after = (await ok("memoclaw_count", { namespace: ns3 })).data?.count;
  check(typeof before === "number" && before === after, `nothing merged in a dry run (${before} then ${after}; ${r.text.slice(0, 120)})`);
});
await step("memoclaw_merge", "merge (combine)", async () => {
  const a = await ok("memoclaw_store", { content: "The office is in Porto.", namespace: ns2, tags: ["office"] });
  const b = await ok("memoclaw_store", { content: "The office has a rooftop terrace.", namespace: ns2, tags: ["building"] });
  const r = await ok("memoclaw_merge", { source_id: a.data.memory.id, target_id: b.data.memory.id, strategy: "combine" });
  check(r.data?.deleted_id === a.data.memory.id, `the source deleted (got ${r.text.slice(0, 160)})`);
  const m = await get(b.data.memory.id);
  check(m.content.includes("Porto") && m.content.includes("rooftop"), `combined content (got ${JSON.stringify(m).slice(0, 160)})`);
  const gone = await call("memoclaw_get", { id: a.data.memory.id });
  check(gone.isError, "the source gone");
});
// The server's resources and prompts read the API too (an MCP host shows them to the model).
const resourceText = async (uri: string): Promise<string> => {
  const r = await client.readResource({ uri });
  return r.contents.map((c: any) => c.text ?? "").join("\n");
};
await step("(resources)", "resources: stats, namespaces, core-memories, memories/{id}, namespaces/{ns}, tags/{tag}", async () => {
  const listed = (await client.listResources()).resources.map((r) => r.uri);
  check(["memoclaw://stats", "memoclaw://namespaces", "memoclaw://core-memories"].every((u) => listed.includes(u)), `the static resources (got ${listed.join(", ")})`);
  const stats = JSON.parse(await resourceText("memoclaw://stats"));
  check(stats.total_memories >= 5, `stats (got ${JSON.stringify(stats).slice(0, 100)})`);
  check((await resourceText("memoclaw://namespaces")).includes(ns), "the namespace listed");
  check((await resourceText("memoclaw://core-memories")).includes(second!), "the pinned memory among the core memories");
  check(JSON.parse(await resourceText(`memoclaw://memories/${second}`)).id === second, "the memory");
  const inNs = JSON.parse(await resourceText(`memoclaw://namespaces/${ns}`));
  check(inNs.count >= 2 && inNs.memories.every((m: any) => m.namespace === ns), `the namespace's memories (got ${JSON.stringify(inNs).slice(0, 100)})`);
  const tagged = JSON.parse(await resourceText("memoclaw://tags/ops"));
  check(tagged.count >= 1 && tagged.memories.every((m: any) => m.tags?.includes("ops")), `the tag's memories (got ${JSON.stringify(tagged).slice(0, 100)})`);
});
await step("(prompts)", "prompts: review-memories, load-context, memory-report", async () => {
  const text = async (name: string, args: Record<string, string>) =>
    (await client.getPrompt({ name, arguments: args })).messages.map((m: any) => m.content?.text ?? "").join("\n");
  check((await text("review-memories", { namespace: ns })).includes("Deploys happen on Tuesdays"), "review-memories lists the namespace's memories");
  check((await text("load-context", { task: "set up the deploy pipeline", namespace: ns })).includes("Deploys happen on Tuesdays"), "load-context recalls the relevant memory");
  const report = await text("memory-report", { namespace: ns });
  check(report.includes(ns) && report.includes("total_memories"), "memory-report with stats and namespaces");
});
await step("memoclaw_delete", "delete", async () => {
  const r = await ok("memoclaw_delete", { id: batch![0] });
  check(r.data?.deleted === true, "deleted: true");
  check((await call("memoclaw_get", { id: batch![0] })).isError, "gone");
});
await step("memoclaw_bulk_delete", "bulk_delete", async () => {
  const r = await ok("memoclaw_bulk_delete", { ids: [batch![1], batch![2]] });
  check(r.data?.succeeded === 2 && r.data?.failed === 0, `2 deleted (got ${r.text.slice(0, 120)})`);
  check((await call("memoclaw_get", { id: batch![1] })).isError && (await call("memoclaw_get", { id: batch![2] })).isError, "both gone");
});
await step("memoclaw_delete_namespace", "delete_namespace", async () => {
  const r = await ok("memoclaw_delete_namespace", { namespace: `${ns}-migrated` });
  check(r.data?.deleted >= 1, `deleted (got ${r.text.slice(0, 120)})`);
  check(memoriesOf(await ok("memoclaw_list", { namespace: `${ns}-migrated` })).length === 0, "none left");
});
await step("(errors)", "error: get unknown id", async () => {
  const r = await call("memoclaw_get", { id: "00000000-0000-4000-8000-000000000000" });
  check(r.isError && /not.?found/i.test(r.text), `a not-found message (got ${r.text.slice(0, 100)})`);
});
await specStep("memoclaw_update", "update immutable: false", "immutable is one-way in the spec: engram refuses", async () => {
  await ok("memoclaw_update", { id: second, immutable: true });
  const r = await call("memoclaw_update", { id: second, immutable: false });
  check(r.isError && (await get(second!)).immutable === true, "a refusal, still immutable");
});

await client.close();
rmSync(home, { recursive: true, force: true });
rmSync(files, { recursive: true, force: true });

for (const r of results) {
  const schema = r.status === "ok" && schemaErrors.has(r.tool) ? " [schema]" : "";
  console.log(`${r.status === "ok" ? "ok  " : r.status}${r.status === "spec" ? "" : " "} ${r.step}${schema}${r.note ? `: ${r.note}` : ""}`);
}
const uncalled = tools.map((t) => t.name).filter((n) => !called.has(n));
const failedTools = new Set(results.filter((r) => r.status === "FAIL").map((r) => r.tool));
const workingTools = tools.map((t) => t.name).filter((n) => called.has(n) && !failedTools.has(n));
console.log(`\noutput-schema violations (a strict SDK client's callTool rejects these answers):`);
for (const [tool, why] of schemaErrors) console.log(`  ${tool}: ${why.slice(0, 200)}`);
if (uncalled.length) console.log(`tools not called: ${uncalled.join(", ")}`);
const failed = results.filter((r) => r.status === "FAIL").length;
const strict = workingTools.filter((n) => !schemaErrors.has(n)).length;
console.log(`\nMemoClaw MCP server against ${values.url}: ${workingTools.length} of ${tools.length} tools work (${strict} also pass their own output schema); ${results.length - failed} of ${results.length} steps`);
if (failed && serverLog) console.error(`\nlast server stderr:\n${serverLog.slice(-600)}`);
process.exit(failed);
