import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { connect } from "node:net";
import { Client, startService, TestWallet, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectError, expectFieldError, MISSING_ID, raw, storeMany, storeOne, uniqueNs, type Reply } from "../helpers/contract";
import { LIMITS } from "../../src/domain/memory";

/**
 * The requests the public MemoClaw clients (CLI, MCP server, TS and Python SDKs) send, as they send
 * them, with assertions on the fields they parse: aliases, additive response fields, filters, the
 * Python SDK's bare-hex signature, and rate limiting. See docs/clients.md.
 */
const ids = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);
const sorted = (xs: string[]) => [...xs].sort();
/**
 * A request written on a raw socket, so that its Content-Length can claim more than is sent; the
 * answer's status line, headers and (JSON) body.
 */
function rawHttp(service: TestService, head: string): Promise<{ status: number; headers: string; body: any }> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let text = "";
    const done = () => {
      socket.destroy();
      const [headers = "", body = ""] = text.split("\r\n\r\n");
      try {
        resolve({ status: Number(headers.split(" ")[1]), headers: headers.toLowerCase(), body: JSON.parse(body) });
      } catch (error) {
        reject(new Error(`unreadable answer ${JSON.stringify(text.slice(0, 300))}: ${error}`));
      }
    };
    socket.on("data", (chunk) => {
      text += chunk.toString();
      const [headers = "", body = ""] = text.split("\r\n\r\n");
      const length = /content-length: *(\d+)/i.exec(headers)?.[1];
      if (length !== undefined && Buffer.byteLength(body) >= Number(length)) done();
    });
    socket.on("end", done);
    socket.on("error", reject);
  });
}

/** 422 VALIDATION_ERROR naming `field`, and when given the broken `rule`. */
function expect422(res: Reply, field: string, rule?: string): void {
  expectFieldError(res, field);
  if (rule) {
    const { details } = res.body.error;
    expect([details.rule, ...(details.errors ?? []).map((d: { rule: string }) => d.rule)]).toContain(rule);
  }
}

