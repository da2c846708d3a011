import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectFieldError, FACTS, HOUR, isoFromNow, MISSING_ID, storeMany, storeOne, uniqueNs, type Reply } from "../helpers/contract";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ids = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);
const pad = (prefix: string, length: number) => (prefix + "-".repeat(length)).slice(0, length);
const INCIDENT = "Incident review: the checkout service timed out because the database connection pool was exhausted during the flash sale. ";
const longContent = (length: number) => INCIDENT.repeat(Math.ceil(length / INCIDENT.length)).slice(0, length);
/** metadata whose JSON serialization is exactly `bytes` long */
const metadataOfBytes = (bytes: number) => ({ note: "x".repeat(bytes - '{"note":""}'.length) });

describeEngines("memories", (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.stop());

  describe("POST /v1/store", () => {
    test("applies the defaults and answers 201 {id, stored, deduplicated, tokens_used}", async () => {
      const client = new Client(service);
      const before = service.now();
      const res = await client.post("/v1/store", { content: "The user prefers dark mode in every code editor and terminal." });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(["deduplicated", "id", "stored", "tokens_used"]);
      expect(res.body.id).toMatch(UUID);
      expect(res.body.stored).toBe(true);
      expect(res.body.deduplicated).toBe(false);
      expect(Number.isInteger(res.body.tokens_used)).toBe(true);
      expect(res.body.tokens_used).toBeGreaterThan(0);

      const got = await client.get(`/v1/memories/${res.body.id}`);
      expect(got.status).toBe(200);
      const m = got.body;
      expect(m).toMatchObject({
        id: res.body.id,
        namespace: "default",
        content: "The user prefers dark mode in every code editor and terminal.",
        metadata: {},
        importance: 0.5,
        memory_type: "general",
        session_id: null,
        agent_id: null,
        pinned: false,
        expires_at: null,
        access_count: 0,
      });
      expect(m.user_id).toMatch(UUID);
      for (const field of ["created_at", "updated_at", "accessed_at"]) {
        expect(m[field]).toMatch(ISO);
        expect(Math.abs(Date.parse(m[field]) - before)).toBeLessThan(5_000);
      }
      expect(m.created_at).toBe(m.updated_at);
      expect(m.deleted_at).toBeNull();
    });

    test("keeps every field it is given", async () => {
      const client = new Client(service);
      const expires = isoFromNow(service, 30 * 24 * HOUR);
      const body = {
        content: "Production deploys happen on Tuesdays after the standup meeting.",
        metadata: { tags: ["deploys", "process"], source: "retro", owner: { team: "platform" } },
        importance: 0.8,
        namespace: "ops",
        memory_type: "decision",
        session_id: "sess-2024-06-01",
        agent_id: "planner",
        expires_at: expires,
        pinned: true,
        immutable: false,
      };
      const id = await storeOne(client, body);
      const { body: m } = await client.get(`/v1/memories/${id}`);
      expect(m).toMatchObject(body);
      expect(m.metadata).toEqual(body.metadata);
    });

    test("the same content in the same namespace is merged (deduplicated, same id); another namespace stores anew", async () => {
      const client = new Client(service);
      const content = "The billing service is written in Go and talks to Stripe webhooks.";
      const first = await client.post("/v1/store", { content, importance: 0.3, metadata: { tags: ["billing"] } });
      const again = await client.post("/v1/store", { content: `  ${content.toUpperCase()} `, importance: 0.7, metadata: { tags: ["stripe"] } });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ id: first.body.id, stored: true, deduplicated: true });
      // the merge keeps the content, takes the higher importance and the union of tags
      const merged = (await client.get(`/v1/memories/${first.body.id}`)).body;
      expect(merged).toMatchObject({ content, importance: 0.7, metadata: { tags: ["billing", "stripe"] } });
      expect((await client.get(`/v1/memories/${first.body.id}/history`)).body.history).toEqual([]);
      const elsewhere = await client.post("/v1/store", { content, namespace: "archive" });
      expect(elsewhere.body.deduplicated).toBe(false);
      expect(elsewhere.body.id).not.toBe(first.body.id);
      const list = await client.get("/v1/memories");
      expect(list.body.total).toBe(2);
    });

    test("a duplicate's locks and missing fields are kept by the merge; what it cannot keep is reported", async () => {
      const client = new Client(service);
      const content = "The nightly export job writes parquet files to the archive bucket.";
      const first = await storeOne(client, { content, metadata: { tags: ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"] } });
      const again = await client.post("/v1/store", {
        content,
        immutable: true,
        memory_type: "project",
        agent_id: "exporter",
        metadata: { tags: ["b0", "b1", "b2", "b3"] },
      });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ id: first, deduplicated: true, merge_dropped: { tags: ["b2", "b3"], metadata_keys: [], fields: [] } });
      const merged = (await client.get(`/v1/memories/${first}`)).body;
      expect(merged).toMatchObject({ immutable: true, memory_type: "project", agent_id: "exporter" });
      expect(merged.metadata.tags).toEqual(["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0", "b1"]);
      expect((await client.del(`/v1/memories/${first}`)).status).toBe(409);

      // a whole merge says nothing; a field the memory holds its own value for is reported
      const plain = await storeOne(client, { content: "The archive bucket keeps exports for ninety days.", memory_type: "decision" });
      const whole = await client.post("/v1/store", { content: "The archive bucket keeps exports for ninety days.", metadata: { tags: ["retention"] } });
      expect(whole.body).toMatchObject({ id: plain, deduplicated: true });
      expect(whole.body.merge_dropped).toBeUndefined();
      const typed = await client.post("/v1/store/batch", { memories: [{ content: "The archive bucket keeps exports for ninety days.", memory_type: "preference" }, { content: "A fresh memory of the batch." }] });
      expect(typed.body.merge_dropped).toEqual([{ index: 0, id: plain, tags: [], metadata_keys: [], fields: ["memory_type"] }]);
      expect((await client.get(`/v1/memories/${plain}`)).body.memory_type).toBe("decision");
    });

    test("an immutable memory absorbs a duplicate unchanged; a deleted memory's content stores anew", async () => {
      const client = new Client(service);
      const content = "Alice is the tech lead for the payments team since March.";
      const locked = await storeOne(client, { content, immutable: true, importance: 0.4 });
      const before = (await client.get(`/v1/memories/${locked}`)).body;
      const dup = await client.post("/v1/store", { content, importance: 0.9, metadata: { tags: ["people"] } });
      expect(dup.body).toMatchObject({ id: locked, deduplicated: true, merge_dropped: { tags: ["people"], metadata_keys: [], fields: [] } });
      expect((await client.get(`/v1/memories/${locked}`)).body).toEqual(before);

      const note = "Use pnpm instead of npm for the monorepo because of workspace hoisting.";
      const gone = await storeOne(client, { content: note });
      expect((await client.del(`/v1/memories/${gone}`)).status).toBe(200);
      const again = await client.post("/v1/store", { content: note });
      expect(again.body.deduplicated).toBe(false);
      expect(again.body.id).not.toBe(gone);
    });

    test("contents without any words (emoji, symbols) are not duplicates of each other", async () => {
      const client = new Client(service);
      const rocket = await storeOne(client, { content: "🚀🚀" });
      const party = await client.post("/v1/store", { content: "🎉" });
      expect(party.body.deduplicated).toBe(false);
      expect(party.body.id).not.toBe(rocket);
      expect((await client.get(`/v1/memories/${party.body.id}`)).body.content).toBe("🎉");
      expect((await client.post("/v1/store", { content: " 🚀🚀 " })).body).toMatchObject({ id: rocket, deduplicated: true });
    });

    // Dedup merges on embedding cosine ≥ 0.95 plus ≥ 50% shared word pairs. With the local GloVe model,
    // out-of-vocabulary tokens (keys, ids, hashes) add nothing to the vector, and one differing token in a
    // sentence keeps most word pairs, so two memories that differ only in such a token merge and the second
    // one is silently lost. Changing this is a dedup-policy decision, not a local fix.
    test("contents that differ only in an identifier (deploy key, ticket id) stay distinct memories", async () => {
      const client = new Client(service);
      const first = await storeOne(client, { content: "The staging deploy key is ghp_8f7a6d5c4b3a." });
      const second = await client.post("/v1/store", { content: "The staging deploy key is ghp_1a2b3c4d5e6f." });
      expect(second.body.deduplicated).toBe(false);
      expect(second.body.id).not.toBe(first);
    });

    test("content is required and must be a non-empty string", async () => {
      const client = new Client(service);
      expectFieldError(await client.post("/v1/store", {}), "content");
      expectFieldError(await client.post("/v1/store", { content: "" }), "content");
      expectFieldError(await client.post("/v1/store", { content: 42 }), "content");
      // content of only spaces or control characters says nothing: refused on every write path
      for (const blank of [" ", "\n\t ", "\u0000", "\u0007 "]) {
        const res = await client.post("/v1/store", { content: blank });
        expectFieldError(res, "content");
        expect(res.body.error.details.rule).toBe("blank");
      }
      expectFieldError(await client.post("/v1/store/batch", { memories: [{ content: "A real fact." }, { content: "  " }] }), "body/memories/1/content");
      // half a surrogate pair would be stored as U+FFFD: refused, wherever it is, never altered
      for (const [body, field] of [[{ content: "bad \udc00 text" }, "body/content"], [{ content: "ok", metadata: { note: "\ud83d" } }, "body/metadata/note"], [{ content: "ok", metadata: { ["k\udc00"]: 1 } }, "body/metadata/k"]] as const) {
        const res = await client.post("/v1/store", body);
        expectFieldError(res, field);
        expect(res.body.error.details.rule).toBe("unicode");
      }
      expect((await client.post("/v1/store", { content: "A whole emoji 😀 is fine." })).status).toBe(201);
      // an empty tag names nothing: refused however it is given
      expectFieldError(await client.post("/v1/store", { content: "Tagged with nothing", tags: ["ok", ""] }), "tags/1");
      expectFieldError(await client.post("/v1/store", { content: "Tagged with nothing", metadata: { tags: [""] } }), "tags/0");
      expect((await client.get("/v1/memories")).body.total).toBe(1);
      const id = await storeOne(client, { content: "The visible fact." });
      expectFieldError(await client.patch(`/v1/memories/${id}`, { content: "\u0000 " }), "content");
      expect((await client.get(`/v1/memories/${id}`)).body.content).toBe("The visible fact.");
      expect((await client.del(`/v1/memories/${id}`)).status).toBe(200);
    });
  });

  describe("field limits (store)", () => {
    const accepted: [string, Record<string, unknown>][] = [
      ["content of 8192 chars", { content: longContent(8192) }],
      ["namespace of 255 chars", { namespace: pad(`ns${crypto.randomUUID()}`, 255) }],
      ["session_id of 255 chars", { session_id: pad("session", 255) }],
      ["agent_id of 255 chars", { agent_id: pad("agent", 255) }],
      ["metadata with 20 keys", { metadata: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])) }],
      ["metadata 3 levels deep", { metadata: { a: { b: { c: "leaf" } } } }],
      ["metadata of exactly 4096 bytes", { metadata: metadataOfBytes(4096) }],
      ["10 tags", { metadata: { tags: Array.from({ length: 10 }, (_, i) => `tag-${i}`) } }],
      ["a tag of 64 chars", { metadata: { tags: [pad("tag", 64)] } }],
      ["importance 0", { importance: 0 }],
      ["importance 1", { importance: 1 }],
      ...["correction", "preference", "decision", "project", "observation", "general"].map((t): [string, Record<string, unknown>] => [`memory_type ${t}`, { memory_type: t }]),
    ];
    const rejected: [string, Record<string, unknown>, string][] = [
      ["content of 8193 chars", { content: longContent(8193) }, "content"],
      ["namespace of 256 chars", { namespace: pad("ns", 256) }, "namespace"],
      ["session_id of 256 chars", { session_id: pad("session", 256) }, "session_id"],
      ["agent_id of 256 chars", { agent_id: pad("agent", 256) }, "agent_id"],
      ["metadata with 21 keys", { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])) }, "metadata"],
      ["metadata 4 levels deep", { metadata: { a: { b: { c: { d: "leaf" } } } } }, "metadata"],
      ["metadata of 4097 bytes", { metadata: metadataOfBytes(4097) }, "metadata"],
      ["11 tags", { metadata: { tags: Array.from({ length: 11 }, (_, i) => `tag-${i}`) } }, "tags"],
      ["a tag of 65 chars", { metadata: { tags: [pad("tag", 65)] } }, "tags"],
      ["tags that are not strings", { metadata: { tags: [1, 2] } }, "tags"],
      ["importance -0.01", { importance: -0.01 }, "importance"],
      ["importance 1.01", { importance: 1.01 }, "importance"],
      ["memory_type outside the enum", { memory_type: "fact" }, "memory_type"],
      ["expires_at in the past", { expires_at: "2001-01-01T00:00:00.000Z" }, "expires_at"],
      ["expires_at that is not a date", { expires_at: "next tuesday" }, "expires_at"],
    ];

    let client: Client;
    beforeAll(() => {
      client = new Client(service);
    });

    for (const [label, extra] of accepted) {
      test(`accepts ${label}`, async () => {
        const body = { content: "Kubernetes clusters are upgraded one minor version at a time, staging first.", namespace: uniqueNs("limits"), ...extra };
        const id = await storeOne(client, body);
        const { body: m } = await client.get(`/v1/memories/${id}`);
        for (const [key, value] of Object.entries(body)) expect(m[key]).toEqual(value);
      });
    }
    for (const [label, extra, field] of rejected) {
      test(`rejects ${label} with 422 naming ${field}`, async () => {
        const before = (await client.get("/v1/memories?limit=1")).body.total;
        const res = await client.post("/v1/store", { content: "Backups are copied to another region hourly.", namespace: uniqueNs("limits"), ...extra });
        expectFieldError(res, field);
        expect((await client.get("/v1/memories?limit=1")).body.total).toBe(before);
      });
    }
    test("expires_at one second in the past (service clock) is rejected; one hour ahead is accepted", async () => {
      expectFieldError(await client.post("/v1/store", { content: "Temporary VPN access for the auditors.", expires_at: isoFromNow(service, -1000) }), "expires_at");
      const expires = isoFromNow(service, HOUR);
      const id = await storeOne(client, { content: "Temporary VPN access for the auditors.", expires_at: expires, namespace: uniqueNs("exp") });
      expect((await client.get(`/v1/memories/${id}`)).body.expires_at).toBe(expires);
    });
  });

  describe("POST /v1/store/batch", () => {
    test("stores 1 item", async () => {
      const client = new Client(service);
      const res = await client.post("/v1/store/batch", { memories: [{ content: FACTS[3] }] });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ stored: true, count: 1, deduplicated_count: 0 });
      expect(res.body.ids).toHaveLength(1);
      expect(res.body.ids[0]).toMatch(UUID);
      expect(res.body.tokens_used).toBeGreaterThan(0);
      expect((await client.get(`/v1/memories/${res.body.ids[0]}`)).body.content).toBe(FACTS[3]);
    });

    test("stores 100 items, ids in order", async () => {
      const client = new Client(service);
      const items = Array.from({ length: 100 }, (_, i) => ({ content: FACTS[i % FACTS.length]!, namespace: `batch-${i}`, importance: i / 100 }));
      const res = await client.post("/v1/store/batch", { memories: items });
      expect(res.status).toBe(201);
      expect(res.body.count).toBe(100);
      expect(res.body.deduplicated_count).toBe(0);
      expect(new Set(res.body.ids).size).toBe(100);
      const fifty = await client.get(`/v1/memories/${res.body.ids[50]}`);
      expect(fifty.body).toMatchObject({ namespace: "batch-50", importance: 0.5, content: FACTS[50 % FACTS.length] });
      expect((await client.get("/v1/memories?limit=1")).body.total).toBe(100);
    });

    test("an in-batch duplicate is merged and counted", async () => {
      const client = new Client(service);
      const res = await client.post("/v1/store/batch", { memories: [{ content: FACTS[5] }, { content: FACTS[6] }, { content: FACTS[5] }] });
      expect(res.status).toBe(201);
      expect(res.body.count).toBe(2);
      expect(res.body.deduplicated_count).toBe(1);
      expect(res.body.ids[2]).toBe(res.body.ids[0]);
    });

    test("0 and 101 items, or a missing array, answer 422 and store nothing", async () => {
      const client = new Client(service);
      expectFieldError(await client.post("/v1/store/batch", { memories: [] }), "memories");
      const many = Array.from({ length: 101 }, (_, i) => ({ content: FACTS[i % FACTS.length]!, namespace: `n${i}` }));
      expectFieldError(await client.post("/v1/store/batch", { memories: many }), "memories");
      expectFieldError(await client.post("/v1/store/batch", {}), "memories");
      expect((await client.get("/v1/memories")).body.total).toBe(0);
    });

    test("one invalid item rejects the whole batch with 422 naming the item and field", async () => {
      const client = new Client(service);
      const items: Record<string, unknown>[] = FACTS.slice(0, 5).map((content) => ({ content }));
      items[3] = { content: FACTS[3], importance: 1.5 };
      const res = await client.post("/v1/store/batch", { memories: items });
      expectFieldError(res, "importance");
      expect(JSON.stringify(res.body)).toContain("3");
      items[3] = { content: FACTS[3], metadata: metadataOfBytes(5000) };
      const res2 = await client.post("/v1/store/batch", { memories: items });
      expectFieldError(res2, "metadata");
      expect(res2.body.error.message).toContain("body/memories/3/metadata");
      expect(res2.body.error.details).toMatchObject({ field: "body/memories/3/metadata", rule: "max_bytes", max_bytes: 4096 });
      expect((await client.get("/v1/memories")).body.total).toBe(0);
    });
  });

  describe("GET /v1/memories", () => {
    let client: Client;
    const items = FACTS.slice(0, 25).map((content, i) => ({
      content,
      namespace: i % 3 === 0 ? "work" : "personal",
      metadata: { tags: [...(i % 2 === 0 ? ["infra"] : []), ...(i % 5 === 0 ? ["team"] : []), ...(i === 7 ? ["rare"] : [])] },
      ...(i < 5 && { session_id: "sess-1" }),
      ...(i % 4 === 0 && { agent_id: "agent-a" }),
    }));
    let stored: string[];
    beforeAll(async () => {
      client = new Client(service);
      stored = await storeMany(client, items);
    });
    const expected = (pred: (item: (typeof items)[number]) => boolean) => stored.filter((_, i) => pred(items[i]!));

    test("defaults: limit 20, offset 0, total of all, newest first", async () => {
      const res = await client.get("/v1/memories");
      expect(res.status).toBe(200);
      expect(res.body.limit).toBe(20);
      expect(res.body.offset).toBe(0);
      expect(res.body.total).toBe(25);
      expect(res.body.memories).toHaveLength(20);
      const listed = res.body.memories[0];
      for (const field of ["id", "user_id", "namespace", "content", "metadata", "importance", "memory_type", "session_id", "agent_id", "pinned", "expires_at", "created_at", "updated_at", "accessed_at", "access_count"]) {
        expect(listed).toHaveProperty(field);
      }
      const created = (res.body.memories as { created_at: string }[]).map((m) => m.created_at);
      expect([...created].sort().reverse()).toEqual(created);
    });

    test("pagination walks every memory exactly once", async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 25; offset += 7) {
        const res = await client.get(`/v1/memories?limit=7&offset=${offset}`);
        expect(res.body).toMatchObject({ limit: 7, offset, total: 25 });
        expect(res.body.memories).toHaveLength(Math.min(7, 25 - offset));
        seen.push(...ids(res));
      }
      expect(new Set(seen).size).toBe(25);
      expect([...seen].sort()).toEqual([...stored].sort());
      const past = await client.get("/v1/memories?offset=40");
      expect(past.body.memories).toEqual([]);
      expect(past.body.total).toBe(25);
    });

    test("limit 1 and 100 are accepted; 0, 101, -1 and non-numbers answer 422", async () => {
      const one = await client.get("/v1/memories?limit=1");
      expect(one.body.memories).toHaveLength(1);
      expect(one.body.limit).toBe(1);
      const hundred = await client.get("/v1/memories?limit=100");
      expect(hundred.body.memories).toHaveLength(25);
      expect(hundred.body.limit).toBe(100);
      for (const bad of ["limit=0", "limit=101", "limit=-1", "limit=ten", "limit=2.5"]) expectFieldError(await client.get(`/v1/memories?${bad}`), "limit");
      expectFieldError(await client.get("/v1/memories?offset=-1"), "offset");
    });

    test("tags: comma-separated, any-match", async () => {
      const infra = await client.get("/v1/memories?tags=infra&limit=100");
      expect(infra.body.total).toBe(expected((it) => it.metadata.tags.includes("infra")).length);
      expect(ids(infra).sort()).toEqual(expected((it) => it.metadata.tags.includes("infra")).sort());
      const either = await client.get(`/v1/memories?tags=${encodeURIComponent("rare, team")}&limit=100`);
      const want = expected((it) => it.metadata.tags.includes("rare") || it.metadata.tags.includes("team"));
      expect(want).toHaveLength(6);
      expect(either.body.total).toBe(6);
      expect(ids(either).sort()).toEqual(want.sort());
      const none = await client.get("/v1/memories?tags=nonexistent");
      expect(none.body).toMatchObject({ total: 0, memories: [] });
    });

    test("namespace, session_id and agent_id filters, alone and combined", async () => {
      const work = await client.get("/v1/memories?namespace=work&limit=100");
      expect(ids(work).sort()).toEqual(expected((it) => it.namespace === "work").sort());
      expect(work.body.total).toBe(9);
      const session = await client.get("/v1/memories?session_id=sess-1&limit=100");
      expect(ids(session).sort()).toEqual(expected((it) => it.session_id === "sess-1").sort());
      expect(session.body.total).toBe(5);
      const agent = await client.get("/v1/memories?agent_id=agent-a&limit=100");
      expect(ids(agent).sort()).toEqual(expected((it) => it.agent_id === "agent-a").sort());
      const combined = await client.get("/v1/memories?namespace=work&agent_id=agent-a&tags=infra&limit=100");
      const want = expected((it) => it.namespace === "work" && it.agent_id === "agent-a" && it.metadata.tags.includes("infra"));
      expect(want.length).toBeGreaterThan(0);
      expect(ids(combined).sort()).toEqual(want.sort());
      expect(combined.body.total).toBe(want.length);
      expect((await client.get("/v1/memories?namespace=nowhere")).body).toMatchObject({ total: 0, memories: [] });
    });
  });

  describe("GET /v1/memories/:id", () => {
    test("returns the memory; 404 for unknown; 422 for a bad uuid", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[7], memory_type: "project", importance: 0.9 });
      const res = await client.get(`/v1/memories/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, content: FACTS[7], memory_type: "project", importance: 0.9 });
      const missing = await client.get(`/v1/memories/${MISSING_ID}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: "NOT_FOUND", details: { reason: "not_found" } });
      expectFieldError(await client.get("/v1/memories/not-a-uuid"), "id");
      // an id in upper case is refused, never answered as not found
      const upper = id.toUpperCase();
      expectFieldError(await client.get(`/v1/memories/${upper}`), "id");
      expectFieldError(await client.patch(`/v1/memories/${upper}`, { importance: 0.5 }), "id");
      expectFieldError(await client.post("/v1/memories/core", { memory_id: upper }), "memory_id");
      expectFieldError(await client.post("/v1/memories/batch-delete", { ids: [upper] }), "ids");
    });
  });

  describe("PATCH /v1/memories/:id and history", () => {
    test("updates, returns the memory and records only the changed fields", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[8], importance: 0.4, memory_type: "general", metadata: { tags: ["mobile"] } });
      expect((await client.get(`/v1/memories/${id}/history`)).body).toEqual({ history: [] });
      service.advance(1000);
      const res = await client.patch(`/v1/memories/${id}`, { importance: 0.9, memory_type: "general", metadata: { tags: ["mobile"] } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, importance: 0.9, memory_type: "general", content: FACTS[8] });
      expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(res.body.created_at));
      const history = (await client.get(`/v1/memories/${id}/history`)).body.history;
      expect(history).toHaveLength(1);
      expect(history[0].changes).toEqual({ importance: 0.9 });
      expect(history[0]).toMatchObject({ memory_id: id });
      expect(history[0].id).toMatch(UUID);
      expect(history[0].created_at).toBe(res.body.updated_at);
      expect((await client.get(`/v1/memories/${id}`)).body.importance).toBe(0.9);
    });

    test("history is newest first", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[9] });
      await client.patch(`/v1/memories/${id}`, { importance: 0.6 });
      service.advance(1000);
      await client.patch(`/v1/memories/${id}`, { memory_type: "preference", namespace: "people" });
      service.advance(1000);
      await client.patch(`/v1/memories/${id}`, { metadata: { tags: ["health"] } });
      const { history } = (await client.get(`/v1/memories/${id}/history`)).body;
      expect(history.map((h: { changes: object }) => h.changes)).toEqual([
        { metadata: { tags: ["health"] } },
        { memory_type: "preference", namespace: "people" },
        { importance: 0.6 },
      ]);
      expect(Date.parse(history[0].created_at)).toBeGreaterThan(Date.parse(history[1].created_at));
      // the namespace change moved it
      expect(ids(await client.get("/v1/memories?namespace=people"))).toEqual([id]);
      expect(ids(await client.get("/v1/memories?namespace=default"))).toEqual([]);
    });

    test("a content change re-embeds: recall and search find it by the new content only", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "The team uses Jenkins for continuous integration builds." });
      await storeOne(client, { content: FACTS[11] });
      const res = await client.patch(`/v1/memories/${id}`, { content: "Invoices are rendered to PDF by a headless Chromium service." });
      expect(res.status).toBe(200);
      expect((await client.get(`/v1/memories/${id}/history`)).body.history[0].changes).toEqual({ content: "Invoices are rendered to PDF by a headless Chromium service." });
      const recall = await client.post("/v1/recall", { query: "headless Chromium renders PDF invoices", limit: 1 });
      expect(recall.status).toBe(200);
      expect(recall.body.memories[0].id).toBe(id);
      expect(recall.body.memories[0].content).toBe("Invoices are rendered to PDF by a headless Chromium service.");
      expect(recall.body.memories[0]._signals.vector).toBeGreaterThan(0.6);
      const recallOld = await client.post("/v1/recall", { query: "Jenkins continuous integration", limit: 5 });
      const old = (recallOld.body.memories as { id: string; _signals: { keyword: number; vector: number } }[]).find((m) => m.id === id);
      if (old) {
        expect(old._signals.keyword).toBe(0);
        expect(old._signals.vector).toBeLessThan(0.6);
      }
      expect(ids(await client.post("/v1/search", { query: "Chromium" }))).toEqual([id]);
      expect(ids(await client.post("/v1/search", { query: "Jenkins" }))).toEqual([]);
    });

    test("an unchanged value records no history entry", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[12], importance: 0.5 });
      const res = await client.patch(`/v1/memories/${id}`, { importance: 0.5 });
      expect(res.status).toBe(200);
      expect((await client.get(`/v1/memories/${id}/history`)).body.history).toEqual([]);
    });

    test("validation: empty patch, out-of-range fields, bad uuid → 422; unknown → 404", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[13] });
      expect((await client.patch(`/v1/memories/${id}`, {})).status).toBe(422);
      expectFieldError(await client.patch(`/v1/memories/${id}`, { importance: 1.01 }), "importance");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { content: longContent(8193) }), "content");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { memory_type: "fact" }), "memory_type");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { namespace: pad("ns", 256) }), "namespace");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { metadata: { a: { b: { c: { d: 1 } } } } }), "metadata");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { metadata: metadataOfBytes(4097) }), "metadata");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { metadata: { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }), "tags");
      expectFieldError(await client.patch(`/v1/memories/${id}`, { expires_at: isoFromNow(service, -60_000) }), "expires_at");
      expectFieldError(await client.patch("/v1/memories/not-a-uuid", { importance: 0.2 }), "id");
      expect((await client.patch(`/v1/memories/${MISSING_ID}`, { importance: 0.2 })).status).toBe(404);
      expect((await client.get(`/v1/memories/${id}/history`)).body.history).toEqual([]);
      // the limit is 255 on PATCH as everywhere: 255 moves the memory, 256 is refused by each form of update
      const ns255 = pad(`ns${crypto.randomUUID()}`, 255);
      expect((await client.patch(`/v1/memories/${id}`, { namespace: ns255 })).body.namespace).toBe(ns255);
      const batch = await client.patch("/v1/memories/batch", { updates: [{ id, namespace: pad("ns", 256) }] });
      expect(batch.body.errors).toEqual([{ id, status: 422, message: expect.stringContaining("body/updates/0/namespace") }]);
      expect((await client.get(`/v1/memories/${id}`)).body.namespace).toBe(ns255);
      // an item that names no memory is reported with an empty id and says what is missing
      const anonymous = await client.patch("/v1/memories/batch", { updates: [{ importance: 0.3 }, 5, null] });
      expect(anonymous.body.errors).toEqual([0, 1, 2].map((i) => ({ id: "", status: 422, message: expect.stringContaining(`body/updates/${i}/id: required`) })));
      expect((await client.get(`/v1/memories/${id}`)).body.importance).toBe(0.5);
    });

    test("history: 404 for unknown and deleted memories, 422 for a bad uuid", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[14] });
      await client.patch(`/v1/memories/${id}`, { importance: 0.7 });
      expect((await client.get(`/v1/memories/${MISSING_ID}/history`)).status).toBe(404);
      expectFieldError(await client.get("/v1/memories/1234/history"), "id");
      expect((await client.del(`/v1/memories/${id}`)).status).toBe(200);
      expect((await client.get(`/v1/memories/${id}/history`)).status).toBe(404);
    });
  });

  describe("PATCH /v1/memories/batch", () => {
    test("applies valid items and reports 404/409/422 per item", async () => {
      const client = new Client(service);
      const [a, b, locked] = await storeMany(client, [{ content: FACTS[15] }, { content: FACTS[16] }, { content: FACTS[17], immutable: true }]);
      const res = await client.patch("/v1/memories/batch", {
        updates: [
          { id: a, importance: 0.95, pinned: true },
          { id: MISSING_ID, importance: 0.1 },
          { id: locked, importance: 0.1 },
          { id: b, importance: 7 },
          { id: "not-a-uuid", importance: 0.2 },
          { id: b },
          { id: b, content: "The design system lives in Figma; tokens are exported to Tailwind CSS variables.", memory_type: "project" },
          "not an object",
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.updated).toBe(2);
      const byIndex = res.body.errors as { id: string; status: number; message: string }[];
      expect(byIndex.map((e) => e.status)).toEqual([404, 409, 422, 422, 422, 422]);
      expect(byIndex.slice(0, 5).map((e) => e.id)).toEqual([MISSING_ID, locked, b, "not-a-uuid", b]);
      for (const e of byIndex) expect(e.message.length).toBeGreaterThan(0);
      expect(byIndex[2]!.message).toContain("importance");
      expect((await client.get(`/v1/memories/${a}`)).body).toMatchObject({ importance: 0.95, pinned: true });
      expect((await client.get(`/v1/memories/${b}`)).body).toMatchObject({ memory_type: "project", importance: 0.5 });
      expect((await client.get(`/v1/memories/${locked}`)).body.importance).toBe(0.5);
      // only PATCH /v1/memories/:id records history (spec, History entry)
      expect((await client.get(`/v1/memories/${b}/history`)).body.history).toEqual([]);
    });

    test("an item with a field outside the patchable set is a per-item 422 naming it; the rest proceed", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "Translations are handled by Crowdin and synced every Friday." });
      const before = (await client.get(`/v1/memories/${id}`)).body;
      const res = await client.patch("/v1/memories/batch", {
        updates: [
          { id, importance: 0.9, deleted_at: "2020-01-01T00:00:00.000Z", access_count: 99, user_id: crypto.randomUUID(), created_at: "2020-01-01T00:00:00.000Z" },
          { id, color: "blue" },
          { id, importance: 0.6 },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.updated).toBe(1);
      expect(res.body.errors.map((e: { status: number }) => e.status)).toEqual([422, 422]);
      expect(res.body.errors[0].message).toContain("body/updates/0/deleted_at: unknown field");
      expect(res.body.errors[1].message).toContain("body/updates/1/color: unknown field");
      expect(res.body.results.map((r: { updated: boolean }) => r.updated)).toEqual([false, false, true]);
      const after = await client.get(`/v1/memories/${id}`);
      expect(after.status).toBe(200);
      expect(after.body).toEqual({ ...before, importance: 0.6, updated_at: after.body.updated_at });
      expect(after.body).not.toHaveProperty("color");
      expect((await client.get(`/v1/memories/${id}/history`)).body.history).toEqual([]);
      expect(ids(await client.get("/v1/memories"))).toEqual([id]);
    });

    test("pinned: false unpins, immutable: true locks (one-way)", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[18], pinned: true });
      const res = await client.patch("/v1/memories/batch", { updates: [{ id, pinned: false, immutable: true }] });
      expect(res.body).toEqual({ updated: 1, errors: [], results: [{ id, updated: true }], failed: 0, tokens_used: 0 });
      expect((await client.get(`/v1/memories/${id}`)).body).toMatchObject({ pinned: false, immutable: true });
      const undo = await client.patch("/v1/memories/batch", { updates: [{ id, immutable: false }] });
      expect(undo.body.updated).toBe(0);
      expect(undo.body.errors).toEqual([{ id, status: 409, message: expect.any(String) }]);
    });

    test("a content change in a batch re-embeds", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "Onboarding checklist lives in Notion." });
      await client.patch("/v1/memories/batch", { updates: [{ id, content: "Load tests run with k6 against a dedicated performance environment." }] });
      const recall = await client.post("/v1/recall", { query: "k6 load tests performance environment", limit: 1 });
      expect(recall.body.memories[0].id).toBe(id);
      expect(recall.body.memories[0]._signals.vector).toBeGreaterThan(0.6);
    });

    test("whole-request validation failures answer 422: missing, not an array, 0 or 101 items", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[19] });
      expectFieldError(await client.patch("/v1/memories/batch", {}), "updates");
      expectFieldError(await client.patch("/v1/memories/batch", { updates: "all" }), "updates");
      expectFieldError(await client.patch("/v1/memories/batch", { updates: [] }), "updates");
      const many = Array.from({ length: 101 }, () => ({ id, importance: 0.9 }));
      expectFieldError(await client.patch("/v1/memories/batch", { updates: many }), "updates");
      expect((await client.get(`/v1/memories/${id}`)).body.importance).toBe(0.5);
      const hundred = await client.patch("/v1/memories/batch", { updates: many.slice(0, 100) });
      expect(hundred.status).toBe(200);
      expect(hundred.body.updated).toBe(100);
      expect((await client.get(`/v1/memories/${id}`)).body.importance).toBe(0.9);
    });
  });

  describe("DELETE", () => {
    test("single delete is soft: 200 {deleted, id}, then 404 on get, history, delete; gone from list", async () => {
      const client = new Client(service);
      const [keep, gone] = await storeMany(client, [{ content: FACTS[20] }, { content: FACTS[21] }]);
      const res = await client.del(`/v1/memories/${gone}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true, id: gone });
      expect((await client.get(`/v1/memories/${gone}`)).status).toBe(404);
      expect((await client.get(`/v1/memories/${gone}/history`)).status).toBe(404);
      expect((await client.del(`/v1/memories/${gone}`)).status).toBe(404);
      expect((await client.patch(`/v1/memories/${gone}`, { importance: 1 })).status).toBe(404);
      const list = await client.get("/v1/memories");
      expect(ids(list)).toEqual([keep]);
      expect(list.body.total).toBe(1);
      expect(ids(await client.post("/v1/search", { query: "Carol written async updates" }))).toEqual([]);
      expect(ids(await client.post("/v1/recall", { query: FACTS[21], limit: 10 }))).toEqual([keep]);
      expect((await client.get("/v1/stats")).body.total_memories).toBe(1);
      // soft: still exportable with include_deleted
      const exported = await client.get("/v1/export?include_deleted=true");
      const row = (exported.body.memories as { id: string; deleted_at: string | null }[]).find((m) => m.id === gone);
      expect(row?.deleted_at).toMatch(ISO);
    });

    test("single delete: 409 immutable, 422 bad uuid, 404 unknown", async () => {
      const client = new Client(service);
      const locked = await storeOne(client, { content: FACTS[22], immutable: true });
      const res = await client.del(`/v1/memories/${locked}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: "CONFLICT", details: { reason: "immutable" } });
      expect((await client.get(`/v1/memories/${locked}`)).status).toBe(200);
      expectFieldError(await client.del("/v1/memories/xyz"), "id");
      expect((await client.del(`/v1/memories/${MISSING_ID}`)).status).toBe(404);
    });

    test("bulk delete deletes what it may and lists missing, immutable and foreign ids", async () => {
      const client = new Client(service);
      const other = new Client(service);
      const foreign = await storeOne(other, { content: FACTS[23] });
      const [a, b, locked] = await storeMany(client, [{ content: FACTS[24] }, { content: FACTS[25] }, { content: FACTS[26], immutable: true }]);
      const res = await client.del("/v1/memories", { ids: [a, b, locked, MISSING_ID, foreign] });
      expect(res.status).toBe(200);
      expect(res.body.deleted).toBe(2);
      expect([...res.body.errors].sort()).toEqual([locked, MISSING_ID, foreign].sort());
      expect(ids(await client.get("/v1/memories"))).toEqual([locked]);
      expect((await other.get(`/v1/memories/${foreign}`)).status).toBe(200);
      const again = await client.del("/v1/memories", { ids: [a] });
      expect(again.body).toEqual({ deleted: 0, errors: [a], results: [{ id: a, deleted: false, error: "not_found" }], failed: [{ id: a, error: "not_found" }] });
    });

    test("bulk delete: missing, empty, over 100 ids or a bad uuid → 422", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[27] });
      expectFieldError(await client.del("/v1/memories", {}), "ids");
      expectFieldError(await client.del("/v1/memories", { ids: [] }), "ids");
      expectFieldError(await client.del("/v1/memories", { ids: Array.from({ length: 101 }, () => crypto.randomUUID()) }), "ids");
      expectFieldError(await client.del("/v1/memories", { ids: [id, "nope"] }), "ids");
      expect((await client.get(`/v1/memories/${id}`)).status).toBe(200);
      const hundred = await client.del("/v1/memories", { ids: [id, ...Array.from({ length: 99 }, () => crypto.randomUUID())] });
      expect(hundred.body.deleted).toBe(1);
      expect(hundred.body.errors).toHaveLength(99);
    });
  });

  describe("immutability", () => {
    test("is one-way: every update and delete of an immutable memory answers 409 and changes nothing", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "Password hashing uses argon2id with a memory cost of 64 megabytes.", immutable: true, importance: 0.9 });
      const before = (await client.get(`/v1/memories/${id}`)).body;
      expect(before.immutable).toBe(true);
      for (const patch of [{ immutable: false }, { immutable: true }, { importance: 0.1 }, { content: "Passwords use bcrypt." }, { expires_at: null }, { namespace: "other" }, { metadata: { tags: ["x"] } }, { pinned: true }]) {
        const res = await client.patch(`/v1/memories/${id}`, patch);
        expect(res.status).toBe(409);
        expect(res.body.error).toMatchObject({ code: "CONFLICT", details: { reason: "immutable" } });
      }
      const batch = await client.patch("/v1/memories/batch", { updates: [{ id, immutable: false }, { id, content: "Passwords use bcrypt." }] });
      expect(batch.body.updated).toBe(0);
      expect(batch.body.errors.map((e: { status: number }) => e.status)).toEqual([409, 409]);
      expect((await client.del(`/v1/memories/${id}`)).status).toBe(409);
      expect((await client.get(`/v1/memories/${id}`)).body).toEqual(before);
      expect((await client.get(`/v1/memories/${id}/history`)).body.history).toEqual([]);
    });

    test("set later via PATCH, it cannot be unset", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: FACTS[0] });
      const lock = await client.patch(`/v1/memories/${id}`, { immutable: true });
      expect(lock.status).toBe(200);
      expect(lock.body.immutable).toBe(true);
      expect((await client.get(`/v1/memories/${id}/history`)).body.history[0].changes).toEqual({ immutable: true });
      expect((await client.patch(`/v1/memories/${id}`, { immutable: false })).status).toBe(409);
      expect((await client.get(`/v1/memories/${id}`)).body.immutable).toBe(true);
    });
  });

  // Moves the service clock by hours: kept last in this file.
  describe("expiry", () => {
    test("an expired memory is gone from list, get, search, recall, stats and export; PATCH expires_at null keeps one", async () => {
      const client = new Client(service);
      const expiring = await storeOne(client, { content: "The staging database runs PostgreSQL 15 on a single r6g.large instance.", expires_at: isoFromNow(service, HOUR), metadata: { tags: ["db"] } });
      const kept = await storeOne(client, { content: "The PostgreSQL read replica for analytics lives in us-east-2.", expires_at: isoFromNow(service, HOUR), metadata: { tags: ["db"] } });
      const relation = (await client.post(`/v1/memories/${kept}/relations`, { target_id: expiring, relation_type: "related_to" })).body;
      expect((await client.get(`/v1/memories/${kept}/relations`)).body.relations.map((r: { id: string }) => r.id)).toEqual([relation.id]);
      const cleared = await client.patch(`/v1/memories/${kept}`, { expires_at: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.expires_at).toBeNull();
      expect((await client.get(`/v1/memories/${kept}/history`)).body.history[0].changes).toEqual({ expires_at: null });

      const visible = async () => ({
        list: ids(await client.get("/v1/memories")),
        search: ids(await client.post("/v1/search", { query: "PostgreSQL" })),
        recall: ids(await client.post("/v1/recall", { query: "PostgreSQL database", limit: 10 })),
        stats: (await client.get("/v1/stats")).body.total_memories,
        export: ids(await client.get("/v1/export")),
        tagged: ids(await client.get("/v1/memories?tags=db")),
      });
      const before = await visible();
      expect(before.list.sort()).toEqual([expiring, kept].sort());
      expect(before.search.sort()).toEqual([expiring, kept].sort());
      expect(before.recall.sort()).toEqual([expiring, kept].sort());
      expect(before.stats).toBe(2);
      expect(before.export.sort()).toEqual([expiring, kept].sort());

      service.advance(2 * HOUR);
      expect((await client.get(`/v1/memories/${expiring}`)).status).toBe(404);
      expect((await client.get(`/v1/memories/${expiring}/history`)).status).toBe(404);
      expect((await client.patch(`/v1/memories/${expiring}`, { expires_at: null })).status).toBe(404);
      const after = await visible();
      expect(after).toEqual({ list: [kept], search: [kept], recall: [kept], stats: 1, export: [kept], tagged: [kept] });
      expect((await client.get("/v1/namespaces")).body.namespaces).toMatchObject([{ namespace: "default", name: "default", count: 1 }]);
      expect((await client.get(`/v1/memories/${kept}`)).body.expires_at).toBeNull();
      expect((await client.get(`/v1/memories/${kept}/relations`)).body.relations).toEqual([]);
      expect((await client.post(`/v1/memories/${kept}/relations`, { target_id: expiring, relation_type: "supports" })).status).toBe(404);
    });
  });
});
