import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { DAY, expectFieldError, MISSING_ID, storeOne, uniqueNs } from "../helpers/contract";

describeEngines("dedup, context, suggested and graph", (engine) => {
  let service: TestService;
  let client: Client;
  beforeAll(async () => {
    service = await startService(engine);
    client = new Client(service);
  });
  afterAll(() => service.stop());

  test("store merges a same-text duplicate into the existing memory (documented merge)", async () => {
    const namespace = uniqueNs("dedup");
    const id = await storeOne(client, { content: "User prefers dark mode in the editor.", namespace, importance: 0.3, metadata: { tags: ["ui"], from: "a" } });
    const dup = await client.post("/v1/store", { content: "user prefers DARK mode in the editor", namespace, importance: 0.9, pinned: true, metadata: { tags: ["editor"], from: "b" } });
    expect(dup.status).toBe(201);
    expect(dup.body).toMatchObject({ id, stored: true, deduplicated: true });
    const merged = (await client.get(`/v1/memories/${id}`)).body;
    expect(merged.content).toBe("User prefers dark mode in the editor.");
    expect(merged.importance).toBe(0.9);
    expect(merged.pinned).toBe(true);
    expect(merged.metadata).toEqual({ tags: ["ui", "editor"], from: "b" });
    expect((await client.get(`/v1/memories?namespace=${namespace}`)).body.total).toBe(1);
    // the same words in another order are another fact, not a duplicate
    const reversed = await client.post("/v1/store", { content: "User prefers the editor in dark mode.", namespace });
    expect(reversed.body.deduplicated).toBe(false);
    // another namespace is another memory
    const elsewhere = await client.post("/v1/store", { content: "User prefers dark mode in the editor.", namespace: uniqueNs("dedup-other") });
    expect(elsewhere.body.deduplicated).toBe(false);
  });

  test("store/batch dedups within the batch and against existing memories", async () => {
    const namespace = uniqueNs("batch-dedup");
    const existing = await storeOne(client, { content: "The API rate limit is 600 requests per minute.", namespace });
    const res = await client.post("/v1/store/batch", {
      memories: [
        { content: "Deploys happen on Tuesdays.", namespace },
        { content: "deploys happen on tuesdays!", namespace },
        { content: "The API rate limit is 600 requests per minute", namespace },
        { content: "The mobile app targets iOS 17.", namespace },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(2);
    expect(res.body.deduplicated_count).toBe(2);
    expect(res.body.ids[1]).toBe(res.body.ids[0]);
    expect(res.body.ids[2]).toBe(existing);
    expect(new Set(res.body.ids).size).toBe(3);
  });

  test("context puts pinned memories first, ranks the rest by the query, and respects both budgets", async () => {
    const namespace = uniqueNs("ctx");
    const pinned = await storeOne(client, { content: "User's name is Ana and she leads the payments team.", namespace, pinned: true, importance: 0.9, memory_type: "observation" });
    const relevant = await storeOne(client, { content: "The payments service uses Postgres 16 with logical replication.", namespace, memory_type: "project", metadata: { tags: ["db"] } });
    await storeOne(client, { content: "The office coffee machine is on the third floor.", namespace });
    const text = await client.post("/v1/context", { query: "which database does payments use", namespace, include_metadata: true });
    expect(text.status).toBe(200);
    const lines = (text.body.context as string).split("\n");
    expect(lines[1]).toContain("User's name is Ana");
    expect(lines[1]).toContain("core");
    expect(lines[2]).toContain("Postgres 16");
    expect(lines[2]).toContain("[project · importance 0.5 · tags: db]");
    expect(text.body.memories_used).toBe(3);
    expect(text.body.tokens).toBe(Math.ceil((text.body.context as string).length / 4));

    const structured = await client.post("/v1/context", { query: "database", namespace, format: "structured", max_memories: 2 });
    expect(structured.body.memories_used).toBe(2);
    expect(structured.body.context.memories.map((m: { id: string }) => m.id)).toEqual([pinned, relevant]);
    expect(structured.body.context.memories[0]).toMatchObject({ source: "core", memory_type: "observation", importance: 0.9, tags: [] });
    expect(structured.body.context.memories[1]).toMatchObject({ source: "relevant", tags: ["db"] });
  });

  test("context never exceeds max_tokens and skips what does not fit", async () => {
    const namespace = uniqueNs("ctx-budget");
    await storeOne(client, { content: "Long memory: " + "the deployment pipeline has many stages ".repeat(40), namespace, importance: 1 });
    await storeOne(client, { content: "Short memory: staging is in Frankfurt.", namespace, importance: 0.2 });
    const res = await client.post("/v1/context", { namespace, max_tokens: 100 });
    expect(res.status).toBe(200);
    expect(res.body.tokens).toBeLessThanOrEqual(100);
    expect(Math.ceil(res.body.context.length / 4)).toBeLessThanOrEqual(100);
    expect(res.body.memories_used).toBe(1);
    expect(res.body.context).toContain("staging is in Frankfurt");
    expectFieldError(await client.post("/v1/context", { max_tokens: 99 }), "max_tokens");
    expectFieldError(await client.post("/v1/context", { max_tokens: 16001 }), "max_tokens");
    expectFieldError(await client.post("/v1/context", { max_memories: 101 }), "max_memories");
    // a numeric string is not an integer, as on every other endpoint
    expectFieldError(await client.post("/v1/context", { max_memories: "5" }), "body/max_memories");
    expectFieldError(await client.post("/v1/context", { max_tokens: "500" }), "body/max_tokens");
    expectFieldError(await client.post("/v1/context", { limit: "5" }), "body/limit");
    expect((await client.post("/v1/context", { max_tokens: 16000, max_memories: 100 })).status).toBe(200);
  });

  test("context summarize keeps one memory per cluster of similar memories (no LLM configured)", async () => {
    const namespace = uniqueNs("ctx-sum");
    await client.post("/v1/store/batch", {
      memories: [
        { content: "The user prefers dark mode in the code editor", namespace, importance: 0.9 },
        { content: "The user enables dark mode in the editor every night", namespace, importance: 0.5 },
        { content: "Invoices are sent on the first business day of each month", namespace, importance: 0.5 },
      ],
    });
    const plain = await client.post("/v1/context", { namespace, format: "structured" });
    const summarized = await client.post("/v1/context", { namespace, format: "structured", summarize: true });
    expect(summarized.body.memories_used).toBe(plain.body.memories_used - 1);
    const contents = summarized.body.context.memories.map((m: { content: string }) => m.content);
    expect(contents).toContain("The user prefers dark mode in the code editor");
    expect(contents).toContain("Invoices are sent on the first business day of each month");
  });

  test("an empty wallet gets an empty context", async () => {
    const fresh = new Client(service);
    const res = await fresh.post("/v1/context", { query: "anything" });
    expect(res.body).toEqual({ context: "", memories_used: 0, tokens: 0, memories: [] });
  });

  test("suggested flags fresh, hot, decaying and stale memories in that order of priority", async () => {
    const wallet = new Client(service);
    const namespace = uniqueNs("suggest");
    const decaying = await storeOne(wallet, { content: "Old important observation about the billing cutover", namespace, memory_type: "observation", importance: 0.9 });
    service.advance(40 * DAY); // the observation is past two half-lives and 40 days unrecalled
    const stale = await storeOne(wallet, { content: "A general note about the wiki layout", namespace });
    const hot = await storeOne(wallet, { content: "Release checklist lives in the ops handbook", namespace });
    service.advance(31 * DAY);
    for (let i = 0; i < 3; i++) await wallet.post("/v1/recall", { query: "release checklist ops handbook", namespace, limit: 1 });
    const fresh = await storeOne(wallet, { content: "Brand new fact about the Q3 roadmap", namespace });
    const res = await wallet.get(`/v1/suggested?namespace=${namespace}`);
    expect(res.status).toBe(200);
    const reasons = Object.fromEntries(res.body.suggestions.map((s: { reason: string; memory: { id: string } }) => [s.memory.id, s.reason]));
    expect(reasons).toEqual({ [decaying]: "decaying", [hot]: "hot", [fresh]: "fresh", [stale]: "stale" });
    expect(res.body.suggestions.map((s: { reason: string }) => s.reason)).toEqual(["decaying", "hot", "fresh", "stale"]);
    expectFieldError(await wallet.get("/v1/suggested?limit=0"), "limit");
  });

  test("graph walks relations in both directions up to depth, and bounds nodes", async () => {
    const namespace = uniqueNs("graph");
    const [a, b, c, d] = (await client.post("/v1/store/batch", {
      memories: ["Alpha service owns auth", "Beta service calls alpha", "Gamma job reads beta logs", "Delta dashboard shows gamma output"].map((content) => ({ content, namespace })),
    })).body.ids as string[];
    for (const [s, t] of [[b, a], [c, b], [d, c]] as const) {
      expect((await client.post(`/v1/memories/${s}/relations`, { target_id: t, relation_type: "related_to" })).status).toBe(201);
    }
    const one = await client.get(`/v1/graph?memory_id=${a}&depth=1`);
    expect(one.status).toBe(200);
    expect(one.body.nodes.map((n: { id: string; depth: number }) => [n.id, n.depth])).toEqual([[a, 0], [b, 1]]);
    expect(one.body.edges).toHaveLength(1);
    const two = await client.get(`/v1/graph?memory_id=${a}&depth=2`);
    expect(two.body.nodes.map((n: { id: string }) => n.id).sort()).toEqual([a, b, c].sort());
    expect(two.body.edges).toHaveLength(2);
    const capped = await client.get(`/v1/graph?memory_id=${a}&depth=3&max_nodes=2`);
    expect(capped.body.nodes).toHaveLength(2);
    expect(capped.body.truncated).toBe(true);
    const ns = await client.get(`/v1/graph?namespace=${namespace}&depth=1`);
    expect(ns.body.nodes).toHaveLength(4);
    expect(ns.body.edges).toHaveLength(3);
    expect((await client.get(`/v1/graph?memory_id=${MISSING_ID}`)).status).toBe(404);
    expect((await new Client(service).get(`/v1/graph?memory_id=${a}`)).status).toBe(404);
    expectFieldError(await client.get(`/v1/graph?memory_id=${a}&depth=4`), "depth");
    // no memory_id nor namespace: the graph of every namespace, newest memories first
    const other = (await client.post("/v1/store", { content: "Epsilon lives in another namespace", namespace: uniqueNs("graph-other") })).body.id as string;
    const all = await client.get("/v1/graph?depth=1&max_nodes=500");
    expect(all.status).toBe(200);
    const allIds = all.body.nodes.map((n: { id: string }) => n.id);
    expect(allIds).toEqual(expect.arrayContaining([a, b, c, d, other]));
    expect(all.body.edges.length).toBeGreaterThanOrEqual(3);
    expect((await client.get("/v1/graph?max_nodes=1")).body.nodes.map((n: { id: string }) => n.id)).toEqual([other]);
  });
});