describeEngines("memoclaw clients", (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.stop());

  describe("store", () => {
    test("a batch store answers the stored memories too (memoclaw-mcp's bulk_store and import read `memories`)", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("batch-memories");
      const first = await storeOne(client, { content: "The staging cluster runs in eu-west-1.", namespace });
      const res = await client.post("/v1/store/batch", {
        memories: [
          { content: "Release notes are written in the PR description.", namespace, tags: ["process"] },
          { content: "The staging cluster runs in eu-west-1.", namespace },
          { content: "Release notes are written in the PR description.", namespace },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.body.count).toBe(1);
      expect(res.body.deduplicated_count).toBe(2);
      const [fresh, known, again] = res.body.ids as string[];
      expect(known).toBe(first);
      expect(again).toBe(fresh);
      const memories = res.body.memories as { id: string; content: string; tags: string[]; namespace: string; embedding_model: string }[];
      expect(memories.map((m) => m.id)).toEqual([fresh!, first]);
      expect(memories[0]).toMatchObject({ content: "Release notes are written in the PR description.", tags: ["process"], namespace });
      expect(memories[1]!.content).toBe("The staging cluster runs in eu-west-1.");
      expect(memories[0]!.embedding_model).toBe("glove-sif-100d");
    });
  });

  describe("auth", () => {
    test("the signature is accepted with or without 0x (eth-account gives bare hex)", async () => {
      const wallet = new TestWallet();
      const ts = Math.floor(service.now() / 1000);
      const [address, time, signature] = (await wallet.header(ts)).split(":") as [string, string, string];
      const bare = await raw(service, "GET", "/v1/free-tier/status", undefined, { "x-wallet-auth": `${address}:${time}:${signature.slice(2)}` });
      expect(bare.status).toBe(200);
      expect(bare.body.wallet).toBe(address.toLowerCase());
      const session = await raw(service, "POST", "/auth/session", { address, timestamp: ts, signature: signature.slice(2) });
      expect(session.status).toBe(200);
      const broken = await raw(service, "GET", "/v1/free-tier/status", undefined, { "x-wallet-auth": `${address}:${time}:${signature.slice(2, -2)}` });
      expect(broken.status).toBe(401);
      expect(broken.body.error.code).toBe("AUTH_ERROR");
    });
  });

  describe("tags alias and Memory fields", () => {
    test("top-level tags on store, batch items and PATCH are metadata.tags; Memory objects carry tags, embedding_model, deleted_at, immutable, last_accessed", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("tags");
      const id = await storeOne(client, { content: "The user deploys with GitHub Actions on every merge.", tags: ["ci", "deploy"], namespace });
      const got = (await client.get(`/v1/memories/${id}`)).body;
      expect(got).toMatchObject({ metadata: { tags: ["ci", "deploy"] }, tags: ["ci", "deploy"], deleted_at: null, immutable: false });
      expect(got.embedding_model).toBe(service.deps.embedder.modelId);
      expect(got.last_accessed).toBe(got.accessed_at);

      const batch = await client.post("/v1/store/batch", {
        memories: [
          { content: "Staging runs on a single Hetzner box.", tags: ["infra"], namespace },
          { content: "Production databases are backed up nightly to S3.", metadata: { tags: ["backup"], owner: "ops" }, tags: ["backup"], namespace },
        ],
      });
      expect(batch.status).toBe(201);
      const [a, b] = batch.body.ids;
      expect((await client.get(`/v1/memories/${a}`)).body.metadata).toEqual({ tags: ["infra"] });
      expect((await client.get(`/v1/memories/${b}`)).body.metadata).toEqual({ tags: ["backup"], owner: "ops" });

      // PATCH with only tags keeps the other metadata keys
      const patched = await client.patch(`/v1/memories/${b}`, { tags: ["backup", "s3"] });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ metadata: { tags: ["backup", "s3"], owner: "ops" }, tags: ["backup", "s3"] });
      // metadata without tags + tags: merged
      expect((await client.patch(`/v1/memories/${b}`, { metadata: { owner: "sre" }, tags: ["dr"] })).body.metadata).toEqual({ owner: "sre", tags: ["dr"] });
      // batch update with tags (both names)
      const updated = await client.post("/v1/memories/batch-update", { updates: [{ id: a, tags: ["infra", "staging"] }] });
      expect(updated.body).toMatchObject({ updated: 1, failed: 0, results: [{ id: a, updated: true }] });
      expect((await client.get(`/v1/memories/${a}`)).body.tags).toEqual(["infra", "staging"]);
    });

    test("tags and metadata.tags that differ are 422 (store, batch, PATCH); too many tags are 422", async () => {
      const client = new Client(service);
      const conflict = await client.post("/v1/store", { content: "A fact about tags.", tags: ["a"], metadata: { tags: ["b"] } });
      expect422(conflict, "body/tags", "conflict");
      const batch = await client.post("/v1/store/batch", { memories: [{ content: "x one" }, { content: "x two", tags: ["a"], metadata: { tags: ["b"] } }] });
      expect422(batch, "body/memories/1/tags", "conflict");
      const id = await storeOne(client, { content: "Tags are checked on PATCH too." });
      expect422(await client.patch(`/v1/memories/${id}`, { tags: ["a"], metadata: { tags: ["c"] } }), "body/tags", "conflict");
      expect422(await client.post("/v1/store", { content: "eleven tags", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }), "body/tags", "max_items");
      const full = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
      expect422(await client.post("/v1/store", { content: "twenty keys and tags", metadata: full, tags: ["x"] }), "body/metadata", "max_properties");
      expect((await client.get("/v1/memories")).body.total).toBe(1);
    });

    test("PATCH accepts session_id and agent_id (null clears them), and records them in history", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "The agent summarises stand-ups every morning.", session_id: "s1" });
      const res = await client.patch(`/v1/memories/${id}`, { session_id: "s2", agent_id: "planner" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ session_id: "s2", agent_id: "planner" });
      expect((await client.patch(`/v1/memories/${id}`, { agent_id: null })).body.agent_id).toBeNull();
      expect((await client.get(`/v1/memories/${id}/history`)).body.history[1].changes).toEqual({ session_id: "s2", agent_id: "planner" });
      expect422(await client.patch(`/v1/memories/${id}`, { agent_id: "x".repeat(256) }), "body/agent_id", "max_length");
    });
  });

  describe("history", () => {
    test("history entries keep the spec's changes and add before/after snapshots, changed_fields, changed_at and the version flat (memoclaw-mcp's history)", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("history");
      const id = await storeOne(client, { content: "The deploy key rotates every Friday.", importance: 0.4, tags: ["ops"], namespace, metadata: { team: "infra" } });
      const stored = (await client.get(`/v1/memories/${id}`)).body;
      service.advance(1000);
      const first = await client.patch(`/v1/memories/${id}`, { content: "The deploy key rotates every Monday.", tags: ["ops", "security"] });
      service.advance(1000);
      const second = await client.patch(`/v1/memories/${id}`, { importance: 0.9, pinned: true });
      const res = await client.get(`/v1/memories/${id}/history`);
      expect(res.status).toBe(200);
      const [latest, earlier] = res.body.history;
      expect(res.body.history).toHaveLength(2);

      // the spec's fields, unchanged: changes holds the new values, newest first
      expect(earlier).toMatchObject({ memory_id: id, changes: { content: "The deploy key rotates every Monday.", metadata: { team: "infra", tags: ["ops", "security"] } }, created_at: first.body.updated_at });
      expect(latest).toMatchObject({ memory_id: id, changes: { importance: 0.9, pinned: true }, created_at: second.body.updated_at });

      const snapshot = (m: Record<string, unknown>) => ({
        content: m.content, metadata: m.metadata, tags: m.tags, importance: m.importance, memory_type: m.memory_type, namespace: m.namespace,
        session_id: m.session_id, agent_id: m.agent_id, pinned: m.pinned, immutable: m.immutable, expires_at: m.expires_at, updated_at: m.updated_at,
      });
      expect(earlier.before).toEqual(snapshot(stored));
      expect(earlier.after).toEqual(snapshot(first.body));
      expect(latest.before).toEqual(snapshot(first.body));
      expect(latest.after).toEqual(snapshot(second.body));
      expect(earlier.before).toMatchObject({ content: "The deploy key rotates every Friday.", tags: ["ops"] });
      expect(earlier.after).toMatchObject({ content: "The deploy key rotates every Monday.", tags: ["ops", "security"] });
      expect(latest.before).toMatchObject({ importance: 0.4, pinned: false });
      expect(latest.after).toMatchObject({ importance: 0.9, pinned: true });

      // memoclaw-mcp's history tool reads each entry as a version: content, importance, tags, memory_type, namespace, pinned, changed_at, changed_fields
      expect(sorted(earlier.changed_fields)).toEqual(["content", "metadata"]);
      expect(sorted(latest.changed_fields)).toEqual(["importance", "pinned"]);
      for (const entry of [earlier, latest]) {
        expect(entry.changed_at).toBe(entry.created_at);
        const { content, importance, memory_type, namespace: ns, tags, pinned, immutable } = entry.after;
        expect(entry).toMatchObject({ content, importance, memory_type, namespace: ns, tags, pinned, immutable });
      }
      expect(latest).toMatchObject({ content: "The deploy key rotates every Monday.", importance: 0.9, tags: ["ops", "security"], pinned: true, namespace });

      // another wallet reads none of it
      const other = new Client(service);
      const foreign = await other.get(`/v1/memories/${id}/history`);
      expect(foreign.status).toBe(404);
      expect(JSON.stringify(foreign.body)).not.toContain("deploy key");
    });
  });

  describe("list and count filters", () => {
    let client: Client;
    let namespace: string;
    let rows: string[];
    beforeAll(async () => {
      client = new Client(service);
      namespace = uniqueNs("filters");
      rows = await storeMany(client, [
        { content: "Decision: use Postgres for the billing service.", memory_type: "decision", importance: 0.9, metadata: { team: "billing", tags: ["db"] }, namespace },
        { content: "The user likes concise commit messages.", memory_type: "preference", importance: 0.3, pinned: true, namespace },
        { content: "Project Atlas ships in March.", memory_type: "project", importance: 0.6, immutable: true, metadata: { team: "atlas" }, namespace },
      ]);
      service.advance(2000);
      rows.push(await storeOne(client, { content: "Observation: flaky tests cluster around the payments module.", memory_type: "observation", importance: 0.6, metadata: { team: "billing" }, namespace }));
    });
    const list = async (query: string) => ids(await client.get(`/v1/memories?namespace=${namespace}&${query}`));
    const count = async (query: string) => (await client.get(`/v1/memories/count?namespace=${namespace}&${query}`)).body.count;

    test("memory_type, pinned, immutable, after/before (and since/until), metadata: applied to list and count", async () => {
      const [decision, preference, project, observation] = rows as [string, string, string, string];
      expect(await list("memory_type=decision")).toEqual([decision]);
      expect(await list("pinned=true")).toEqual([preference]);
      expect(sorted(await list("pinned=false"))).toEqual(sorted([decision, project, observation]));
      expect(await list("immutable=true")).toEqual([project]);
      expect(sorted(await list(`metadata=${encodeURIComponent(JSON.stringify({ team: "billing" }))}`))).toEqual(sorted([decision, observation]));
      expect(await list(`metadata=${encodeURIComponent(JSON.stringify({ team: "billing", tags: "db" }))}`)).toEqual([decision]);
      const cut = new Date(service.now() - 1000).toISOString();
      expect(await list(`after=${cut}`)).toEqual([observation]);
      expect(await list(`since=${cut}`)).toEqual([observation]);
      expect(sorted(await list(`before=${cut}`))).toEqual(sorted([decision, preference, project]));
      expect(sorted(await list(`until=${cut}`))).toEqual(sorted([decision, preference, project]));
      expect(await count("")).toBe(4);
      expect(await count(`memory_type=decision`)).toBe(1);
      expect(await count(`metadata=${encodeURIComponent(JSON.stringify({ team: "billing" }))}`)).toBe(2);
      expect(await count("immutable=false&pinned=false")).toBe(2);
    });

    test("sort and order; a refined page keeps total, limit and offset", async () => {
      const [decision, preference, project, observation] = rows as [string, string, string, string];
      expect(await list("sort=importance&order=desc")).toEqual([decision, observation, project, preference]);
      // ties stay newest first in either order
      expect(await list("sort=importance&order=asc")).toEqual([preference, observation, project, decision]);
      expect((await list("sort=created_at&order=asc"))[3]).toBe(observation);
      const page = (await client.get(`/v1/memories?namespace=${namespace}&sort=importance&limit=2&offset=1`)).body;
      expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
      expect(ids({ body: page } as Reply)).toEqual([observation, project]);
    });

    test("bad filters are 422", async () => {
      expect422(await client.get("/v1/memories?metadata=notjson"), "query/metadata", "type");
      expect422(await client.get("/v1/memories?metadata=%5B1%5D"), "query/metadata", "type");
      expect422(await client.get("/v1/memories?sort=content"), "query/sort");
      expect422(await client.get("/v1/memories?order=up"), "query/order");
      expect422(await client.get("/v1/memories?pinned=yes"), "query/pinned");
      expect422(await client.get("/v1/memories?after=yesterday"), "query/after", "format");
      expect422(await client.get("/v1/memories/count?memory_type=fact"), "query/memory_type");
      // the spec's list limit stands (the CLI asks for 1000)
      expect422(await client.get("/v1/memories?limit=1000"), "query/limit");
    });
  });

  describe("GET /v1/memories/search", () => {
    test("BM25 with the list's filters, full memories; not captured by /v1/memories/:id", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("search");
      const [kafka, kafkaOld, redis] = await storeMany(client, [
        { content: "Kafka consumers lag during the nightly batch import.", memory_type: "observation", tags: ["kafka"], namespace, importance: 0.4 },
        { content: "Kafka was upgraded to 3.6 last quarter.", memory_type: "project", namespace, importance: 0.8 },
        { content: "Redis holds the session cache.", namespace },
      ]);
      const res = await client.get(`/v1/memories/search?q=kafka&namespace=${namespace}`);
      expect(res.status).toBe(200);
      expect(sorted(ids(res))).toEqual(sorted([kafka, kafkaOld]));
      expect(res.body.total).toBe(2);
      expect(res.body.memories[0]).toHaveProperty("embedding_model");
      expect(res.body.memories[0]).toHaveProperty("user_id");
      expect(ids(await client.get(`/v1/memories/search?q=kafka&namespace=${namespace}&memory_type=project`))).toEqual([kafkaOld]);
      expect(ids(await client.get(`/v1/memories/search?q=kafka&namespace=${namespace}&tags=kafka`))).toEqual([kafka]);
      expect(ids(await client.get(`/v1/memories/search?q=kafka&namespace=${namespace}&sort=importance&order=asc`))).toEqual([kafka, kafkaOld]);
      expect(ids(await client.get(`/v1/memories/search?q=kafka&namespace=${namespace}&metadata=${encodeURIComponent('{"tags":"kafka"}')}`))).toEqual([kafka]);
      expect(ids(await client.get(`/v1/memories/search?q=session&namespace=${namespace}`))).toEqual([redis]);
      expect422(await client.get("/v1/memories/search"), "query/q");
      expect422(await client.get(`/v1/memories/search?q=${"a".repeat(1001)}`), "query/q", "max_length");
      // another wallet finds nothing
      expect((await new Client(service).get(`/v1/memories/search?q=kafka&namespace=${namespace}`)).body).toMatchObject({ memories: [], total: 0 });
    });
  });

  describe("core memories", () => {
    test("GET /v1/core-memories and /v1/core: pinned first, then important or often recalled; scoped to the wallet", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("core");
      const [pinned, important, plain] = await storeMany(client, [
        { content: "Always answer in British English.", pinned: true, importance: 0.2, namespace },
        { content: "The production database must never be dropped.", importance: 0.95, namespace },
        { content: "The office plant needs water on Fridays.", importance: 0.3, namespace },
      ]);
      for (const path of ["/v1/core-memories", "/v1/core"]) {
        const res = await client.get(`${path}?namespace=${namespace}&limit=10`);
        expect(res.status).toBe(200);
        expect(ids(res)).toEqual([pinned, important]);
        expect(res.body.total).toBe(2);
        expect(res.body.memories[0]).toMatchObject({ pinned: true, tags: [] });
        expect(ids(res)).not.toContain(plain);
      }
      expect(ids(await client.get(`/v1/core-memories?namespace=${namespace}&limit=1`))).toEqual([pinned]);
      expect((await new Client(service).get(`/v1/core-memories?namespace=${namespace}`)).body).toEqual({ memories: [], total: 0 });
      // the spec's core list stays pinned only
      expect(ids(await client.get(`/v1/memories/core?namespace=${namespace}`))).toEqual([pinned]);
      expect422(await client.get("/v1/core-memories?limit=0"), "query/limit");
    });
  });

  describe("batch update and batch delete aliases", () => {
    test("POST /v1/memories/batch-update is PATCH /v1/memories/batch (paid, per-item results); another wallet's memory is 404", async () => {
      const client = new Client(service);
      const other = new Client(service);
      const foreign = await storeOne(other, { content: "Bob's memory about his bicycle." });
      const [a, locked] = await storeMany(client, [{ content: "Lunch is at noon." }, { content: "The contract is signed.", immutable: true }]);
      const before = Number((await client.get("/v1/free-tier/status")).body.free_tier_remaining);
      const res = await client.post("/v1/memories/batch-update", { updates: [{ id: a, importance: 0.7 }, { id: locked, importance: 0.1 }, { id: foreign, importance: 0.1 }, { id: "nope" }] });
      expect(res.status).toBe(200);
      expect(res.body.updated).toBe(1);
      expect(res.body.failed).toBe(3);
      expect(res.body.results.map((r: { id: string; updated: boolean }) => [r.id, r.updated])).toEqual([[a, true], [locked, false], [foreign, false], ["nope", false]]);
      expect(res.body.errors.map((e: { status: number }) => e.status)).toEqual([409, 404, 422]);
      expect(typeof res.body.results[1].error).toBe("string");
      expect(Number(res.headers.get("x-free-tier-remaining"))).toBe(before - 1);
      expect((await other.get(`/v1/memories/${foreign}`)).body.importance).toBe(0.5);
      expect422(await client.post("/v1/memories/batch-update", { updates: [] }), "body/updates", "min_items");
    });

    test("POST /v1/memories/batch-delete and /bulk-delete are DELETE /v1/memories with per-id results (free)", async () => {
      const client = new Client(service);
      const other = new Client(service);
      const foreign = await storeOne(other, { content: "Carol keeps bees on the roof." });
      const [a, b, locked] = await storeMany(client, [{ content: "Temp note one about gravel." }, { content: "Temp note two about sand." }, { content: "Keep forever: the founding date.", immutable: true }]);
      const before = (await client.get("/v1/free-tier/status")).body.free_tier_remaining;
      const res = await client.post("/v1/memories/batch-delete", { ids: [a, locked, foreign, MISSING_ID] });
      expect(res.status).toBe(200);
      expect(res.body.deleted).toBe(1);
      expect(res.body.results).toEqual([
        { id: a, deleted: true },
        { id: locked, deleted: false, error: "immutable" },
        { id: foreign, deleted: false, error: "not_found" },
        { id: MISSING_ID, deleted: false, error: "not_found" },
      ]);
      const bulk = await client.post("/v1/memories/bulk-delete", { ids: [b, a] });
      expect(bulk.body).toMatchObject({ deleted: 1, failed: [{ id: a, error: "not_found" }] });
      expect((await client.get("/v1/free-tier/status")).body.free_tier_remaining).toBe(before);
      expect((await other.get(`/v1/memories/${foreign}`)).status).toBe(200);
      expect422(await client.post("/v1/memories/bulk-delete", { ids: [] }), "body/ids", "min_items");
      expect422(await client.post("/v1/memories/batch-delete", { ids: ["x"] }), "body/ids/0", "pattern");
    });
  });

  describe("extract, migrate, consolidate", () => {
    test("POST /v1/memories/extract extracts and stores (ingest), with memories_created", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("extract");
      const res = await client.post("/v1/memories/extract", { messages: [{ role: "user", content: "I prefer Rust for command-line tools. We decided to host everything on Fly.io." }], namespace });
      expect(res.status).toBe(201);
      expect(res.body.facts_stored).toBeGreaterThan(0);
      expect(res.body.memories_created).toBe(res.body.facts_stored);
      expect(sorted(ids(await client.get(`/v1/memories?namespace=${namespace}`)))).toEqual(sorted(res.body.memory_ids));
      expect422(await client.post("/v1/memories/extract", { namespace }), "body");
      const ingest = await client.post("/v1/ingest", { text: "My favourite editor is Helix.", namespace: uniqueNs("ingest") });
      expect(ingest.body.memories_created).toBe(ingest.body.facts_stored);
    });

    test("POST /v1/migrate imports Markdown files as memories (dry_run stores nothing)", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("migrate");
      const files = [
        { filename: "MEMORY.md", content: "---\ntitle: notes\n---\n# Preferences\n- Prefers tabs over spaces\n- Uses Neovim with the Lazy plugin manager\n\n# Projects\nAtlas is the internal billing rewrite, due in March.\n" },
        { filename: "people.txt", content: "Dana leads the platform team.\n\nPrefers tabs over spaces" },
      ];
      const dry = await client.post("/v1/migrate", { files, namespace, dry_run: true });
      expect(dry.status).toBe(201);
      expect(dry.body).toMatchObject({ files_processed: 2, memories_created: 5, memory_ids: [], dry_run: true });
      expect((await client.get(`/v1/memories/count?namespace=${namespace}`)).body.count).toBe(0);

      const res = await client.post("/v1/migrate", { files, namespace, auto_tag: true });
      expect(res.body).toMatchObject({ files_processed: 2, memories_created: 4, memories_deduplicated: 1, dry_run: false });
      const listed = (await client.get(`/v1/memories?namespace=${namespace}&sort=created_at&order=asc`)).body.memories;
      expect(listed.map((m: { content: string }) => m.content).sort()).toEqual(
        ["Atlas is the internal billing rewrite, due in March.", "Dana leads the platform team.", "Prefers tabs over spaces", "Uses Neovim with the Lazy plugin manager"].sort(),
      );
      const tabs = listed.find((m: { content: string }) => m.content === "Prefers tabs over spaces");
      expect(tabs.metadata).toEqual({ tags: ["memory", "preferences"], source: { via: "migrate", file: "MEMORY.md", section: "Preferences" } });
      expect422(await client.post("/v1/migrate", { files: [] }), "body/files", "min_items");
      expect422(await client.post("/v1/migrate", { files: [{ filename: "", content: "x" }] }), "body/files/0/filename", "min_length");
    });

    test("POST /v1/memories/consolidate merges duplicates, never different facts; dry_run changes nothing; another wallet is untouched", async () => {
      const client = new Client(service);
      const other = new Client(service);
      const namespace = uniqueNs("consolidate");
      const [keep, dup, v15, v16] = await storeMany(client, [
        { content: "The team deploys to production every Tuesday.", importance: 0.8, tags: ["deploy"], namespace },
        { content: "Lunch orders close at eleven.", importance: 0.4, tags: ["ops"], namespace },
        { content: "The analytics cluster runs Postgres 15.", namespace },
        { content: "The reporting replica runs MySQL 8.", namespace },
      ]);
      // PATCH does not dedup: make two memories duplicates and two others a near miss (15 vs 16)
      await client.patch(`/v1/memories/${dup}`, { content: "The team deploys to production every Tuesday!" });
      await client.patch(`/v1/memories/${v16}`, { content: "The analytics cluster runs Postgres 16." });
      const foreign = await storeOne(other, { content: "The team deploys to production every Tuesday.", namespace });
      await other.post("/v1/store", { content: "The team deploys to production every Tuesday", namespace: uniqueNs("x") });

      const dry = await client.post("/v1/memories/consolidate", { namespace, dry_run: true, min_similarity: 0.5 });
      expect(dry.status).toBe(200);
      // the Python SDK's ConsolidateResult, the CLI (`clusters.length`) and memoclaw-mcp's output schema read `clusters` as
      // this list (as MemoClaw's API reference has it); the TypeScript SDK reads `merged`, `dry_run` and `details`
      expect(dry.body).toMatchObject({ merged: 1, dry_run: true, tokens_used: 0, clusters_found: 1, memories_merged: 1, memories_created: 0 });
      const { similarity } = dry.body.clusters[0];
      expect(similarity).toBeGreaterThanOrEqual(0.5);
      expect(similarity).toBeLessThanOrEqual(1);
      expect(dry.body.clusters).toEqual([{ memory_ids: [keep, dup], similarity, merged_into: keep }]);
      expect(dry.body.details).toEqual(dry.body.clusters);
      expect((await client.get(`/v1/memories/count?namespace=${namespace}`)).body.count).toBe(4);

      const res = await client.post("/v1/memories/consolidate", { namespace, min_similarity: 0.5 });
      expect(res.body).toMatchObject({ clusters_found: 1, merged: 1, memories_merged: 1, dry_run: false, clusters: [{ memory_ids: [keep, dup], merged_into: keep }] });
      expect(sorted(ids(await client.get(`/v1/memories?namespace=${namespace}`)))).toEqual(sorted([keep, v15!, v16!]));
      expect((await client.get(`/v1/memories/${keep}`)).body).toMatchObject({ importance: 0.8, tags: ["deploy", "ops"] });
      expect((await client.get(`/v1/memories/${dup}`)).status).toBe(404);
      expect((await other.get(`/v1/memories/${foreign}`)).status).toBe(200);
      expect((await client.post("/v1/memories/consolidate", { namespace })).body).toMatchObject({ clusters: [], details: [], clusters_found: 0, merged: 0 });
      expect422(await client.post("/v1/memories/consolidate", { min_similarity: 2 }), "body/min_similarity", "maximum");
    });

    test("consolidate never folds a memory whose tags the kept one cannot hold: it stays a memory of its own", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("consolidate-full");
      const content = "The staging database is refreshed from production every Sunday night.";
      const copyInto = async (tags: string[]) => {
        const id = await storeOne(client, { content, tags, namespace: `${namespace}-${tags[0]}` });
        expect((await client.patch(`/v1/memories/${id}`, { namespace })).status).toBe(200);
        return id;
      };
      const keep = await storeOne(client, { content, importance: 0.9, tags: ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"], namespace });
      const crowded = await copyInto(["b0", "b1", "b2"]);
      const fitting = await copyInto(["a0", "c0"]);
      const res = await client.post("/v1/memories/consolidate", { namespace });
      expect(res.body.clusters).toEqual([{ memory_ids: [keep, fitting], similarity: expect.any(Number), merged_into: keep }]);
      expect((await client.get(`/v1/memories/${keep}`)).body.tags).toEqual(["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "c0"]);
      expect((await client.get(`/v1/memories/${crowded}`)).body.tags).toEqual(["b0", "b1", "b2"]);
    });

    test("consolidate as each client sends it, answering the fields each parses", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("consolidate-clients");
      const twoCopies = async () => {
        const keep = await storeOne(client, { content: "The on-call rotation changes every Monday at nine.", namespace, importance: 0.7, agent_id: "ops-bot" });
        const copy = await storeOne(client, { content: "The on-call rotation changes every Monday at nine.", namespace: `${namespace}-x`, agent_id: "ops-bot" });
        expect((await client.patch(`/v1/memories/${copy}`, { namespace })).status).toBe(200);
        return [keep, copy] as const;
      };
      const [keep, copy] = await twoCopies();
      const requests: [string, Record<string, unknown>][] = [
        ["TypeScript SDK consolidate({namespace, dry_run})", { namespace, dry_run: true }],
        ["Python SDK consolidate(namespace, min_similarity, mode, dry_run)", { namespace, min_similarity: 0.9, mode: "merge", dry_run: true }],
        ["CLI consolidate --namespace --min-similarity --mode --dry-run", { namespace, min_similarity: 0.9, mode: "rule", dry_run: true }],
        ["memoclaw_consolidate {namespace, agent_id, min_similarity, mode, dry_run}", { namespace, agent_id: "ops-bot", min_similarity: 0.9, mode: "llm", dry_run: true }],
      ];
      for (const [who, body] of requests) {
        const res = await client.post("/v1/memories/consolidate", body);
        expect([who, res.status]).toEqual([who, 200]);
        const r = res.body;
        // Python SDK ConsolidateResult: clusters_found, memories_merged, memories_created (int), clusters: [{memory_ids, similarity, merged_into}]
        expect([who, r.clusters_found, r.memories_merged, r.memories_created]).toEqual([who, 1, 1, 0]);
        expect(r.clusters).toHaveLength(1);
        expect(sorted(r.clusters[0].memory_ids)).toEqual(sorted([keep, copy]));
        expect(r.clusters[0].merged_into).toBe(keep);
        expect(typeof r.clusters[0].similarity).toBe("number");
        // TypeScript SDK ConsolidateResponse: merged, tokens_used, dry_run, details; the CLI: merged, clusters.length; memoclaw-mcp's schema: merged, clusters[]
        expect([who, r.merged, r.tokens_used, r.dry_run]).toEqual([who, 1, 0, true]);
        expect(r.details).toEqual(r.clusters);
      }
      expect((await client.get(`/v1/memories/count?namespace=${namespace}`)).body.count).toBe(2);
      // another agent's memories are not in memoclaw-mcp's agent_id-scoped consolidate
      expect((await client.post("/v1/memories/consolidate", { namespace, agent_id: "someone-else", dry_run: true })).body).toMatchObject({ clusters_found: 0, clusters: [] });
      const merged = await client.post("/v1/memories/consolidate", { namespace, min_similarity: 0.9, mode: "merge" });
      expect(merged.body).toMatchObject({ clusters_found: 1, memories_merged: 1, merged: 1, dry_run: false });
      expect(ids(await client.get(`/v1/memories?namespace=${namespace}`))).toEqual([keep]);
    });

    test("POST /v1/memories/consolidate moves the folded memories' relations to the kept one (deduped, no self-loops); dry_run moves none; wallets stay apart", async () => {
      const client = new Client(service);
      const other = new Client(service);
      const namespace = uniqueNs("consolidate-relations");
      const [keep, dup, x, y, keep2, dup2] = (await storeMany(client, [
        { content: "The team deploys to production every Tuesday.", importance: 0.8, namespace },
        { content: "Lunch orders close at eleven.", importance: 0.4, namespace },
        { content: "The analytics cluster runs Postgres 15.", namespace },
        { content: "Release notes are written in the PR description.", namespace },
        { content: "Dana leads the platform team.", importance: 0.9, namespace },
        { content: "The office plants are watered on Fridays.", importance: 0.3, namespace },
      ])) as [string, string, string, string, string, string];
      // PATCH does not dedup: two clusters, {keep, dup} and {keep2, dup2}
      await client.patch(`/v1/memories/${dup}`, { content: "The team deploys to production every Tuesday!" });
      await client.patch(`/v1/memories/${dup2}`, { content: "Dana leads the platform team!" });
      const relate = async (from: string, to: string, relation_type: string, metadata?: object) =>
        expect((await client.post(`/v1/memories/${from}/relations`, { target_id: to, relation_type, ...(metadata && { metadata }) })).status).toBe(201);
      await relate(dup, x, "related_to", { why: "same deploy" }); // moves: keep → x
      await relate(y, dup, "supports"); // moves: y → keep
      await relate(keep, y, "derived_from");
      await relate(dup, y, "derived_from"); // the same as keep → y: dropped
      await relate(dup, y, "contradicts"); // another type: moves
      await relate(dup, keep, "supersedes"); // inside the cluster: a self-loop, dropped
      await relate(dup, dup2, "related_to"); // between clusters: keep → keep2
      // another wallet: the same namespace name, its own duplicates and relations
      const [theirKeep, theirDup, theirX] = await storeMany(other, [
        { content: "The team deploys to production every Tuesday.", importance: 0.8, namespace },
        { content: "Lunch orders close at eleven.", namespace },
        { content: "The analytics cluster runs Postgres 15.", namespace },
      ]);
      await other.patch(`/v1/memories/${theirDup}`, { content: "The team deploys to production every Tuesday!" });
      expect((await other.post(`/v1/memories/${theirDup}/relations`, { target_id: theirX, relation_type: "supports" })).status).toBe(201);

      type Listed = { source_id: string; target_id: string; relation_type: string; metadata: object; memory: { id: string } };
      const links = async (c: Client, id: string) =>
        ((await c.get(`/v1/memories/${id}/relations`)).body.relations as Listed[]).map((r) => `${r.source_id} ${r.relation_type} ${r.target_id}`).sort();
      const before = { keep: await links(client, keep), dup: await links(client, dup), x: await links(client, x) };

      const dry = await client.post("/v1/memories/consolidate", { namespace, dry_run: true, min_similarity: 0.5 });
      expect(dry.body).toMatchObject({ clusters_found: 2, merged: 2, dry_run: true });
      expect(dry.body.clusters).toHaveLength(2);
      expect({ keep: await links(client, keep), dup: await links(client, dup), x: await links(client, x) }).toEqual(before);
      expect(await links(client, keep)).toEqual([`${dup} supersedes ${keep}`, `${keep} derived_from ${y}`].sort());

      const res = await client.post("/v1/memories/consolidate", { namespace, min_similarity: 0.5 });
      expect(res.body).toMatchObject({ clusters_found: 2, merged: 2, dry_run: false });
      expect(sorted(ids(await client.get(`/v1/memories?namespace=${namespace}`)))).toEqual(sorted([keep, x, y, keep2]));
      expect(await links(client, keep)).toEqual(
        [`${keep} related_to ${x}`, `${y} supports ${keep}`, `${keep} derived_from ${y}`, `${keep} contradicts ${y}`, `${keep} related_to ${keep2}`].sort(),
      );
      const toX = ((await client.get(`/v1/memories/${x}/relations`)).body.relations as Listed[])[0]!;
      expect(toX).toMatchObject({ source_id: keep, target_id: x, relation_type: "related_to", metadata: { why: "same deploy" }, memory: { id: keep } });
      expect(await links(client, keep2)).toEqual([`${keep} related_to ${keep2}`]);
      expect(await links(client, y)).toEqual([`${y} supports ${keep}`, `${keep} derived_from ${y}`, `${keep} contradicts ${y}`].sort());

      // the other wallet's memories and relations were not read or touched; its own consolidate moves only its own
      expect(await links(other, theirDup)).toEqual([`${theirDup} supports ${theirX}`]);
      expect(await links(other, theirKeep)).toEqual([]);
      expect((await other.post("/v1/memories/consolidate", { namespace, min_similarity: 0.5 })).body).toMatchObject({ clusters_found: 1, merged: 1 });
      expect(await links(other, theirKeep)).toEqual([`${theirKeep} supports ${theirX}`]);
      expect(await links(client, keep)).toHaveLength(5);
    });
  });

  describe("wallet isolation on the alias routes", () => {
    test("another wallet's memories are never found, counted, listed as core or tags, updated, deleted, deduplicated against or consolidated through an alias", async () => {
      const alice = new Client(service);
      const bob = new Client(service);
      const SECRET = "Alice's backup YubiKey is kept in the office safe.";
      const iso = uniqueNs("iso");
      const [a1, a3] = await storeMany(alice, [
        { content: SECRET, namespace: iso, pinned: true, importance: 0.9, tags: ["security", "yubikey"], session_id: "s-alice", agent_id: "vault" },
        { content: SECRET, namespace: `${iso}-e` },
        { content: SECRET, namespace: `${iso}-x` },
      ]);
      // a duplicate of a1 in the same namespace (a namespace move does not dedup), for consolidate
      const a2 = (await alice.get(`/v1/memories?namespace=${iso}-x`)).body.memories[0].id as string;
      expect((await alice.patch(`/v1/memories/${a2}`, { namespace: iso })).status).toBe(200);
      const aliceBefore = await Promise.all([a1, a2, a3].map(async (id) => (await alice.get(`/v1/memories/${id}`)).body));
      const b1 = await storeOne(bob, { content: "Bob waters the office plants on Fridays.", namespace: iso, tags: ["plants"] });
      const alices = new Set([a1, a2, a3]);
      const none = (found: string[]) => expect(found.filter((id) => alices.has(id))).toEqual([]);

      expect((await bob.get("/v1/memories/search?q=yubikey")).body).toMatchObject({ memories: [], total: 0 });
      expect((await bob.get(`/v1/memories/search?q=office&namespace=${iso}`)).body.memories.map((m: { id: string }) => m.id)).toEqual([b1]);
      expect((await bob.get(`/v1/memories/count?namespace=${iso}`)).body.count).toBe(1);
      expect((await bob.get("/v1/memories/count?session_id=s-alice")).body.count).toBe(0);
      expect((await bob.get(`/v1/memories/count?metadata=${encodeURIComponent('{"tags":"security"}')}`)).body.count).toBe(0);
      for (const path of ["/v1/core-memories", "/v1/core", `/v1/core-memories?namespace=${iso}`]) expect((await bob.get(path)).body).toEqual({ memories: [], total: 0 });
      expect((await bob.get("/v1/tags")).body).toEqual({ tags: [{ tag: "plants", count: 1 }] });

      const updated = await bob.post("/v1/memories/batch-update", { updates: [{ id: a1, tags: ["pwned"], pinned: false }, { id: b1, importance: 0.6 }] });
      expect(updated.body).toMatchObject({ updated: 1, failed: 1, results: [{ id: a1, updated: false }, { id: b1, updated: true }], errors: [{ id: a1, status: 404 }] });
      expect((await bob.post("/v1/memories/batch-delete", { ids: [a1, a2] })).body).toMatchObject({
        deleted: 0,
        results: [{ id: a1, deleted: false, error: "not_found" }, { id: a2, deleted: false, error: "not_found" }],
      });
      expect((await bob.post("/v1/memories/bulk-delete", { ids: [a3] })).body).toMatchObject({ deleted: 0, failed: [{ id: a3, error: "not_found" }] });

      // Alice holds this text in both namespaces: Bob's extract and migrate store his own copies
      const extracted = await bob.post("/v1/memories/extract", { text: SECRET, namespace: `${iso}-e` });
      expect(extracted.status).toBe(201);
      expect(extracted.body.facts_deduplicated).toBe(0);
      expect(extracted.body.memory_ids.length).toBeGreaterThan(0);
      none(extracted.body.memory_ids);
      const migrated = await bob.post("/v1/migrate", { files: [{ filename: "notes.md", content: `- ${SECRET}` }], namespace: iso });
      expect(migrated.body).toMatchObject({ memories_created: 1, memories_deduplicated: 0 });
      none(migrated.body.memory_ids);
      for (const id of [...extracted.body.memory_ids, ...migrated.body.memory_ids]) {
        expect((await bob.get(`/v1/memories/${id}`)).status).toBe(200);
        expect((await alice.get(`/v1/memories/${id}`)).status).toBe(404);
      }
      // Bob's consolidate sees only his own two (different) memories there
      const consolidated = await bob.post("/v1/memories/consolidate", { namespace: iso, min_similarity: 0.5 });
      expect(consolidated.body).toMatchObject({ clusters: [], merged: 0, memories_examined: 2 });

      // Alice's memories are exactly as they were, and her own duplicates were there to merge
      expect(await Promise.all([a1, a2, a3].map(async (id) => (await alice.get(`/v1/memories/${id}`)).body))).toEqual(aliceBefore);
      expect((await alice.get("/v1/tags")).body.tags).toEqual([{ tag: "security", count: 1 }, { tag: "yubikey", count: 1 }]);
      expect((await alice.post("/v1/memories/consolidate", { namespace: iso, dry_run: true })).body).toMatchObject({ clusters_found: 1, clusters: [{ memory_ids: [a1, a2] }] });
    });
  });

  describe("error bodies", () => {
    test("400, 404, 409, 413, 415 and 422 answer the nested {error: {code, message, details}} the clients parse, on alias routes too", async () => {
      const client = new Client(service);
      const auth = async () => ({ "x-wallet-auth": await client.wallet.header(Math.floor(service.now() / 1000)) });
      const reason = (res: Reply, status: number, code: string, why: string) => {
        expectError(res, status, code);
        expect(res.body.error.details.reason).toBe(why);
        expect(res.headers.get("x-request-id")).toBeTruthy();
      };

      reason(await raw(service, "POST", "/v1/memories/consolidate", '{"dry_run": tru', { ...(await auth()), "content-type": "application/json" }), 400, "INVALID_JSON", "invalid_json");
      reason(await raw(service, "POST", "/v1/migrate", "files=notes.md", { ...(await auth()), "content-type": "text/plain" }), 415, "UNSUPPORTED_MEDIA_TYPE", "unsupported_media_type");
      reason(await client.get("/v1/nothing-here"), 404, "NOT_FOUND", "route_not_found");
      reason(await client.get(`/v1/memories/${MISSING_ID}`), 404, "NOT_FOUND", "not_found");
      reason(await client.post(`/v1/memories/${MISSING_ID}/relations`, { target_id: MISSING_ID.replace(/0$/, "1"), relation_type: "supports" }), 404, "NOT_FOUND", "not_found");
      const locked = await storeOne(client, { content: "The incorporation date is 2019-04-01.", immutable: true });
      reason(await client.del(`/v1/memories/${locked}`), 409, "CONFLICT", "immutable");
      reason(await client.patch(`/v1/memories/${locked}`, { tags: ["legal"] }), 409, "CONFLICT", "immutable");

      // 413 before the body is read: the declared length alone is over the limit (a client sends
      // nothing more once the answer comes)
      const declared = LIMITS.bodyBytes + 1;
      const head = [`POST /v1/migrate HTTP/1.1`, `host: ${new URL(service.url).host}`, "content-type: application/json", `content-length: ${declared}`, `x-wallet-auth: ${(await auth())["x-wallet-auth"]}`, "", "{"].join("\r\n");
      const tooLarge = await rawHttp(service, head);
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { reason: "payload_too_large", max_bytes: LIMITS.bodyBytes, actual_bytes: declared } });
      expect(typeof tooLarge.body.error.message).toBe("string");

      // 422 with the facts the clients print (the TS SDK's ValidationError.details, the CLI's message)
      const long = await client.post("/v1/store", { content: "x".repeat(9000) });
      expectFieldError(long, "body/content");
      expect(long.body.error.details).toMatchObject({ field: "body/content", rule: "max_length", max_length: 8192, actual_length: 9000 });
      expect422(await client.get("/v1/memories/search?q="), "query/q", "min_length");
      expect422(await client.post("/v1/memories/batch-update", { updates: "all of them" }), "body/updates", "type");
      expect422(await client.post("/v1/memories/extract", { text: 42 }), "body/text");
      expect422(await client.get("/v1/core?limit=101"), "query/limit", "maximum");
      expect422(await client.get(`/v1/tags?namespace=${"n".repeat(256)}`), "query/namespace", "max_length");
      // nothing was stored by any of them
      expect((await client.get("/v1/memories/count")).body.count).toBe(1);
    });

    test("500: INTERNAL_ERROR with the request id to quote, nothing internal; the log has both", async () => {
      const broken = await startService(engine);
      const spy = spyOn(console, "error").mockImplementation(() => {});
      try {
        const client = new Client(broken);
        broken.deps.memories.list = async () => {
          throw new Error("disk on fire at /var/lib/secret-path");
        };
        const res = await client.request("GET", "/v1/memories/count?namespace=x", undefined, { "x-request-id": "req-count-500" });
        expectError(res, 500, "INTERNAL_ERROR");
        expect(res.body.error.details.request_id).toBe("req-count-500");
        expect(res.headers.get("x-request-id")).toBe("req-count-500");
        expect(JSON.stringify(res.body)).not.toContain("secret-path");
        const logged = spy.mock.calls.map((args) => args.map(String).join(" ")).join("\n");
        expect(logged).toContain("req-count-500");
        expect(logged).toContain("disk on fire");
      } finally {
        spy.mockRestore();
        await broken.stop();
      }
    });

    test("402 PAYMENT_REQUIRED on the paid aliases once the free calls are used (nothing changes); the free aliases still answer", async () => {
      const small = await startService(engine, { FREE_TIER_CALLS: "1" });
      try {
        const client = new Client(small);
        const id = await storeOne(client, { content: "The VPN config is in the ops wiki.", tags: ["ops"], namespace: "pay" });
        const paid: [string, string, unknown][] = [
          ["POST", "/v1/memories/batch-update", { updates: [{ id, importance: 0.9 }] }],
          ["POST", "/v1/memories/extract", { text: "We decided to move the VPN to WireGuard.", namespace: "pay" }],
          ["POST", "/v1/migrate", { files: [{ filename: "ops.md", content: "- The VPN moves to WireGuard." }], namespace: "pay" }],
          ["POST", "/v1/memories/consolidate", { namespace: "pay" }],
        ];
        for (const [method, path, body] of paid) {
          const res = await client.request(method, path, body);
          expect([path, res.status]).toEqual([path, 402]);
          expect(res.body.error).toMatchObject({ code: "PAYMENT_REQUIRED", details: { reason: "payments_disabled" } });
          expect(res.headers.get("payment-required")).toBeTruthy();
        }
        expect((await client.get("/v1/memories?namespace=pay")).body.memories.map((m: { id: string; importance: number }) => [m.id, m.importance])).toEqual([[id, 0.5]]);
        const free: [string, string, unknown?][] = [
          ["GET", "/v1/memories/search?q=vpn"],
          ["GET", "/v1/memories/count"],
          ["GET", "/v1/core-memories"],
          ["GET", "/v1/core"],
          ["GET", "/v1/tags"],
          ["POST", "/v1/memories/batch-delete", { ids: [MISSING_ID] }],
          ["POST", "/v1/memories/bulk-delete", { ids: [MISSING_ID] }],
        ];
        for (const [method, path, body] of free) {
          const res = await client.request(method, path, body);
          expect([path, res.status]).toEqual([path, 200]);
          expect(res.headers.get("x-free-tier-remaining")).toBe("0");
        }
      } finally {
        await small.stop();
      }
    });
  });

  describe("response shapes", () => {
    test("relations list items carry the other memory; create says created, delete echoes the id", async () => {
      const client = new Client(service);
      const [a, b] = await storeMany(client, [{ content: "Service A calls service B over gRPC.", memory_type: "project" }, { content: "Service B is written in Go.", importance: 0.7 }]);
      const created = await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "related_to" });
      expect(created.body).toMatchObject({ created: true, source_id: a, target_id: b });
      const fromA = (await client.get(`/v1/memories/${a}/relations`)).body.relations;
      expect(fromA).toEqual([{ ...created.body, direction: "outgoing", memory: { id: b, content: "Service B is written in Go.", importance: 0.7, memory_type: "general", namespace: "default" } }].map(({ created: _, ...r }) => r));
      expect((await client.get(`/v1/memories/${b}/relations`)).body.relations[0]).toMatchObject({ direction: "incoming", memory: { id: a, memory_type: "project" } });
      const gone = await client.del(`/v1/memories/${a}/relations/${created.body.id}`);
      expect(gone.body).toEqual({ deleted: true, id: created.body.id });
    });

    test("suggested: {suggested: [Memory + relation_count, category, review_score], categories, total}; category filters", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("suggested");
      const [fresh] = await storeMany(client, [{ content: "New hire starts on Monday.", namespace, importance: 0.6 }]);
      const res = await client.get(`/v1/suggested?namespace=${namespace}`);
      expect(res.status).toBe(200);
      expect(res.body.suggested).toHaveLength(1);
      expect(res.body.suggested[0]).toMatchObject({ id: fresh, category: "fresh", relation_count: 0, review_score: 0.6, embedding_model: expect.any(String) });
      expect(res.body.categories).toEqual({ decaying: 0, hot: 0, fresh: 1, stale: 0 });
      expect(res.body.total).toBe(1);
      // memoclaw-mcp formats each `suggestions` item as a memory: its fields are at the top level too
      expect(res.body.suggestions[0]).toMatchObject({ reason: "fresh", memory: { id: fresh }, id: fresh, content: "New hire starts on Monday.", importance: 0.6 });
      expect((await client.get(`/v1/suggested?namespace=${namespace}&category=stale`)).body).toMatchObject({ suggested: [], total: 0 });
      expect422(await client.get("/v1/suggested?category=old"), "query/category");
    });

    test("namespaces: name, count, last_memory_at, total; tags: {tag, count}", async () => {
      const client = new Client(service);
      await storeMany(client, [
        { content: "Grafana dashboards live in the ops repo.", tags: ["ops", "grafana"], namespace: "ops" },
        { content: "Alerts page the on-call engineer.", tags: ["ops"], namespace: "ops" },
        { content: "The wiki is on Notion.", tags: ["docs"] },
      ]);
      const ns = (await client.get("/v1/namespaces")).body;
      expect(ns.total).toBe(2);
      const ops = ns.namespaces.find((n: { name: string }) => n.name === "ops");
      expect(ops).toMatchObject({ namespace: "ops", name: "ops", count: 2, last_memory_at: expect.any(String) });
      expect((await client.get("/v1/tags")).body.tags).toEqual([
        { tag: "ops", count: 2 },
        { tag: "docs", count: 1 },
        { tag: "grafana", count: 1 },
      ]);
      expect((await client.get("/v1/tags?namespace=ops")).body.tags.map((t: { tag: string }) => t.tag)).toEqual(["ops", "grafana"]);
      expect((await new Client(service).get("/v1/tags")).body).toEqual({ tags: [] });
    });

    test("context takes limit and answers memories; export jsonl", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("context");
      await storeMany(client, [
        { content: "The user's name is Priya.", namespace, importance: 0.9 },
        { content: "Priya works on the search team.", namespace },
        { content: "Priya prefers morning meetings.", namespace },
      ]);
      const res = await client.post("/v1/context", { query: "Priya", namespace, limit: 2 });
      expect(res.status).toBe(200);
      expect(res.body.memories_used).toBe(2);
      expect(res.body.memories).toHaveLength(2);
      expect(res.body.memories[0]).toMatchObject({ content: expect.any(String), source: "relevant" });
      expect((await client.post("/v1/context", { query: "Priya", namespace, limit: 2, max_memories: 3 })).body.memories_used).toBe(3);

      const exported = (await client.get(`/v1/export?format=jsonl&namespace=${namespace}`)).body;
      expect(exported.format).toBe("jsonl");
      expect(exported.memories).toHaveLength(3);
      expect(exported.jsonl.split("\n").map((line: string) => JSON.parse(line).id)).toEqual(exported.memories.map((m: { id: string }) => m.id));
    });

    test("recall applies filters.memory_type, before, pinned and metadata, and returns immutable and tags", async () => {
      const client = new Client(service);
      const namespace = uniqueNs("recall");
      const [pg, mongo, pinned] = await storeMany(client, [
        { content: "Billing stores invoices in Postgres.", memory_type: "decision", metadata: { team: "billing" }, namespace, immutable: true },
        { content: "Search stores documents in MongoDB databases.", memory_type: "project", metadata: { team: "search" }, namespace },
        { content: "All databases are backed up hourly.", pinned: true, namespace },
      ]);
      const recall = async (filters: Record<string, unknown>) => ids(await client.post("/v1/recall", { query: "where are things stored in databases", namespace, limit: 10, filters }));
      expect(await recall({ memory_type: "decision" })).toEqual([pg]);
      expect(await recall({ pinned: true })).toEqual([pinned]);
      expect(await recall({ metadata: { team: "search" } })).toEqual([mongo]);
      expect(await recall({ before: new Date(service.now() - 60_000).toISOString() })).toEqual([]);
      const all = (await client.post("/v1/recall", { query: "invoices Postgres", namespace, limit: 1 })).body.memories[0];
      expect(all).toMatchObject({ id: pg, immutable: true, tags: [] });
      expect422(await client.post("/v1/recall", { query: "x", filters: { pinned: "yes" } }), "body/filters/pinned");
    });
  });
});

