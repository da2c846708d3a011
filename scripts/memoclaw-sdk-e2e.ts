/**
 * Drives the public MemoClaw TypeScript SDK (`@memoclaw/sdk`, not part of this repository) against a
 * running engram and reports how many of its methods work, each with the fields it parses checked.
 *
 *   # the SDK's source, anywhere outside this repository, with viem resolvable from it, e.g.:
 *   git --git-dir=<memoclaw-sdk.git> archive HEAD typescript | tar -x -C /tmp/memoclaw-sdk
 *   ln -s "$PWD/node_modules" /tmp/memoclaw-sdk/typescript/node_modules
 *   AUTH_MESSAGE_PREFIX=memoclaw-auth PORT=8899 DATA_DIR=/tmp/engram-e2e bun run start &
 *   bun scripts/memoclaw-sdk-e2e.ts --sdk /tmp/memoclaw-sdk/typescript/src --url http://127.0.0.1:8899
 *
 * Every step runs even when an earlier one failed; the exit code is the number of failed steps. A step
 * marked `sdk` is a known place where the SDK's own types contradict the spec or, where the spec is
 * silent, MemoClaw's API reference and the other three clients (engram follows those): `run` checks
 * engram's answer; shown, not counted as working, not a failure.
 */
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { generatePrivateKey } from "viem/accounts";

const { values } = parseArgs({ options: { sdk: { type: "string" }, url: { type: "string", default: "http://127.0.0.1:8787" } } });
if (!values.sdk) {
  console.error("usage: bun scripts/memoclaw-sdk-e2e.ts --sdk <path to the SDK's typescript/src> [--url http://127.0.0.1:8787]");
  process.exit(2);
}
// The SDK's own module, loaded at run time: its types are not ours to depend on.
const sdk = (await import(join(resolve(values.sdk), "index.ts"))) as { MemoClawClient: new (options: Record<string, unknown>) => any };
const client = new sdk.MemoClawClient({ privateKey: generatePrivateKey(), baseUrl: values.url, maxRetries: 0 });

const results: { step: string; status: "ok" | "FAIL" | "sdk"; note?: string }[] = [];
function check(condition: unknown, what: string): void {
  if (!condition) throw new Error(`expected ${what}`);
}
const failure = (error: unknown) => {
  const e = error as { code?: string; message?: string };
  return `${e.code ?? ""} ${e.message ?? String(error)}`.trim().slice(0, 200);
};
async function step<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    const value = await run();
    results.push({ step: name, status: "ok" });
    return value;
  } catch (error) {
    results.push({ step: name, status: "FAIL", note: failure(error) });
    return undefined;
  }
}
/** A step where the SDK's types depart from MemoClaw's API reference on purpose: `run` checks engram's answer. */
async function sdkStep(name: string, why: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
    results.push({ step: name, status: "sdk", note: why });
  } catch (error) {
    results.push({ step: name, status: "FAIL", note: failure(error) });
  }
}
const isMemory = (m: any) => typeof m?.id === "string" && typeof m.embedding_model === "string" && "deleted_at" in m && typeof m.immutable === "boolean";
const ns = `e2e-${Date.now()}`;

