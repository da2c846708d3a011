import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectFieldError, uniqueNs } from "../helpers/contract";

const CONVERSATION = [
  { role: "user", content: "Hi! I prefer tabs over spaces and I use Vim as my editor." },
  { role: "assistant", content: "Got it, tabs and Vim. Anything else?" },
  { role: "user", content: "We decided to use Postgres for the billing service. What's the weather like?" },
  { role: "tool", content: "The user prefers emacs." },
];

describeEngines("ingest and extract", (engine) => {
  let service: TestService;
  let client: Client;
  beforeAll(async () => {
    service = await startService(engine);
    client = new Client(service);
  });
  afterAll(() => service.stop());

  test("ingest stores the durable facts with provenance; the same conversation again stores nothing", async () => {
    const namespace = uniqueNs("ingest");
    const first = await client.post("/v1/ingest", { messages: CONVERSATION, namespace, session_id: "sess-1", agent_id: "agent-7" });
    expect(first.status).toBe(201);
    expect(first.body.facts_extracted).toBe(3);
    expect(first.body.facts_stored).toBe(3);
    expect(first.body.facts_deduplicated).toBe(0);
    expect(first.body.tokens_used).toBe(0);
    expect(first.body.relations_created).toBe(0); // auto_relate defaults to false
    expect(first.body.memory_ids).toHaveLength(3);

    const listed = await client.get(`/v1/memories?namespace=${namespace}`);
    const contents = listed.body.memories.map((m: { content: string }) => m.content).sort();
    expect(contents).toEqual(["The team decided to use Postgres for the billing service", "User prefers tabs over spaces", "User uses Vim as their editor"]);
    const tabs = listed.body.memories.find((m: { content: string }) => m.content.includes("tabs"));
    expect(tabs.memory_type).toBe("preference");
    expect(tabs.session_id).toBe("sess-1");
    expect(tabs.agent_id).toBe("agent-7");
    expect(tabs.metadata.source).toEqual({ via: "ingest", message_index: 0, role: "user", session_id: "sess-1" });
    expect(tabs.metadata.tags).toContain("preference");

    const again = await client.post("/v1/ingest", { messages: CONVERSATION, namespace, session_id: "sess-1" });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ memory_ids: [], facts_extracted: 3, facts_stored: 0, facts_deduplicated: 3 });
    expect((await client.get(`/v1/memories?namespace=${namespace}`)).body.total).toBe(3);
  });

  test("facts_stored + facts_deduplicated = facts_extracted when some facts are known", async () => {
    const namespace = uniqueNs("partial");
    await client.post("/v1/store", { content: "User prefers tabs over spaces", namespace });
    const res = await client.post("/v1/ingest", { text: "I prefer tabs over spaces. My favourite language is Rust.", namespace });
    expect(res.status).toBe(201);
    expect(res.body.facts_extracted).toBe(2);
    expect(res.body.facts_stored).toBe(1);
    expect(res.body.facts_deduplicated).toBe(1);
    expect(res.body.facts_stored + res.body.facts_deduplicated).toBe(res.body.facts_extracted);
  });

  test("auto_relate links a correction to the memory it replaces", async () => {
    const namespace = uniqueNs("relate");
    const before = await client.post("/v1/ingest", { messages: [{ role: "user", content: "I use Vim as my editor." }], namespace });
    const vimId = before.body.memory_ids[0];
    const res = await client.post("/v1/ingest", { messages: [{ role: "user", content: "Actually I no longer use Vim, I switched to Helix." }], namespace, auto_relate: true });
    expect(res.status).toBe(201);
    expect(res.body.relations_created).toBeGreaterThanOrEqual(2);
    const relations = (await client.get(`/v1/memories/${vimId}/relations`)).body.relations as { relation_type: string; direction: string; source_id: string }[];
    const types = relations.filter((r) => r.direction === "incoming").map((r) => r.relation_type).sort();
    expect(types).toContain("contradicts");
    expect(types).toContain("supersedes");
    for (const r of relations) expect(res.body.memory_ids).toContain(r.source_id);
  });

  test("messages or text, exactly one; roles and sizes are validated", async () => {
    const neither = await client.post("/v1/ingest", {});
    expectFieldError(neither, "body");
    expect(neither.body.error.details).toMatchObject({ field: "body/messages", rule: "required", alternative: "body/text" });
    const both = await client.post("/v1/ingest", { text: "a", messages: [{ role: "user", content: "b" }] });
    expectFieldError(both, "body");
    expect(both.body.error.details).toMatchObject({ field: "body/text", rule: "conflict", conflicts_with: "body/messages" });
    expectFieldError(await client.post("/v1/ingest", { messages: [{ role: "robot", content: "hello" }] }), "role");
    expectFieldError(await client.post("/v1/ingest", { messages: [] }), "messages");
    expectFieldError(await client.post("/v1/ingest", { messages: "I prefer tabs" }), "body/messages");
    expectFieldError(await client.post("/v1/extract", { messages: "I prefer tabs" }), "body/messages");
    expectFieldError(await client.post("/v1/ingest", { text: "x".repeat(200_001) }), "text");
    const ok = await client.post("/v1/ingest", { text: "Hello! Thanks a lot.", namespace: uniqueNs("smalltalk") });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ facts_extracted: 0, facts_stored: 0, memory_ids: [] });
  });

  test("extract returns facts without storing them and costs no free call", async () => {
    const before = (await client.get("/v1/free-tier/status")).body.free_tier_remaining;
    const res = await client.post("/v1/extract", { text: "My name is Ana. I love dark mode. Is it raining?" });
    expect(res.status).toBe(200);
    expect(res.body.tokens_used).toBe(0);
    const facts = res.body.facts as { content: string; memory_type: string; source: { message_index: null } }[];
    expect(facts.map((f) => f.content)).toEqual(["User's name is Ana", "User loves dark mode"]);
    expect(facts[1]!.memory_type).toBe("preference");
    expect(facts[0]!.source.message_index).toBeNull();
    expect((await client.get("/v1/free-tier/status")).body.free_tier_remaining).toBe(before);
    const found = await client.post("/v1/search", { query: "Ana" });
    expect(found.body.total).toBe(0);
  });

  test("a long conversation is processed whole: a fact in the last message is found", async () => {
    const namespace = uniqueNs("long");
    const filler = Array.from({ length: 300 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `Okay, thanks! Message ${i} here, nothing new.` }));
    const messages = [...filler, { role: "user", content: "Remember that the staging cluster runs in Frankfurt." }];
    const res = await client.post("/v1/ingest", { messages, namespace });
    expect(res.status).toBe(201);
    const found = await client.post("/v1/search", { query: "staging Frankfurt", namespace });
    expect(found.body.memories.map((m: { content: string }) => m.content)).toContain("The staging cluster runs in Frankfurt");
  });

  test("another wallet's ingest never dedups against or relates to this wallet's memories", async () => {
    const namespace = uniqueNs("iso");
    await client.post("/v1/ingest", { text: "I prefer tabs over spaces.", namespace });
    const other = new Client(service);
    const res = await other.post("/v1/ingest", { text: "I prefer tabs over spaces.", namespace, auto_relate: true });
    expect(res.body).toMatchObject({ facts_stored: 1, facts_deduplicated: 0 });
    expect((await other.get(`/v1/memories?namespace=${namespace}`)).body.total).toBe(1);
  });
});
