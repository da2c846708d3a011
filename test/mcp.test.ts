import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { Client as RestClient, MODEL_CACHE_DIR, sqliteEngine, startService, TestWallet, type TestService } from "./helpers/harness";
import { TestFacilitator } from "./helpers/facilitator";

const TOOL_NAMES = [
  "store", "store_batch", "recall", "search", "list", "get", "update", "delete", "bulk_delete", "pin", "unpin",
  "relate", "relations", "graph", "history", "context", "ingest", "extract", "stats", "namespaces", "suggested", "export",
];
const STDIO_ENTRY = resolve(import.meta.dir, "../src/mcp/stdio.ts");

/** An MCP client over Streamable HTTP, signing as `wallet`. */
async function httpClient(service: TestService, wallet: TestWallet): Promise<Client> {
  const header = await wallet.header(Math.floor(service.now() / 1000));
  const client = new Client({ name: "engram-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { "x-wallet-auth": header } } }));
  return client;
}

type Result = CallToolResult & { structuredContent?: any };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
/** A successful call's JSON (fails the test with the error text otherwise). */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
  expect(result.content[0]?.type).toBe("text");
  expect((result.content[0] as { text: string }).text.length).toBeGreaterThan(0);
  return result.structuredContent;
}
/** A failed call's nested error. */
async function failed(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ code: string; message: string; details: any }> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect((result.content[0] as { text: string }).text).toStartWith(result.structuredContent.error.code);
  return result.structuredContent.error;
}

