import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectFieldError, expectUnknownField, HOUR, isoFromNow, raw, storeOne, uniqueNs, type Reply } from "../helpers/contract";

/**
 * Request bodies are closed: a field a route does not declare is a 422 naming it (rule
 * `unknown_field`), never silently dropped, at any depth but inside free-form `metadata`. Every field
 * the MemoClaw clients send is declared (docs/clients.md). See docs/api.md › Limits and input rules.
 */

const expectUnknown = (res: Reply, field: string, declared: string) => expectUnknownField(res, field, [declared]);

describeEngines("unknown body fields", (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.stop());

  test("an undeclared field is a 422 naming it on every body route, top level and nested, and changes nothing", async () => {
    const client = new Client(service);
    const namespace = uniqueNs("unknown");
    const a = await storeOne(client, { content: "The office plants are watered on Mondays.", namespace });
    const b = await storeOne(client, { content: "Quarterly reviews happen in the last week of March.", namespace });
    const snapshot = async () =>
      JSON.stringify(await Promise.all([client.get(`/v1/memories?namespace=${namespace}`), client.get(`/v1/memories/${a}/relations`), client.get("/v1/memories/core"), client.get(`/v1/memories/${a}/history`)]).then((rs) => rs.map((r) => r.body)));
    const before = await snapshot();
    const cases: [string, string, Record<string, unknown>, string, string][] = [
      ["POST", "/v1/store", { content: "Misspelt importance", namespace, improtance: 0.9 }, "body/improtance", "importance"],
      ["POST", "/v1/store/batch", { memories: [{ content: "A batch item", namespace }], autorelate: true }, "body/autorelate", "auto_relate"],
      ["POST", "/v1/store/batch", { memories: [{ content: "A batch item", namespace }, { content: "Another", namespace, memorytype: "project" }] }, "body/memories/1/memorytype", "memory_type"],
      ["POST", "/v1/recall", { query: "plants", limt: 3 }, "body/limt", "limit"],
      ["POST", "/v1/recall", { query: "plants", filters: { tag: ["x"] } }, "body/filters/tag", "tags"],
      ["POST", "/v1/search", { query: "plants", namespaces: [namespace] }, "body/namespaces", "namespace"],
      ["POST", "/v1/context", { query: "plants", max_memory: 3 }, "body/max_memory", "max_memories"],
      ["POST", "/v1/ingest", { text: "I moved to Porto last year.", namespace, autoRelate: true }, "body/autoRelate", "auto_relate"],
      ["POST", "/v1/memories/extract", { text: "I moved to Porto last year.", namespace, sessionId: "s" }, "body/sessionId", "session_id"],
      ["POST", "/v1/extract", { text: "I moved to Porto last year.", namespace }, "body/namespace", "text"],
      ["POST", "/v1/migrate", { files: [{ filename: "notes.md", content: "- Water the plants", path: "/notes.md" }], namespace }, "body/files/0/path", "filename"],
      ["POST", "/v1/memories/consolidate", { namespace, dryrun: true }, "body/dryrun", "dry_run"],
      ["POST", `/v1/memories/${a}/relations`, { target_id: b, relation_type: "supports", weight: 1 }, "body/weight", "metadata"],
      ["PATCH", `/v1/memories/${a}`, { importance: 0.9, pined: true }, "body/pined", "pinned"],
      ["PATCH", "/v1/memories/batch", { updates: [{ id: a, importance: 0.9 }], dry_run: true }, "body/dry_run", "updates"],
      ["POST", "/v1/memories/batch-update", { updates: [{ id: a, importance: 0.9 }], atomic: true }, "body/atomic", "updates"],
      ["DELETE", "/v1/memories", { ids: [b], force: true }, "body/force", "ids"],
      ["POST", "/v1/memories/batch-delete", { ids: [b], force: true }, "body/force", "ids"],
      ["POST", "/v1/memories/bulk-delete", { ids: [b], force: true }, "body/force", "ids"],
      ["POST", "/v1/memories/core", { memory_id: a, id: a }, "body/id", "memory_id"],
      // own keys only: an inherited name is no declared field
      ["POST", "/v1/store", { content: "Inherited names", namespace, constructor: 1 }, "body/constructor", "content"],
    ];
    for (const [method, path, body, field, declared] of cases) {
      const res = await client.request(method, path, body);
      expectUnknown(res, field, declared);
    }
    expectUnknown(await raw(service, "POST", "/auth/session", { address: client.wallet.address, timestamp: 1, signature: "0x00", chain_id: 8453 }), "body/chain_id", "signature");
    expect(await snapshot()).toBe(before);
    // a refused paid call costs no free call
    expect((await client.get("/v1/free-tier/status")).body.free_tier_used).toBe(2);
  });

  test("a route that takes no body refuses one with any field (422), and takes none or {}", async () => {
    const client = new Client(service);
    const namespace = uniqueNs("nobody");
    const [a, b] = [await storeOne(client, { content: "The fire drill is on the first Friday.", namespace, pinned: true }), await storeOne(client, { content: "Visitors sign in at the front desk.", namespace })];
    const relation = (await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "related_to" })).body.id;
    for (const path of [`/v1/memories/${a}/relations/${relation}`, `/v1/memories/core/${a}`, `/v1/memories/${a}`]) {
      const refused = await client.request("DELETE", path, { force: true });
      expectFieldError(refused, "body/force");
      expect(refused.body.error.details).toMatchObject({ field: "body/force", rule: "unknown_field" });
      expect((await client.request("DELETE", path, {})).status).toBe(200);
    }
    expect((await client.request("DELETE", `/v1/memories/${b}`)).status).toBe(200);
  });

  test("a batch update item with an undeclared field is a per-item 422; the other items apply", async () => {
    const client = new Client(service);
    const id = await storeOne(client, { content: "The team lunch is on Thursdays at the Thai place." });
    const res = await client.post("/v1/memories/batch-update", { updates: [{ id, importance: 0.2, colour: "red" }, { id, importance: 0.7 }] });
    expect(res.status).toBe(200);
    expect(res.body.updated).toBe(1);
    expect(res.body.errors).toEqual([{ id, status: 422, message: expect.stringContaining("body/updates/0/colour: unknown field") }]);
    expect((await client.get(`/v1/memories/${id}`)).body.importance).toBe(0.7);
  });

  test("an undeclared field's name is cut in the answer, however long", async () => {
    const client = new Client(service);
    const res = await client.post("/v1/store", { content: "Long key", ["k".repeat(100_000)]: 1 });
    expectFieldError(res, "body/kkk");
    expect(res.body.error.details.field.length).toBeLessThan(300);
    expect(JSON.stringify(res.body).length).toBeLessThan(2_000);
  });

  test("metadata stays free-form: any keys, nested, on store, batch, PATCH, relations and recall filters", async () => {
    const client = new Client(service);
    const namespace = uniqueNs("free-form");
    const metadata = { source: { tool: "slack", channel: { id: "C1" } }, anything: [1, { nested: true }], tags: ["ops"] };
    const a = await storeOne(client, { content: "Deploys are frozen during the last week of December.", namespace, metadata });
    expect((await client.post("/v1/store/batch", { memories: [{ content: "On-call rotates every Monday morning.", namespace, metadata }] })).status).toBe(201);
    const b = await storeOne(client, { content: "Incident reviews are written within two business days.", namespace });
    expect((await client.patch(`/v1/memories/${b}`, { metadata: { ...metadata, reviewed_by: "ana" } })).status).toBe(200);
    expect((await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "related_to", metadata: { why: { said_by: "ana" } } })).status).toBe(201);
    const recalled = await client.post("/v1/recall", { query: "deploy freeze in December", namespace, filters: { metadata: { source: { tool: "slack", channel: { id: "C1" } } } } });
    expect(recalled.status).toBe(200);
    expect((await client.get(`/v1/memories/${a}`)).body.metadata).toEqual(metadata);
  });

  describe("every field a MemoClaw client sends is accepted", () => {
    test("store, batch store, PATCH and batch update with every field the CLI, MCP server and SDKs send", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("client-fields");
      const fields = { importance: 0.7, namespace, memory_type: "project", session_id: "s1", agent_id: "a1", expires_at: isoFromNow(service, 48 * HOUR), pinned: false, immutable: false };
      const stored = await client.post("/v1/store", { content: "The release train leaves every second Wednesday.", ...fields, tags: ["release"], metadata: { tags: ["release"], source: "cli" } });
      expect(stored.status).toBe(201);
      const batch = await client.post("/v1/store/batch", { memories: [{ content: "Hotfixes skip the release train.", ...fields, tags: ["release"], metadata: { source: "mcp" } }] });
      expect(batch.status).toBe(201);
      const id = stored.body.id as string;
      // memoclaw-mcp's update (UPDATE_FIELDS), merge, and the CLI's update
      const patch = { content: "The release train leaves every second Wednesday at noon.", importance: 0.8, memory_type: "decision", namespace, metadata: { source: "cli" }, expires_at: null, pinned: true, tags: ["release", "train"], immutable: false, session_id: "s2", agent_id: "a2" };
      expect((await client.patch(`/v1/memories/${id}`, patch)).status).toBe(200);
      const updated = await client.post("/v1/memories/batch-update", { updates: [{ id, content: "Release trains leave every second Wednesday at noon.", importance: 0.9, memory_type: "decision", namespace, metadata: { source: "sdk" }, expires_at: null, pinned: false, tags: ["release"], immutable: false, session_id: "s3", agent_id: "a3" }] });
      expect(updated.body).toMatchObject({ updated: 1, errors: [] });
    });

    test("recall, search and context with every field the clients send; the CLI's since/until filter recall", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("client-retrieval");
      const id = await storeOne(client, { content: "Standups start at 9:30 in the small meeting room.", namespace, memory_type: "project", tags: ["meetings"], metadata: { room: "small" } });
      const found = (res: Reply) => {
        expect(res.status).toBe(200);
        return (res.body.memories as { id: string }[]).map((m) => m.id);
      };
      // the MCP server's recall
      const mcp = { query: "when do standups start", limit: 5, min_similarity: 0, namespace, session_id: undefined, agent_id: undefined, include_relations: true, filters: { tags: ["meetings"], memory_type: "project", after: isoFromNow(service, -HOUR), before: isoFromNow(service, HOUR), pinned: false, metadata: { room: "small" } } };
      expect(found(await client.post("/v1/recall", mcp))).toEqual([id]);
      // the CLI's recall --since/--until: top-level since and until, honoured as filters.after/before
      const cli = { query: "when do standups start", limit: 30, min_similarity: 0, namespace, filters: { tags: ["meetings"] } };
      expect(found(await client.post("/v1/recall", { ...cli, since: isoFromNow(service, -HOUR), until: isoFromNow(service, HOUR) }))).toEqual([id]);
      expect(found(await client.post("/v1/recall", { ...cli, since: isoFromNow(service, HOUR) }))).toEqual([]);
      expect(found(await client.post("/v1/recall", { ...cli, until: isoFromNow(service, -HOUR) }))).toEqual([]);
      // filters.after wins over since
      expect(found(await client.post("/v1/recall", { ...cli, since: isoFromNow(service, HOUR), filters: { after: isoFromNow(service, -HOUR) } }))).toEqual([id]);
      expectFieldError(await client.post("/v1/recall", { ...cli, since: "yesterday" }), "body/since");
      // the CLI's search
      expect(found(await client.post("/v1/search", { query: "standups", limit: 10, namespace, memory_type: "project", session_id: "s", agent_id: "a", tags: ["meetings"] }))).toEqual([]);
      expect(found(await client.post("/v1/search", { query: "standups", limit: 10, namespace, memory_type: "project", tags: ["meetings"] }))).toEqual([id]);
      // context: the SDKs' fields, then the CLI's and MCP server's (limit)
      const sdk = await client.post("/v1/context", { query: "standups", namespace, max_memories: 5, max_tokens: 500, format: "structured", include_metadata: true, summarize: false });
      expect(sdk.body.memories_used).toBe(1);
      const cliContext = await client.post("/v1/context", { query: "standups", namespace, session_id: undefined, agent_id: undefined, limit: 5 });
      expect(cliContext.body.memories_used).toBe(1);
    });

    test("ingest, extract, migrate, consolidate and relations with every field the clients send", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("client-ingest");
      const scope = { namespace, session_id: "s1", agent_id: "a1" };
      expect((await client.post("/v1/ingest", { messages: [{ role: "user", content: "I prefer dark roast coffee." }], text: undefined, ...scope, auto_relate: true })).status).toBe(201);
      expect((await client.post("/v1/ingest", { text: "My favourite editor is Helix.", ...scope, auto_relate: false })).status).toBe(201);
      expect((await client.post("/v1/memories/extract", { messages: [{ role: "user", content: "I live in Braga." }], ...scope })).status).toBe(201);
      expect((await client.post("/v1/memories/extract", { text: "I work at a bakery.", ...scope })).status).toBe(201);
      const files = [{ filename: "MEMORY.md", content: "# Preferences\n\n- Likes green tea" }];
      expect((await client.post("/v1/migrate", { files, namespace, agent_id: "a1", session_id: "s1", auto_tag: true, deduplicate: true, dry_run: true })).status).toBe(201);
      expect((await client.post("/v1/memories/consolidate", { namespace, agent_id: "a1", min_similarity: 0.9, mode: "merge", dry_run: true })).status).toBe(200);
      const a = await storeOne(client, { content: "The kitchen closes at 3pm on Fridays.", namespace });
      const b = await storeOne(client, { content: "Snacks are restocked on Tuesday mornings.", namespace });
      expect((await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "related_to", metadata: { via: "mcp" } })).status).toBe(201);
    });
  });

  test("the OpenAPI document shows every request body closed, but for free-form metadata and chat messages", async () => {
    const doc = (await (await fetch(`${service.url}/swagger/json`)).json()) as { paths: Record<string, Record<string, any>> };
    const open: string[] = [];
    const walk = (schema: any, at: string): void => {
      if (!schema || typeof schema !== "object") return;
      if (schema.type === "object" && schema.properties && schema.additionalProperties !== false) open.push(at);
      for (const [key, child] of Object.entries(schema.properties ?? {})) walk(child, `${at}/${key}`);
      if (schema.items) walk(schema.items, `${at}/items`);
      // metadata: a record (patternProperties) with a typed `tags`; free-form by design
      if (schema.allOf && !schema.allOf.some((part: any) => part.patternProperties)) for (const part of schema.allOf) walk(part, at);
    };
    let bodies = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const schema = op.requestBody?.content?.["application/json"]?.schema;
        if (!schema) continue;
        bodies++;
        walk(schema, `${method.toUpperCase()} ${path}`);
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(19);
    // chat messages take the chat format's other keys (next test)
    expect(open.sort()).toEqual(["POST /v1/extract/messages/items", "POST /v1/ingest/messages/items", "POST /v1/memories/extract/messages/items"]);
  });

  test("a chat message takes the chat format's other keys and is read for its role and content only", async () => {
    const client = new Client(service);
    const namespace = uniqueNs("chat-format");
    const messages = [
      { role: "user", content: "I moved to Porto last year.", name: "ana" },
      { role: "assistant", content: "Noted, Porto it is.", tool_calls: [{ id: "c1", type: "function", function: { name: "remember", arguments: "{}" } }] },
    ];
    const ingested = await client.post("/v1/ingest", { messages, namespace });
    expect(ingested.status).toBe(201);
    const listed = await client.get(`/v1/memories?namespace=${namespace}`);
    const contents = (listed.body.memories as { content: string; metadata: Record<string, unknown> }[]).map((m) => m.content);
    expect(contents.some((c) => c.includes("Porto"))).toBe(true);
    expect(JSON.stringify(listed.body.memories)).not.toContain("tool_calls");
    expect((await client.post("/v1/memories/extract", { messages, namespace })).status).toBe(201);
    expect((await client.post("/v1/extract", { messages })).status).toBe(200);
    // the message's own fields keep their rules
    expect((await client.post("/v1/ingest", { messages: [{ role: "user", content: 7, name: "ana" }], namespace })).status).toBe(422);
  });
});