describe("rate limit", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(undefined, { RATE_LIMIT_PER_MINUTE: "3" });
  });
  afterAll(() => service.stop());

  test("past RATE_LIMIT_PER_MINUTE a wallet gets 429 RATE_LIMITED with Retry-After; other wallets are not limited; the next minute resets", async () => {
    const client = new Client(service);
    for (let i = 0; i < 3; i++) expect((await client.get("/v1/stats")).status).toBe(200);
    const limited = await client.get("/v1/stats");
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: "RATE_LIMITED", details: { reason: "rate_limited", limit_per_minute: 3 } });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await new Client(service).get("/v1/stats")).status).toBe(200);
    service.advance(60_000);
    expect((await client.get("/v1/stats")).status).toBe(200);
  });

  test("a 429 changes nothing and costs no free call, on paid, free and alias routes alike; a session token counts for its wallet; Retry-After counts down with the clock", async () => {
    const client = new Client(service);
    const before = (await client.get("/v1/free-tier/status")).body.free_tier_remaining;
    const stored = await client.post("/v1/store", { content: "The build cache lives on the CI runner's local disk.", tags: ["ci"] });
    expect(stored.status).toBe(201);
    const third = await client.get("/v1/memories/search?q=cache");
    expect(third.status).toBe(200);
    // MemoClaw's X-RateLimit-* headers on every answer while a limit is set
    expect(third.headers.get("x-ratelimit-limit")).toBe("3");
    expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
    const reset = Number(third.headers.get("x-ratelimit-reset"));
    expect(reset * 1000).toBeGreaterThan(service.now());
    expect(reset * 1000).toBeLessThanOrEqual(service.now() + 61_000);

    const refused: [string, string, unknown?][] = [
      ["POST", "/v1/store", { content: "This store must not happen." }],
      ["POST", "/v1/memories/consolidate", { dry_run: false, min_similarity: 0.1 }],
      ["POST", "/v1/migrate", { files: [{ filename: "x.md", content: "- Nor this one." }] }],
      ["POST", "/v1/memories/bulk-delete", { ids: [stored.body.id] }],
      ["PATCH", `/v1/memories/${stored.body.id}`, { content: "overwritten" }],
      ["GET", "/v1/memories/count"],
      ["GET", "/v1/core-memories"],
      ["POST", "/v1/store", { content: "" }], // an invalid body: still 429, the limit is checked first
    ];
    for (const [method, path, body] of refused) {
      const res = await client.request(method, path, body);
      expect([method, path, res.status]).toEqual([method, path, 429]);
      expect(res.body.error.code).toBe("RATE_LIMITED");
      expect(typeof res.body.error.message).toBe("string");
      const { details } = res.body.error;
      expect(details).toMatchObject({ reason: "rate_limited", limit_per_minute: 3, limit: 3, reset_at: new Date(reset * 1000).toISOString() });
      expect(res.headers.get("retry-after")).toBe(String(details.retry_after_seconds));
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    }
    // a session token is the same wallet: limited too
    const ts = Math.floor(service.now() / 1000);
    const signature = await client.wallet.account.signMessage({ message: `service-auth:${ts}` });
    const token = (await raw(service, "POST", "/auth/session", { address: client.wallet.address, timestamp: ts, signature })).body.token;
    expect((await raw(service, "GET", "/v1/stats", undefined, { authorization: `Bearer ${token}` })).status).toBe(429);

    const first = Number((await client.get("/v1/stats")).headers.get("retry-after"));
    service.advance(20_000);
    const later = await client.get("/v1/stats");
    const left = Number(later.headers.get("retry-after"));
    // 20 s less (21 when the real milliseconds between the two requests cross a second)
    expect(left).toBeLessThanOrEqual(first - 20);
    expect(left).toBeGreaterThanOrEqual(first - 21);
    expect(later.body.error.details.retry_after_seconds).toBe(left);

    service.advance(first * 1000);
    const status = await client.get("/v1/free-tier/status");
    expect(status.status).toBe(200);
    expect(status.headers.get("x-ratelimit-remaining")).toBe("2");
    expect(status.body.free_tier_remaining).toBe(before - 1); // the one store; refused calls cost nothing
    const memories = (await client.get("/v1/memories")).body.memories;
    expect(memories.map((m: { id: string; content: string }) => [m.id, m.content])).toEqual([[stored.body.id, "The build cache lives on the CI runner's local disk."]]);
  });

  test("off by default (and then no X-RateLimit headers)", async () => {
    const unlimited = await startService();
    try {
      const client = new Client(unlimited);
      for (let i = 0; i < 20; i++) expect((await client.get("/v1/stats")).status).toBe(200);
      expect((await client.get("/v1/stats")).headers.get("x-ratelimit-limit")).toBeNull();
    } finally {
      await unlimited.stop();
    }
  });
});