describe("MCP over Streamable HTTP", () => {
  let service: TestService;
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    service = await startService();
    a = await httpClient(service, new TestWallet());
    b = await httpClient(service, new TestWallet());
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await service?.stop();
  });

  test("lists every tool with a JSON object input schema", async () => {
    const { tools } = await a.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description!.length).toBeGreaterThan(10);
    }
    const store = tools.find((t) => t.name === "store")!;
    expect(store.inputSchema.required).toEqual(["content"]);
    expect((store.inputSchema.properties as any).content.maxLength).toBe(8192);
    expect(tools.find((t) => t.name === "recall")!.annotations?.readOnlyHint).toBe(true);
  });

  test("unknown arguments are dropped, also once the REST route has served the same schema", async () => {
    const wallet = new TestWallet();
    const header = await wallet.header(Math.floor(service.now() / 1000));
    const rest = await fetch(`${service.url}/v1/store`, { method: "POST", headers: { "content-type": "application/json", "x-wallet-auth": header }, body: JSON.stringify({ content: "stored over REST first" }) });
    expect(rest.status).toBe(201);
    const client = await httpClient(service, wallet);
    try {
      expect(await ok(client, "store", { content: "then over MCP, with an extra argument", user_id: "ignored" })).toMatchObject({ stored: true });
    } finally {
      await client.close();
    }
  });

  test("store, recall, search, list, get, update, history, delete", async () => {
    const stored = await ok(a, "store", { content: "The deploy key rotates every Tuesday at noon", memory_type: "project", metadata: { tags: ["ops"], source: "runbook" }, user_id: "ignored" });
    expect(stored).toMatchObject({ stored: true, deduplicated: false });
    const id = stored.id as string;
    // a duplicate says what its merge did not keep, in the JSON and in the text an agent reads
    const twice = await call(a, "store", { content: "The deploy key rotates every Tuesday at noon", memory_type: "decision" });
    expect(twice.structuredContent).toMatchObject({ id, deduplicated: true, merge_dropped: { tags: [], metadata_keys: [], fields: ["memory_type"] } });
    expect((twice.content[0] as { text: string }).text).toBe(`Merged into existing memory ${id} (near-duplicate); not kept: memory_type.`);

    const recalled = await ok(a, "recall", { query: "when does the deploy key rotate?" });
    expect(recalled.memories.map((m: { id: string }) => m.id)).toContain(id);
    expect(recalled.memories[0]._signals).toBeDefined();

    const searched = await ok(a, "search", { query: "deploy key" });
    expect(searched.memories.map((m: { id: string }) => m.id)).toContain(id);
    expect(searched.query).toBe("deploy key");

    const listed = await ok(a, "list", { tags: ["ops"], memory_type: "project", limit: 5 });
    expect(listed).toMatchObject({ total: 1, limit: 5, offset: 0 });
    expect(listed.memories[0].id).toBe(id);

    const got = await ok(a, "get", { id });
    expect(got).toMatchObject({ content: "The deploy key rotates every Tuesday at noon", metadata: { tags: ["ops"], source: "runbook" }, tags: ["ops"] });
    expect(got.user_id).not.toBe("ignored");

    const updated = await ok(a, "update", { id, content: "The deploy key rotates every Friday at noon", importance: 0.9 });
    expect(updated).toMatchObject({ id, content: "The deploy key rotates every Friday at noon", importance: 0.9 });
    expect((await ok(a, "get", { id })).content).toBe("The deploy key rotates every Friday at noon");
    const { history } = await ok(a, "history", { id });
    expect(history).toHaveLength(1);
    expect(history[0].changes.content).toBe("The deploy key rotates every Friday at noon");

    expect(await ok(a, "delete", { id })).toEqual({ deleted: true, id });
    const gone = await failed(a, "get", { id });
    expect(gone.code).toBe("NOT_FOUND");
  });

  test("store_batch, bulk_delete, pin/unpin and the core resource, relate, relations, graph", async () => {
    const batch = await ok(a, "store_batch", {
      memories: [
        { content: "Alice leads the payments team", namespace: "team" },
        { content: "The payments team ships on Thursdays", namespace: "team" },
        { content: "Bob prefers dark mode in every editor", namespace: "team", memory_type: "preference" },
      ],
    });
    expect(batch).toMatchObject({ stored: true, count: 3, deduplicated_count: 0 });
    const [alice, ships, bob] = batch.ids as string[];

    expect(await ok(a, "pin", { id: alice })).toEqual({ pinned: true, id: alice });
    const coreText = (await a.readResource({ uri: "memory://core" })).contents[0] as { text: string; mimeType: string };
    expect(coreText.mimeType).toBe("application/json");
    expect(JSON.parse(coreText.text).memories.map((m: { id: string }) => m.id)).toEqual([alice]);
    expect(await ok(a, "unpin", { id: alice })).toEqual({ unpinned: true, id: alice });
    expect((await failed(a, "unpin", { id: alice })).code).toBe("NOT_FOUND");
    expect(JSON.parse((((await a.readResource({ uri: "memory://core" })).contents[0]) as { text: string }).text).total).toBe(0);

    const relation = await ok(a, "relate", { id: ships, target_id: alice, relation_type: "supports" });
    expect(relation).toMatchObject({ source_id: ships, target_id: alice, relation_type: "supports", created: true });
    const { relations } = await ok(a, "relations", { id: alice });
    expect(relations).toHaveLength(1);
    expect(relations[0]).toMatchObject({ id: relation.id, direction: "incoming" });
    const graph = await ok(a, "graph", { memory_id: alice, depth: 1 });
    expect(graph.nodes.map((n: { id: string }) => n.id).sort()).toEqual([alice, ships].sort());
    expect(graph.edges).toHaveLength(1);
    // neither memory_id nor namespace: every namespace
    const all = await ok(a, "graph", { depth: 1 });
    expect(all.nodes.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining([alice, ships]));

    const bulk = await ok(a, "bulk_delete", { ids: [bob, "00000000-0000-4000-8000-000000000000"] });
    expect(bulk).toMatchObject({ deleted: 1, errors: ["00000000-0000-4000-8000-000000000000"] });
    expect((await failed(a, "get", { id: bob })).code).toBe("NOT_FOUND");
  });

  test("context, ingest, extract, stats, namespaces, suggested, export, the stats resource", async () => {
    const { id } = await ok(a, "store", { content: "Production database is Postgres 16 on port 5433", namespace: "infra", memory_type: "decision" });
    const context = await ok(a, "context", { query: "which database runs in production?", namespace: "infra" });
    expect(context.context).toContain("Postgres 16");
    expect(context.memories_used).toBeGreaterThanOrEqual(1);

    const extracted = await ok(a, "extract", { text: "My favourite programming language is Rust. I live in Lisbon." });
    expect(extracted.facts.length).toBeGreaterThanOrEqual(1);
    const before = await ok(a, "list", { namespace: "notes" });
    const ingested = await ok(a, "ingest", { messages: [{ role: "user", content: "I moved to Porto last month and I work as a nurse." }], namespace: "notes" });
    expect(ingested.facts_stored).toBeGreaterThanOrEqual(1);
    expect(ingested.memories_created).toBe(ingested.facts_stored);
    expect((await ok(a, "list", { namespace: "notes" })).total).toBe(before.total + ingested.facts_stored);

    const stats = await ok(a, "stats");
    expect(stats.total_memories).toBeGreaterThanOrEqual(3);
    const statsResource = JSON.parse((((await a.readResource({ uri: "memory://stats" })).contents[0]) as { text: string }).text);
    expect(statsResource.total_memories).toBe(stats.total_memories);

    const { namespaces } = await ok(a, "namespaces");
    expect(namespaces.map((n: { namespace: string }) => n.namespace)).toEqual(expect.arrayContaining(["infra", "notes", "team"]));

    const suggested = await ok(a, "suggested", { limit: 5 });
    expect(suggested).toHaveProperty("categories");
    expect(Array.isArray(suggested.suggestions)).toBe(true);

    const exported = await ok(a, "export", { namespace: "infra" });
    expect(exported).toMatchObject({ format: "json", count: 1 });
    expect(exported.memories[0].id).toBe(id);
    const csv = await ok(a, "export", { namespace: "infra", format: "csv" });
    expect(csv.memories).toContain("Postgres 16");
  });

  test("structuredContent is the JSON the REST endpoint answers", async () => {
    const wallet = new TestWallet();
    const mcp = await httpClient(service, wallet);
    const rest = new RestClient(service, wallet);
    const { id } = await ok(mcp, "store", { content: "Same answer over MCP and REST", namespace: "same", metadata: { tags: ["x"] } });
    const { id: gone } = await ok(mcp, "store", { content: "A second memory about other things entirely", namespace: "same" });
    await ok(mcp, "delete", { id: gone });
    const later = new Date(Date.now() + 60_000).toISOString();
    const pairs: [string, Record<string, unknown>, string][] = [
      ["get", { id }, `/v1/memories/${id}`],
      ["list", { namespace: "same", tags: ["x"], limit: 5 }, "/v1/memories?namespace=same&tags=x&limit=5"],
      ["history", { id }, `/v1/memories/${id}/history`],
      ["relations", { id }, `/v1/memories/${id}/relations`],
      ["stats", {}, "/v1/stats"],
      ["namespaces", {}, "/v1/namespaces"],
      ["suggested", {}, "/v1/suggested"],
      ["export", { format: "markdown" }, "/v1/export?format=markdown"],
      ["export", { namespace: "same", include_deleted: true, before: later }, `/v1/export?namespace=same&include_deleted=true&before=${later}`],
      ["export", { namespace: "same", include_deleted: true, tags: ["x", "y"] }, "/v1/export?namespace=same&include_deleted=true&tags=x,y"],
      ["export", { namespace: "same", after: later }, `/v1/export?namespace=same&after=${later}`],
      ["graph", { namespace: "same" }, "/v1/graph?namespace=same"],
    ];
    for (const [tool, args, path] of pairs) {
      const answer = await rest.get(path);
      expect(answer.status).toBe(200);
      expect({ tool, json: await ok(mcp, tool, args) }).toEqual({ tool, json: answer.body });
    }
    // the export filters read alike: the deleted memory is in only with include_deleted, the tags and dates apply
    const counts = await Promise.all(pairs.filter(([tool]) => tool === "export").map(async ([, , path]) => (await rest.get(path)).body.count));
    expect(counts).toEqual([1, 2, 1, 0]);
    const search = await rest.post("/v1/search", { query: "same answer" });
    expect(await ok(mcp, "search", { query: "same answer" })).toEqual(search.body);
    await mcp.close();
  });

  test("invalid arguments give an error result with VALIDATION_ERROR naming the field", async () => {
    const empty = await failed(a, "store", { content: "" });
    expect(empty.code).toBe("VALIDATION_ERROR");
    expect(empty.details.field).toBe("arguments/content");
    expect((await failed(a, "store", {})).code).toBe("VALIDATION_ERROR");
    expect((await failed(a, "get", { id: "not-a-uuid" })).code).toBe("VALIDATION_ERROR");
    expect((await failed(a, "recall", { query: "x", limit: 1000 })).details).toMatchObject({ field: "arguments/limit", rule: "maximum" });
    expect((await failed(a, "update", { id: "00000000-0000-4000-8000-000000000000" })).code).toBe("VALIDATION_ERROR");
    await expect(a.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  test("wallet isolation: another wallet's memory behaves as not found", async () => {
    const { id } = await ok(a, "store", { content: "Wallet A's private note about the merger" });
    expect((await failed(b, "get", { id })).code).toBe("NOT_FOUND");
    expect((await failed(b, "update", { id, content: "overwritten by B" })).code).toBe("NOT_FOUND");
    expect((await failed(b, "delete", { id })).code).toBe("NOT_FOUND");
    expect((await failed(b, "pin", { id })).code).toBe("NOT_FOUND");
    expect((await failed(b, "history", { id })).code).toBe("NOT_FOUND");
    expect((await ok(b, "bulk_delete", { ids: [id] })).deleted).toBe(0);
    const recalled = await ok(b, "recall", { query: "private note about the merger" });
    expect(recalled.memories.map((m: { id: string }) => m.id)).not.toContain(id);
    expect((await ok(a, "get", { id })).content).toBe("Wallet A's private note about the merger");
  });

  test("prompts: recall_then_answer", async () => {
    const { prompts } = await a.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["recall_then_answer"]);
    const prompt = await a.getPrompt({ name: "recall_then_answer", arguments: { question: "Where do I live?" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain("recall");
    expect((await a.listResources()).resources.map((r) => r.uri)).toEqual(["memory://core", "memory://stats"]);
  });

  test("HTTP: no auth is 401 with the nested body; GET is 405; /mcp is not in the OpenAPI document", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
    const res = await fetch(`${service.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(init) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe("AUTH_ERROR");
    const bad = await fetch(`${service.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-wallet-auth": "0xabc:1:0xdef" }, body: JSON.stringify(init) });
    expect(bad.status).toBe(401);
    const client = new Client({ name: "anonymous", version: "0" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)))).rejects.toThrow();

    const header = await new TestWallet().header(Math.floor(service.now() / 1000));
    const get = await fetch(`${service.url}/mcp`, { headers: { accept: "text/event-stream", "x-wallet-auth": header } });
    expect(get.status).toBe(405);
    const openapi = (await (await fetch(`${service.url}/swagger/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).not.toContain("/mcp");
  });

  test("a session token authenticates too, and the free-tier header comes back", async () => {
    const wallet = new TestWallet();
    const ts = Math.floor(service.now() / 1000);
    const signature = await wallet.account.signMessage({ message: `service-auth:${ts}` });
    const session = (await (await fetch(`${service.url}/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ address: wallet.address, timestamp: ts, signature }) })).json()) as { token: string };
    const seen: Headers[] = [];
    const client = new Client({ name: "bearer", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${session.token}` } },
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          seen.push(res.headers);
          return res;
        },
      }),
    );
    await ok(client, "store", { content: "Stored with a session token" });
    expect(seen.at(-1)!.get("x-free-tier-remaining")).toBe("99");
    await client.close();
  });
});

describe("MCP paid tools: free tier and 402", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(undefined, { FREE_TIER_CALLS: "2" });
  });
  afterAll(async () => {
    await service?.stop();
  });

  test("paid tools take free calls, then answer PAYMENT_REQUIRED; free tools never count", async () => {
    const wallet = new TestWallet();
    const client = await httpClient(service, wallet);
    await ok(client, "store", { content: "first paid call" });
    await ok(client, "search", { query: "paid" });
    await ok(client, "list");
    await ok(client, "recall", { query: "first" });
    const refused = await failed(client, "store", { content: "third paid call" });
    expect(refused.code).toBe("PAYMENT_REQUIRED");
    expect(refused.details.reason).toBe("payments_disabled");
    expect((await ok(client, "list")).total).toBe(1);
    // a failing paid call gives its free call back, as over REST
    const other = await httpClient(service, new TestWallet());
    await failed(other, "store", { content: "" });
    await failed(other, "get", { id: "00000000-0000-4000-8000-000000000000" });
    await ok(other, "store", { content: "one" });
    await ok(other, "store", { content: "two, a different fact entirely" });
    expect((await failed(other, "recall", { query: "one" })).code).toBe("PAYMENT_REQUIRED");
    await client.close();
    await other.close();
  });
});

describe("MCP paid tools with x402", () => {
  let facilitator: TestFacilitator;
  let service: TestService;
  beforeAll(async () => {
    facilitator = await TestFacilitator.start();
    service = await startService(sqliteEngine, {
      FREE_TIER_CALLS: "1",
      PAYMENTS: "on",
      X402_NETWORK: "base-sepolia",
      X402_PAY_TO: "0x2222222222222222222222222222222222222222",
      X402_FACILITATOR_URL: facilitator.url,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await facilitator?.stop();
  });

  test("after the free call: PAYMENT_REQUIRED with the requirements; a PAYMENT-SIGNATURE on the /mcp request pays for the call", async () => {
    const wallet = new TestWallet();
    const header = await wallet.header(Math.floor(service.now() / 1000));
    let payment: string | undefined;
    let last: Headers | undefined;
    const client = new Client({ name: "payer", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
        fetch: async (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set("x-wallet-auth", header);
          if (payment) headers.set("payment-signature", payment);
          payment = undefined;
          const res = await fetch(input, { ...init, headers });
          last = res.headers;
          return res;
        },
      }),
    );
    await ok(client, "store", { content: "The free call of this wallet" });
    const refused = await failed(client, "store", { content: "A paid memory about invoices" });
    expect(refused.code).toBe("PAYMENT_REQUIRED");
    expect(refused.details.x402.accepts).toHaveLength(1);
    const required = decodePaymentRequiredHeader(last!.get("payment-required")!);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(0);

    const payer = new x402Client();
    registerExactEvmScheme(payer, { signer: wallet.account });
    payment = encodePaymentSignatureHeader(await payer.createPaymentPayload(required));
    const stored = await ok(client, "store", { content: "A paid memory about invoices" });
    expect(decodePaymentResponseHeader(last!.get("payment-response")!).success).toBe(true);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
    expect((await ok(client, "get", { id: stored.id })).content).toBe("A paid memory about invoices");
    await client.close();
  });
});

describe("MCP over stdio", () => {
  const key = generatePrivateKey();
  const spawned: Client[] = [];
  const dirs: string[] = [];
  let service: TestService | undefined;
  afterAll(async () => {
    for (const client of spawned) await client.close().catch(() => {});
    await service?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function stdioClient(env: Record<string, string>): Promise<Client> {
    const client = new Client({ name: "engram-stdio-test", version: "0.0.0" });
    const inherited = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("ENGRAM_")));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_ENTRY], env: { ...inherited, ENGRAM_PRIVATE_KEY: key, ...env }, stderr: "ignore" }));
    spawned.push(client);
    return client;
  }

  test("embedded engine: store then recall, data kept in DATA_DIR across restarts", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "engram-mcp-stdio-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, MODEL_CACHE_DIR };
    const client = await stdioClient(env);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    const { id } = await ok(client, "store", { content: "The staging cluster lives in eu-west-3", memory_type: "project" });
    const recalled = await ok(client, "recall", { query: "where is the staging cluster?" });
    expect(recalled.memories[0].id).toBe(id);
    expect((await failed(client, "store", { content: 42 })).code).toBe("VALIDATION_ERROR");
    await client.close();

    const again = await stdioClient(env);
    expect((await ok(again, "get", { id })).content).toBe("The staging cluster lives in eu-west-3");
    await again.close();
  }, 60_000);

  test("ENGRAM_URL: relays to a running engram's /mcp as the key's wallet", async () => {
    service = await startService();
    const client = await stdioClient({ ENGRAM_URL: service.url });
    const { id } = await ok(client, "store", { content: "Relayed through the stdio proxy" });
    expect((await ok(client, "get", { id })).content).toBe("Relayed through the stdio proxy");
    expect((await failed(client, "get", { id: "00000000-0000-4000-8000-000000000000" })).code).toBe("NOT_FOUND");
    expect((await client.readResource({ uri: "memory://stats" })).contents).toHaveLength(1);
    // the same wallet over HTTP sees it
    const direct = await httpClient(service, new TestWallet(key));
    expect((await ok(direct, "get", { id })).content).toBe("Relayed through the stdio proxy");
    await direct.close();
    await client.close();
  }, 60_000);
});
