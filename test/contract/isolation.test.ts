import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { storeOne, type Reply } from "../helpers/contract";

const ids = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);
const sortedIds = (res: Reply) => ids(res).sort();

/** Wallet B can never see or touch wallet A's memories: every endpoint behaves as if they did not exist. */
describeEngines("wallet isolation", (engine) => {
  let service: TestService;
  let alice: Client;
  let bob: Client;
  let secret: string;
  let sibling: string;
  let relationId: string;
  let bobOwn: string;
  let aliceBefore: unknown;
  const SECRET = "Alice's AWS root account recovery codes are in the blue notebook in drawer three.";
  const NS = "security";

  beforeAll(async () => {
    service = await startService(engine);
    alice = new Client(service);
    bob = new Client(service);
    secret = await storeOne(alice, { content: SECRET, namespace: NS, importance: 0.9, memory_type: "project", metadata: { tags: ["aws", "recovery"] }, session_id: "s-alice", agent_id: "vault" });
    sibling = await storeOne(alice, { content: "Alice rotates the AWS access keys for the CI robot every 90 days.", namespace: NS, metadata: { tags: ["aws"] } });
    relationId = (await alice.post(`/v1/memories/${secret}/relations`, { target_id: sibling, relation_type: "related_to" })).body.id;
    expect((await alice.post("/v1/memories/core", { memory_id: secret })).status).toBe(200);
    bobOwn = await storeOne(bob, { content: "Bob keeps his garden planting schedule in a spreadsheet.", namespace: NS, metadata: { tags: ["garden"] } });
    aliceBefore = (await alice.get(`/v1/memories/${secret}`)).body;
  });
  afterAll(() => service.stop());

  const expect404 = (res: Reply) => {
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "NOT_FOUND", details: { reason: "not_found" } });
  };

  test("get, patch, delete and history of A's memory answer 404 to B", async () => {
    expect404(await bob.get(`/v1/memories/${secret}`));
    expect404(await bob.patch(`/v1/memories/${secret}`, { importance: 0.1 }));
    expect404(await bob.patch(`/v1/memories/${secret}`, { immutable: true }));
    expect404(await bob.del(`/v1/memories/${secret}`));
    expect404(await bob.get(`/v1/memories/${secret}/history`));
  });

  test("PATCH batch and bulk delete report A's ids as errors and change nothing", async () => {
    const patch = await bob.patch("/v1/memories/batch", { updates: [{ id: secret, content: "overwritten by bob" }, { id: bobOwn, importance: 0.7 }] });
    expect(patch.status).toBe(200);
    expect(patch.body.updated).toBe(1);
    expect(patch.body.errors).toEqual([{ id: secret, status: 404, message: expect.any(String) }]);
    const bulk = await bob.del("/v1/memories", { ids: [secret, sibling] });
    expect(bulk.status).toBe(200);
    expect(bulk.body.deleted).toBe(0);
    expect([...bulk.body.errors].sort()).toEqual([secret, sibling].sort());
  });

  test("pin and unpin of A's memory answer 404 to B", async () => {
    expect404(await bob.post("/v1/memories/core", { memory_id: sibling }));
    expect404(await bob.del(`/v1/memories/core/${secret}`));
    expect((await bob.get("/v1/memories/core")).body).toEqual({ memories: [], total: 0 });
  });

  test("relations: B cannot create, list or delete relations touching A's memories", async () => {
    expect404(await bob.post(`/v1/memories/${secret}/relations`, { target_id: sibling, relation_type: "supports" }));
    expect404(await bob.post(`/v1/memories/${bobOwn}/relations`, { target_id: secret, relation_type: "supports" }));
    expect404(await bob.post(`/v1/memories/${secret}/relations`, { target_id: bobOwn, relation_type: "supports" }));
    expect404(await bob.get(`/v1/memories/${secret}/relations`));
    expect404(await bob.del(`/v1/memories/${secret}/relations/${relationId}`));
    expect404(await bob.del(`/v1/memories/${bobOwn}/relations/${relationId}`));
    expect((await bob.get(`/v1/memories/${bobOwn}/relations`)).body.relations).toEqual([]);
  });

  test("list, search, recall, export, stats, namespaces, graph, suggested and context never include A's memories", async () => {
    const list = await bob.get(`/v1/memories?namespace=${NS}&limit=100`);
    expect(ids(list)).toEqual([bobOwn]);
    expect(list.body.total).toBe(1);
    expect(ids(await bob.get("/v1/memories?tags=aws"))).toEqual([]);
    expect(ids(await bob.get("/v1/memories?session_id=s-alice"))).toEqual([]);

    const search = await bob.post("/v1/search", { query: "AWS recovery codes notebook" });
    expect(search.body).toMatchObject({ memories: [], total: 0 });
    const recall = await bob.post("/v1/recall", { query: SECRET, limit: 100 });
    expect(ids(recall)).toEqual([bobOwn]);
    const recallTagged = await bob.post("/v1/recall", { query: "AWS keys", filters: { tags: ["aws"] } });
    expect(recallTagged.body.memories).toEqual([]);

    const exported = await bob.get("/v1/export?include_deleted=true");
    expect(ids(exported)).toEqual([bobOwn]);
    expect(exported.body.count).toBe(1);
    const csv = (await bob.get("/v1/export?format=csv")).body.memories as string;
    expect(csv).not.toContain("AWS");
    const md = (await bob.get("/v1/export?format=markdown")).body.memories as string;
    expect(md).not.toContain("AWS");

    const stats = (await bob.get("/v1/stats")).body;
    expect(stats).toMatchObject({ total_memories: 1, pinned_count: 0, by_namespace: [{ namespace: NS, count: 1 }] });
    expect((await bob.get("/v1/namespaces")).body).toMatchObject({ namespaces: [{ namespace: NS, name: NS, count: 1 }], total: 1 });

    expect404(await bob.get(`/v1/graph?memory_id=${secret}`));
    const graph = await bob.get(`/v1/graph?namespace=${NS}`);
    expect(graph.status).toBe(200);
    expect(graph.body.nodes.map((n: { id: string }) => n.id)).toEqual([bobOwn]);
    expect(graph.body.edges).toEqual([]);
    const suggested = await bob.get("/v1/suggested");
    expect(suggested.status).toBe(200);
    for (const s of suggested.body.suggestions) expect(s.memory.id).toBe(bobOwn);

    const context = await bob.post("/v1/context", { query: "AWS recovery codes", format: "structured" });
    expect(context.status).toBe(200);
    expect(context.body.context.memories.map((m: { id: string }) => m.id)).toEqual([bobOwn]);
  });

  test("B storing A's exact content creates B's own memory, not a merge into A's", async () => {
    const res = await bob.post("/v1/store", { content: SECRET, namespace: NS, importance: 1, metadata: { tags: ["bob"] } });
    expect(res.status).toBe(201);
    expect(res.body.deduplicated).toBe(false);
    expect(res.body.id).not.toBe(secret);
    const batch = await bob.post("/v1/store/batch", { memories: [{ content: "Alice rotates the AWS access keys for the CI robot every 90 days.", namespace: NS }] });
    expect(batch.body).toMatchObject({ count: 1, deduplicated_count: 0 });
    expect(batch.body.ids[0]).not.toBe(sibling);
    expect((await bob.get(`/v1/memories/${res.body.id}`)).body).toMatchObject({ content: SECRET, importance: 1, metadata: { tags: ["bob"] } });
    expect((await bob.get(`/v1/memories?namespace=${NS}`)).body.total).toBe(3);
  });

  test("ingest dedups within a wallet only: B ingesting A's conversation stores B's own facts", async () => {
    const text = "I prefer dark mode in every editor. We decided to deploy the billing service on Tuesdays.";
    const first = await alice.post("/v1/ingest", { text, namespace: "ingested" });
    expect(first.status).toBe(201);
    expect(first.body.facts_stored).toBeGreaterThan(0);
    expect(first.body.facts_deduplicated).toBe(0);
    const theirs = await bob.post("/v1/ingest", { text, namespace: "ingested" });
    expect(theirs.status).toBe(201);
    expect(theirs.body).toMatchObject({ facts_extracted: first.body.facts_extracted, facts_stored: first.body.facts_stored, facts_deduplicated: 0 });
    expect(theirs.body.memory_ids.filter((m: string) => first.body.memory_ids.includes(m))).toEqual([]);
    const again = await alice.post("/v1/ingest", { text, namespace: "ingested" });
    expect(again.body).toMatchObject({ facts_stored: 0, facts_deduplicated: first.body.facts_extracted, memory_ids: [] });
    expect(sortedIds(await bob.get("/v1/memories?namespace=ingested"))).toEqual([...theirs.body.memory_ids].sort());
    expect(sortedIds(await alice.get("/v1/memories?namespace=ingested"))).toEqual([...first.body.memory_ids].sort());
    for (const m of first.body.memory_ids) expect(await alice.del(`/v1/memories/${m}`)).toMatchObject({ status: 200 });
  });

  test("after all of B's attempts, A's memories, pin, relation and history are untouched", async () => {
    const now = await alice.get(`/v1/memories/${secret}`);
    expect(now.body).toEqual(aliceBefore);
    expect(now.body).toMatchObject({ content: SECRET, importance: 0.9, pinned: true, metadata: { tags: ["aws", "recovery"] } });
    expect((await alice.get(`/v1/memories/${secret}/history`)).body.history).toEqual([]);
    const relations = (await alice.get(`/v1/memories/${secret}/relations`)).body.relations;
    expect(relations.map((r: { id: string }) => r.id)).toEqual([relationId]);
    const list = await alice.get("/v1/memories?limit=100");
    expect(ids(list).sort()).toEqual([secret, sibling].sort());
    expect((await alice.get("/v1/stats")).body.total_memories).toBe(2);
    expect(ids(await alice.post("/v1/search", { query: "garden spreadsheet" }))).toEqual([]);
  });
});