const stored = await step("store", async () => {
  const r = await client.store({ content: "The user prefers dark mode in every editor.", namespace: ns, memory_type: "preference", metadata: { tags: ["ui"] }, importance: 0.8 });
  check(r.stored === true && typeof r.id === "string", "{id, stored}");
  return r.id as string;
});
const batch = await step("storeBatch", async () => {
  const r = await client.storeBatch([
    { content: "Deploys happen on Tuesdays after the standup.", namespace: ns, metadata: { tags: ["ops"] } },
    { content: "The billing service is written in Go.", namespace: ns, memory_type: "project" },
    { content: "Alice owns the payments roadmap.", namespace: ns },
  ]);
  check(r.ids.length === 3 && r.count === 3, "3 ids");
  return r.ids as string[];
});
await step("storeBuilder", async () => {
  const builder = client.storeBuilder();
  if (typeof builder?.content !== "function") throw new Error("builder API differs");
  const r = await builder.content("Staging runs on one Hetzner box.").namespace(ns).tags(["infra"]).importance(0.4).execute();
  check(typeof r.id === "string", "id");
});
await step("recall", async () => {
  const r = await client.recall({ query: "editor theme", namespace: ns, limit: 3, filters: { memory_type: "preference" }, include_relations: true });
  check(r.memories.length >= 1 && r.memories[0].id === stored && typeof r.query_tokens === "number", "the preference first");
});
await step("search (recall alias)", async () => {
  const r = await client.search({ query: "deploy day", namespace: ns });
  check(r.memories.length >= 1, "results");
});
await step("list", async () => {
  const r = await client.list({ namespace: ns, limit: 10, tags: ["ops"] });
  check(r.memories.length === 1 && isMemory(r.memories[0]) && r.total === 1, "one full Memory");
});
await step("iterMemories / listAll", async () => {
  let n = 0;
  for await (const m of client.listAll({ namespace: ns, batchSize: 2 })) if (isMemory(m)) n++;
  check(n === 5, `5 memories (got ${n})`);
});
await step("get", async () => check(isMemory(await client.get(stored)), "a full Memory"));
await step("update", async () => {
  const r = await client.update(stored!, { importance: 0.9, metadata: { tags: ["ui", "editor"] } });
  check(r.importance === 0.9 && isMemory(r), "the updated Memory");
});
await step("getHistory", async () => {
  const h = await client.getHistory(stored);
  check(Array.isArray(h) && h.length === 1 && h[0].changes.importance === 0.9, "one entry");
});
await step("updateBatch", async () => {
  const r = await client.updateBatch([{ id: batch![0], importance: 0.7 }, { id: batch![1], pinned: true }]);
  check(r.updated === 2 && r.failed === 0 && r.results.length === 2, "2 updated");
});
let relationId: string | undefined;
await step("createRelation", async () => {
  const r = await client.createRelation(batch![1], { target_id: batch![2], relation_type: "related_to" });
  check(r.created === true && typeof r.id === "string", "{id, created}");
  relationId = r.id;
});
await step("listRelations", async () => {
  const r = await client.listRelations(batch![1]);
  check(r.relations.length === 1 && r.relations[0].memory.id === batch![2], "the other memory");
});
await step("getMemoryGraph", async () => {
  const g = await client.getMemoryGraph(batch![1], 1);
  check(g instanceof Map && g.size >= 1, "a graph");
});
await step("findRelated", async () => {
  const incoming = await client.findRelated(batch![1], { direction: "incoming" });
  const outgoing = await client.findRelated(batch![1], { relationType: "related_to", direction: "outgoing" });
  check(incoming.length === 0 && outgoing.length === 1 && outgoing[0].id === relationId && outgoing[0].memory?.id, "the outgoing relation, with the other memory");
});
await step("deleteRelation", async () => {
  const r = await client.deleteRelation(batch![1], relationId);
  check(r.deleted === true && r.id === relationId, "{deleted, id}");
});
await step("suggested", async () => {
  const r = await client.suggested({ namespace: ns, limit: 5 });
  check(Array.isArray(r.suggested) && r.suggested.every((s: any) => s.category && typeof s.review_score === "number") && typeof r.total === "number" && r.categories, "{suggested, categories, total}");
});
await step("assembleContext", async () => {
  const r = await client.assembleContext({ query: "what does the user prefer", namespace: ns, max_memories: 3 });
  check(typeof r.context === "string" && r.memories_used >= 1, "a context");
});
await step("listNamespaces", async () => {
  const r = await client.listNamespaces();
  check(r.namespaces.some((n: any) => n.name === ns && n.count >= 5 && n.last_memory_at) && r.total >= 1, "the namespace by name");
});
await step("stats", async () => check((await client.stats()).total_memories >= 5, "totals"));
await step("coreMemories", async () => {
  const r = await client.coreMemories({ namespace: ns, limit: 5 });
  check(r.memories[0]?.id === batch![1] && isMemory(r.memories[0]), "the pinned memory first");
});
await step("textSearch", async () => {
  const r = await client.textSearch({ query: "billing", namespace: ns, limit: 5 });
  check(r.memories.length === 1 && isMemory(r.memories[0]) && r.total === 1, "one full Memory");
});
await step("export", async () => {
  const r = await client.export({ format: "json", namespace: ns });
  check(r.format === "json" && Array.isArray(r.memories) && r.count >= 5, "json rows");
});
await sdkStep(
  "export (csv): ExportResponse.memories",
  "types.ts declares `memories: unknown[]` for every format; the spec's GET /v1/export has 'formatted output for CSV and Markdown', which engram answers as one document (a string)",
  async () => {
    const r = await client.export({ format: "csv", namespace: ns });
    check(r.format === "csv" && typeof r.memories === "string" && r.memories.startsWith("id,content,") && r.count >= 5, "the CSV document");
  },
);
await step("ingest", async () => {
  const r = await client.ingest({ messages: [{ role: "user", content: "I switched from Vim to Helix last month." }], namespace: ns });
  check(Array.isArray(r.memory_ids) && typeof r.facts_extracted === "number", "ingest counts");
});
await step("extract", async () => {
  const r = await client.extract({ messages: [{ role: "user", content: "My favourite database is SQLite." }], namespace: ns });
  check(Array.isArray(r.memory_ids) && r.facts_stored >= 1, "stored facts");
});
// Two copies in one namespace (a store would merge the second into the first, a namespace move does not).
const dupNs = `${ns}-dup`;
let dryAnswer: any;
await step("consolidate", async () => {
  const keep = (await client.store({ content: "The office wifi password rotates every month.", namespace: dupNs, importance: 0.7 })).id as string;
  const moved = (await client.store({ content: "The office wifi password rotates every month.", namespace: `${dupNs}-x` })).id as string;
  await client.update(moved, { namespace: dupNs });
  const dry = (dryAnswer = await client.consolidate({ namespace: dupNs, dry_run: true }));
  check(dry.dry_run === true && dry.merged === 1 && dry.tokens_used === 0, "{merged: 1, dry_run: true, tokens_used: 0}");
  check(Array.isArray(dry.details) && dry.details[0]?.merged_into === keep && dry.details[0].memory_ids.includes(moved), "details: the two copies, merged into the first");
  check((await client.list({ namespace: dupNs })).total === 2, "nothing merged by a dry run");
  const r = await client.consolidate({ namespace: dupNs, min_similarity: 0.9 });
  check(r.dry_run === false && r.merged === 1, "{merged: 1}");
  check((await client.list({ namespace: dupNs })).memories.map((m: any) => m.id).join() === keep, "the kept copy alone");
});
await sdkStep(
  "consolidate: ConsolidateResponse.clusters",
  "types.ts declares `clusters: number`; MemoClaw's API reference, the Python SDK, the CLI (`clusters.length`) and memoclaw-mcp's output schema have the list of clusters there (engram: the list; its length is `clusters_found`)",
  async () => {
    check(Array.isArray(dryAnswer?.clusters) && dryAnswer.clusters.length === 1 && dryAnswer.clusters_found === 1, "the dry run's clusters: a list of one cluster (clusters_found: 1)");
  },
);
await step("migrate", async () => {
  const r = await client.migrate([{ filename: "MEMORY.md", content: "# Notes\n- The user drinks green tea\n- Standups are at 9:30" }], { namespace: ns, auto_tag: true });
  check(r.files_processed === 1 && r.memories_created === 2 && r.memory_ids.length === 2, "2 memories");
});
await step("migrateDirectory", async () => {
  const dir = mkdtempSync(join(tmpdir(), "memoclaw-sdk-migrate-"));
  try {
    writeFileSync(join(dir, "a.md"), "# Tools\n- The team lints with Biome");
    writeFileSync(join(dir, "b.md"), "Release notes are written in the PR description.");
    writeFileSync(join(dir, "c.txt"), "Not markdown: left out by the *.md pattern.");
    const r = await client.migrateDirectory(dir, { namespace: `${ns}-dir` });
    check(r.files_processed === 2 && r.memories_created === 2, "2 files, 2 memories");
    const listed = (await client.list({ namespace: `${ns}-dir` })).memories.map((m: any) => m.content).sort();
    check(listed.join("|") === "Release notes are written in the PR description.|The team lints with Biome", "the two memories");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
await step("status", async () => {
  const r = await client.status();
  check(typeof r.free_tier_remaining === "number" && r.wallet, "free tier");
});
await step("delete", async () => check((await client.delete(batch![2])).deleted === true, "deleted"));
await step("deleteBatch", async () => {
  const r = await client.deleteBatch([batch![0], batch![2]]);
  check(r.length === 2 && r[0].deleted === true && r[1].deleted === false, "per-id results");
});
await step("error body: NotFoundError", async () => {
  try {
    await client.get("00000000-0000-4000-8000-000000000000");
  } catch (error) {
    const e = error as { code?: string; status?: number };
    check(e.code === "NOT_FOUND", `NOT_FOUND (got ${e.code})`);
    return;
  }
  throw new Error("no error");
});
await step("error body: ValidationError", async () => {
  try {
    await client.store({ content: "x".repeat(9000) });
  } catch (error) {
    const e = error as { code?: string; details?: Record<string, unknown> };
    check(e.code === "VALIDATION_ERROR" && e.details?.max_length === 8192, "VALIDATION_ERROR with max_length");
    return;
  }
  throw new Error("no error");
});

const working = results.filter((r) => r.status === "ok").length;
const failed = results.filter((r) => r.status === "FAIL").length;
const known = results.length - working - failed;
for (const r of results) console.log(`${r.status === "ok" ? "ok  " : r.status === "sdk" ? "sdk " : "FAIL"} ${r.step}${r.note ? `: ${r.note}` : ""}`);
console.log(`\nMemoClaw TypeScript SDK against ${values.url}: ${working} of ${results.length} steps work` + (known ? ` (${known} where the SDK's types differ, marked sdk)` : ""));
process.exit(failed);
