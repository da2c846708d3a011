import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectFieldError, HOUR, isoFromNow, MISSING_ID, raw, storeMany, storeOne, type Reply } from "../helpers/contract";

const ids = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);
const remaining = (res: Reply) => Number(res.headers.get("x-free-tier-remaining"));
const byKey = <T extends Record<string, unknown>>(rows: T[], key: keyof T) => [...rows].sort((a, b) => String(a[key]).localeCompare(String(b[key])));

/** RFC 4180 parser: fields may be quoted; "" inside quotes is a quote; CRLF or LF ends a record. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(field), (field = "");
    else if (ch === "\r" && text[i + 1] === "\n") continue;
    else if (ch === "\n") row.push(field), rows.push(row), (row = []), (field = "");
    else field += ch;
  }
  if (field !== "" || row.length > 0) row.push(field), rows.push(row);
  return rows;
}

describeEngines("account", (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.stop());

  describe("free tier", () => {
    test("GET /v1/free-tier/info is public and has the documented shape", async () => {
      const res = await raw(service, "GET", "/v1/free-tier/info");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        free_tier: { enabled: true, calls_per_wallet: 100, description: expect.any(String) },
        auth: { header: "x-wallet-auth", format: expect.any(String), message_to_sign: expect.any(String), expiry_seconds: 300 },
        after_free_tier: { payment: expect.any(String), note: expect.any(String) },
      });
      expect(res.body.auth.format).toContain("{wallet_address}:{unix_timestamp}:{signature}");
      expect(res.body.auth.message_to_sign).toStartWith("service-auth:");
      expect(res.body.after_free_tier.payment).toContain("x402");
    });

    test("GET /v1/free-tier/status has the documented shape and starts at 100", async () => {
      const client = new Client(service);
      const res = await client.get("/v1/free-tier/status");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ wallet: client.wallet.address.toLowerCase(), free_tier_remaining: 100, free_tier_total: 100, free_tier_used: 0 });
    });

    test("x-free-tier-remaining drops by one per paid call, and not for free calls", async () => {
      const client = new Client(service);
      const first = await client.get("/v1/memories");
      expect(remaining(first)).toBe(100);

      const store = await client.post("/v1/store", { content: "The user prefers dark mode in every code editor." });
      expect(store.status).toBe(201);
      expect(remaining(store)).toBe(99);
      const id = store.body.id;

      const freeCalls: [string, string, unknown?][] = [
        ["GET", "/v1/memories"],
        ["GET", `/v1/memories/${id}`],
        ["GET", `/v1/memories/${id}/history`],
        ["POST", "/v1/search", { query: "dark mode" }],
        ["GET", "/v1/memories/core"],
        ["POST", "/v1/memories/core", { memory_id: id }],
        ["DELETE", `/v1/memories/core/${id}`],
        ["GET", `/v1/memories/${id}/relations`],
        ["GET", "/v1/stats"],
        ["GET", "/v1/namespaces"],
        ["GET", "/v1/export"],
        ["GET", "/v1/free-tier/status"],
        ["DELETE", "/v1/memories", { ids: [MISSING_ID] }],
        ["GET", "/v1/suggested"],
        ["GET", `/v1/graph?memory_id=${id}`],
        ["POST", "/v1/extract", { text: "I prefer tabs over spaces." }],
      ];
      for (const [method, path, body] of freeCalls) {
        const res = await client.request(method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 200]);
        expect([method, path, remaining(res)]).toEqual([method, path, 99]);
      }

      const recall = await client.post("/v1/recall", { query: "editor theme" });
      expect(recall.status).toBe(200);
      expect(remaining(recall)).toBe(98);
      const batch = await client.post("/v1/store/batch", { memories: [{ content: "Production deploys happen on Tuesdays." }, { content: "Alice leads the payments team." }] });
      expect(batch.status).toBe(201);
      expect(remaining(batch)).toBe(97);
      const patch = await client.patch("/v1/memories/batch", { updates: [{ id, importance: 0.9 }] });
      expect(patch.status).toBe(200);
      expect(remaining(patch)).toBe(96);
      const context = await client.post("/v1/context", { query: "deploys" });
      expect(context.status).toBe(200);
      expect(remaining(context)).toBe(95);

      const ingest = await client.post("/v1/ingest", { text: "We decided to run load tests with k6 every sprint." });
      expect(ingest.status).toBe(201);
      expect(remaining(ingest)).toBe(94);

      const status = await client.get("/v1/free-tier/status");
      expect(status.body).toMatchObject({ free_tier_remaining: 94, free_tier_used: 6, free_tier_total: 100 });
    });

    test("a paid call that fails validation does not consume a call", async () => {
      const client = new Client(service);
      await storeOne(client, { content: "Logs are shipped to Datadog with fifteen days of retention." });
      const failing: [string, string, unknown][] = [
        ["POST", "/v1/store", { content: "x", importance: 2 }],
        ["POST", "/v1/store", { content: "Temporary access for auditors.", expires_at: isoFromNow(service, -HOUR) }],
        ["POST", "/v1/store", { content: "Metadata too deep.", metadata: { a: { b: { c: { d: 1 } } } } }],
        ["POST", "/v1/store/batch", { memories: [] }],
        ["POST", "/v1/store/batch", { memories: [{ content: "ok" }, { content: "Expired already.", expires_at: "2001-01-01T00:00:00Z" }] }],
        ["POST", "/v1/recall", { query: "" }],
        ["POST", "/v1/recall", { query: "logs", limit: 0 }],
        ["PATCH", "/v1/memories/batch", { updates: [] }],
        ["POST", "/v1/context", { max_tokens: 50 }],
        ["POST", "/v1/ingest", {}],
        ["POST", "/v1/ingest", { text: "x".repeat(10), messages: [{ role: "user", content: "hi" }] }],
      ];
      for (const [method, path, body] of failing) {
        const res = await client.request(method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 422]);
        expect([method, path, remaining(res)]).toEqual([method, path, 99]);
      }
      expect((await client.get("/v1/free-tier/status")).body).toMatchObject({ free_tier_remaining: 99, free_tier_used: 1 });
      expect((await client.get("/v1/memories")).body.total).toBe(1);
    });

    describe("with FREE_TIER_CALLS=3", () => {
      let small: TestService;
      beforeAll(async () => {
        small = await startService(engine, { FREE_TIER_CALLS: "3" });
      });
      afterAll(() => small.stop());

      test("the 4th paid call answers 402 (PAYMENTS=off: nested PAYMENT_REQUIRED body, x402 header with nothing to pay); free endpoints still answer 200", async () => {
        const info = await raw(small, "GET", "/v1/free-tier/info");
        expect(info.body.free_tier).toMatchObject({ enabled: true, calls_per_wallet: 3 });
        const client = new Client(small);
        const id = await storeOne(client, { content: "Password hashing uses argon2id." });
        const recall = await client.post("/v1/recall", { query: "password hashing" });
        expect(remaining(recall)).toBe(1);
        const batch = await client.post("/v1/store/batch", { memories: [{ content: "Backups are copied to another region hourly." }] });
        expect(batch.status).toBe(201);
        expect(remaining(batch)).toBe(0);

        const paid: [string, string, unknown][] = [
          ["POST", "/v1/store", { content: "Invoices are rendered with headless Chromium." }],
          ["POST", "/v1/store/batch", { memories: [{ content: "Invoices are rendered with headless Chromium." }] }],
          ["POST", "/v1/recall", { query: "argon2id" }],
          ["PATCH", "/v1/memories/batch", { updates: [{ id, importance: 0.9 }] }],
          ["POST", "/v1/context", {}],
          ["POST", "/v1/ingest", { text: "We decided to ship the beta in June." }],
        ];
        for (const [method, path, body] of paid) {
          const res = await client.request(method, path, body);
          expect([method, path, res.status]).toEqual([method, path, 402]);
          expect(res.body.error).toMatchObject({ code: "PAYMENT_REQUIRED", details: { reason: "payments_disabled", free_tier_total: 3 } });
          expect(res.body.error.message.length).toBeGreaterThan(0);
          expect(res.headers.get("payment-required")).toBeTruthy();
        }
        // nothing was stored or changed by the refused calls
        expect((await client.get("/v1/memories")).body.total).toBe(2);
        expect((await client.get(`/v1/memories/${id}`)).body.importance).toBe(0.5);

        const free: [string, string, unknown?][] = [
          ["GET", "/v1/memories"],
          ["GET", `/v1/memories/${id}`],
          ["POST", "/v1/search", { query: "argon2id" }],
          ["GET", "/v1/stats"],
          ["GET", "/v1/export"],
          ["POST", "/v1/memories/core", { memory_id: id }],
          ["GET", "/v1/free-tier/status"],
        ];
        for (const [method, path, body] of free) {
          const res = await client.request(method, path, body);
          expect([method, path, res.status]).toEqual([method, path, 200]);
        }
        expect((await client.post("/v1/search", { query: "argon2id" })).body.total).toBe(1);
        expect((await client.get("/v1/free-tier/status")).body).toMatchObject({ free_tier_remaining: 0, free_tier_used: 3, free_tier_total: 3 });

        // concurrent paid calls never take more than the allowance
        const racer = new Client(small);
        const contents = ["Racer note one about Kafka topics.", "Racer note two about Redis eviction.", "Racer note three about DNS TTLs.", "Racer note four about TLS renewals.", "Racer note five about cron schedules."];
        const raced = await Promise.all(contents.map((content) => racer.post("/v1/store", { content, namespace: content.split(" ")[2] })));
        expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 201, 402, 402]);
        expect((await racer.get("/v1/memories")).body.total).toBe(3);
        expect((await racer.get("/v1/free-tier/status")).body).toMatchObject({ free_tier_remaining: 0, free_tier_used: 3 });

        // another wallet has its own allowance
        const other = new Client(small);
        const res = await other.post("/v1/store", { content: "Another wallet's first memory." });
        expect(res.status).toBe(201);
        expect(remaining(res)).toBe(2);
      });
    });
  });

  describe("stats and namespaces", () => {
    test("an empty wallet", async () => {
      const client = new Client(service);
      const stats = await client.get("/v1/stats");
      expect(stats.status).toBe(200);
      expect(stats.body).toEqual({
        total_memories: 0,
        pinned_count: 0,
        never_accessed: 0,
        total_accesses: 0,
        avg_importance: 0,
        oldest_memory: null,
        newest_memory: null,
        by_type: [],
        by_namespace: [],
      });
      expect((await client.get("/v1/namespaces")).body).toEqual({ namespaces: [], total: 0 });
    });

    test("fields and values, before and after a recall; deleted memories do not count", async () => {
      const client = new Client(service);
      const created: string[] = [];
      const items = [
        { content: "Carol prefers written async updates over video calls.", importance: 0.2, memory_type: "preference", namespace: "people" },
        { content: "Bob prefers tea to coffee during afternoon meetings.", importance: 0.4, memory_type: "preference", namespace: "people" },
        { content: "We chose PostgreSQL over MongoDB for the ledger.", importance: 0.6, memory_type: "decision", namespace: "architecture", pinned: true },
        { content: "The office wifi password rotates monthly.", importance: 0.8 },
      ];
      for (const item of items) {
        const id = await storeOne(client, item);
        created.push((await client.get(`/v1/memories/${id}`)).body.created_at);
        service.advance(60_000);
      }
      const gone = await storeOne(client, { content: "Temporary note: the build server is down.", importance: 1, memory_type: "observation", namespace: "scratch" });
      await client.del(`/v1/memories/${gone}`);

      const stats = (await client.get("/v1/stats")).body;
      expect(stats.total_memories).toBe(4);
      expect(stats.pinned_count).toBe(1);
      expect(stats.never_accessed).toBe(4);
      expect(stats.total_accesses).toBe(0);
      expect(stats.avg_importance).toBeCloseTo(0.5, 10);
      expect(stats.oldest_memory).toBe(created[0]);
      expect(stats.newest_memory).toBe(created[3]);
      expect(byKey(stats.by_type, "memory_type")).toEqual([
        { memory_type: "decision", count: 1 },
        { memory_type: "general", count: 1 },
        { memory_type: "preference", count: 2 },
      ]);
      expect(byKey(stats.by_namespace, "namespace")).toEqual([
        { namespace: "architecture", count: 1 },
        { namespace: "default", count: 1 },
        { namespace: "people", count: 2 },
      ]);
      const namespaces = (await client.get("/v1/namespaces")).body.namespaces;
      expect(byKey(namespaces, "namespace").map(({ namespace, count }) => ({ namespace, count }))).toEqual(byKey(stats.by_namespace, "namespace"));

      const recall = await client.post("/v1/recall", { query: "who prefers what", limit: 2 });
      expect(recall.body.memories).toHaveLength(2);
      const recalledIds = ids(recall);
      const after = (await client.get("/v1/stats")).body;
      expect(after.total_accesses).toBe(2);
      expect(after.never_accessed).toBe(2);
      await client.post("/v1/recall", { query: "who prefers what", limit: 1 });
      const third = (await client.get("/v1/stats")).body;
      expect(third.total_accesses).toBe(3);
      expect(third.never_accessed).toBe(2);
      for (const id of recalledIds) expect((await client.get(`/v1/memories/${id}`)).body.access_count).toBeGreaterThanOrEqual(1);
    });
  });

  describe("export", () => {
    let client: Client;
    let stored: Record<"deploy" | "tricky" | "pref" | "gone", string>;
    let times: string[];
    const tricky = 'Carol said "ship it", then left;\nfollow up on Monday, 9:30.';
    beforeAll(async () => {
      client = new Client(service);
      const items = [
        { key: "deploy" as const, content: "Production deploys happen on Tuesdays after standup.", memory_type: "decision", namespace: "ops", metadata: { tags: ["deploy", "process"] } },
        { key: "tricky" as const, content: tricky, memory_type: "observation", namespace: "people", metadata: { tags: ["carol"] }, session_id: "s-1", agent_id: "scribe" },
        { key: "pref" as const, content: "The user prefers tabs over spaces in Go code.", memory_type: "preference", namespace: "ops", metadata: { tags: ["style"] }, pinned: true },
        { key: "gone" as const, content: "The old staging host was staging1.internal.", memory_type: "general", namespace: "ops" },
      ];
      stored = {} as typeof stored;
      times = [];
      for (const { key, ...item } of items) {
        stored[key] = await storeOne(client, item);
        times.push((await client.get(`/v1/memories/${stored[key]}`)).body.created_at);
        service.advance(60_000);
      }
      await client.del(`/v1/memories/${stored.gone}`);
    });

    test("json (default): format, count and the memory fields, newest first, deleted excluded", async () => {
      const res = await client.get("/v1/export");
      expect(res.status).toBe(200);
      expect(res.body.format).toBe("json");
      expect(res.body.count).toBe(3);
      expect(ids(res)).toEqual([stored.pref, stored.tricky, stored.deploy]);
      const deploy = res.body.memories.find((m: { id: string }) => m.id === stored.deploy);
      expect(deploy).toMatchObject({
        id: stored.deploy,
        content: "Production deploys happen on Tuesdays after standup.",
        importance: 0.5,
        memory_type: "decision",
        namespace: "ops",
        tags: ["deploy", "process"],
        created_at: times[0],
        updated_at: times[0],
      });
      expect((await client.get("/v1/export?format=json")).body).toEqual(res.body);
    });

    test("filters: namespace, memory_type, tags, before/after, include_deleted", async () => {
      expect(ids(await client.get("/v1/export?namespace=ops"))).toEqual([stored.pref, stored.deploy]);
      expect(ids(await client.get("/v1/export?memory_type=observation"))).toEqual([stored.tricky]);
      expect(ids(await client.get("/v1/export?tags=carol,style"))).toEqual([stored.pref, stored.tricky]);
      expect(ids(await client.get("/v1/export?tags=deploy"))).toEqual([stored.deploy]);
      expect(ids(await client.get("/v1/export?session_id=s-1"))).toEqual([stored.tricky]);
      expect(ids(await client.get("/v1/export?agent_id=scribe"))).toEqual([stored.tricky]);
      const mid = (i: number) => encodeURIComponent(new Date(Date.parse(times[i]!) + 30_000).toISOString());
      expect(ids(await client.get(`/v1/export?after=${mid(0)}`))).toEqual([stored.pref, stored.tricky]);
      expect(ids(await client.get(`/v1/export?before=${mid(1)}`))).toEqual([stored.tricky, stored.deploy]);
      expect(ids(await client.get(`/v1/export?after=${mid(0)}&before=${mid(1)}`))).toEqual([stored.tricky]);
      const withDeleted = await client.get("/v1/export?include_deleted=true");
      expect(withDeleted.body.count).toBe(4);
      expect(ids(withDeleted)).toEqual([stored.gone, stored.pref, stored.tricky, stored.deploy]);
      const gone = withDeleted.body.memories[0];
      expect(Date.parse(gone.deleted_at)).toBeGreaterThan(Date.parse(times[3]!) - 1);
      expect(ids(await client.get("/v1/export?include_deleted=false"))).toHaveLength(3);
      expect(ids(await client.get("/v1/export?namespace=ops&include_deleted=true"))).toEqual([stored.gone, stored.pref, stored.deploy]);
    });

    test("bad query values answer 422 naming the parameter", async () => {
      expectFieldError(await client.get("/v1/export?format=xml"), "format");
      expectFieldError(await client.get("/v1/export?memory_type=fact"), "memory_type");
      expectFieldError(await client.get("/v1/export?before=yesterday"), "before");
      expectFieldError(await client.get("/v1/export?after=2024-13-45"), "after");
    });

    test("csv: header row, one row per memory, RFC 4180 quoting of commas, quotes and newlines", async () => {
      const res = await client.get("/v1/export?format=csv");
      expect(res.status).toBe(200);
      expect(res.body.format).toBe("csv");
      expect(res.body.count).toBe(3);
      const csv = res.body.memories as string;
      expect(typeof csv).toBe("string");
      expect(csv.split("\r\n")[0]).toBe("id,content,importance,memory_type,namespace,tags,created_at,updated_at,deleted_at,pinned,session_id,agent_id");
      expect(csv).toContain('"Carol said ""ship it"", then left;\nfollow up on Monday, 9:30."');
      const rows = parseCsv(csv);
      expect(rows).toHaveLength(4);
      const [header, ...data] = rows;
      for (const row of data) expect(row).toHaveLength(header!.length);
      const col = (name: string) => header!.indexOf(name);
      expect(data.map((r) => r[col("id")])).toEqual([stored.pref, stored.tricky, stored.deploy]);
      const trickyRow = data[1]!;
      expect(trickyRow[col("content")]).toBe(tricky);
      expect(trickyRow[col("namespace")]).toBe("people");
      expect(trickyRow[col("memory_type")]).toBe("observation");
      expect(trickyRow[col("session_id")]).toBe("s-1");
      expect(trickyRow[col("tags")]).toBe("carol");
      expect(data[2]![col("tags")]).toBe("deploy|process");
      expect(data[0]![col("pinned")]).toBe("true");
      expect(data[2]![col("deleted_at")]).toBe("");
      const filtered = parseCsv((await client.get("/v1/export?format=csv&namespace=people")).body.memories);
      expect(filtered).toHaveLength(2);
    });

    test("markdown: a title with the count and one section per memory", async () => {
      const res = await client.get("/v1/export?format=markdown");
      expect(res.status).toBe(200);
      expect(res.body.format).toBe("markdown");
      expect(res.body.count).toBe(3);
      const md = res.body.memories as string;
      expect(md.split("\n")[0]).toBe("# Memories (3)");
      const sections = md.split(/^## /m).slice(1);
      expect(sections).toHaveLength(3);
      expect(sections[0]).toStartWith("preference: The user prefers tabs over spaces in Go code.");
      expect(sections[1]).toStartWith('observation: Carol said "ship it", then left;');
      expect(sections[1]).toContain('> Carol said "ship it", then left;\n> follow up on Monday, 9:30.');
      expect(sections[1]).toContain(stored.tricky!);
      expect(sections[2]).toContain("> Production deploys happen on Tuesdays after standup.");
      expect(sections[2]).toContain("deploy, process");
      const empty = await client.get("/v1/export?format=markdown&namespace=nowhere");
      expect(empty.body.count).toBe(0);
      expect(empty.body.memories.split("\n")[0]).toBe("# Memories (0)");
    });

    test("a wallet of several pages exports whole in every format, in list order, with the free-call header", async () => {
      const large = new Client(service);
      const stored: string[] = [];
      for (let batch = 0; batch < 6; batch++) {
        const items = Array.from({ length: 100 }, (_, i) => ({ content: `Export page check ${batch * 100 + i}: note "q${i}", line\nnext.`, namespace: "bulk" }));
        stored.push(...(await storeMany(large, items)));
        service.advance(1000);
      }
      const listed: string[] = [];
      for (let offset = 0; offset < 600; offset += 100) listed.push(...ids(await large.get(`/v1/memories?limit=100&offset=${offset}`)));
      expect(new Set(listed).size).toBe(600);

      const json = await large.get("/v1/export");
      expect(json.status).toBe(200);
      expect(json.headers.get("content-type")).toStartWith("application/json");
      expect(json.headers.get("x-free-tier-remaining")).toMatch(/^\d+$/);
      expect(json.body.count).toBe(600);
      expect(ids(json)).toEqual(listed);

      const jsonl = (await large.get("/v1/export?format=jsonl")).body;
      expect(jsonl.count).toBe(600);
      expect(jsonl.memories).toEqual(json.body.memories);
      expect(jsonl.jsonl.split("\n").map((line: string) => JSON.parse(line))).toEqual(json.body.memories);

      const csv = parseCsv((await large.get("/v1/export?format=csv")).body.memories);
      expect(csv).toHaveLength(601);
      expect(csv.slice(1).map((row) => row[0])).toEqual(listed);
      expect(csv[1]![1]).toBe(json.body.memories[0].content);

      const md = (await large.get("/v1/export?format=markdown")).body;
      expect(md.count).toBe(600);
      expect(md.memories.split("\n")[0]).toBe("# Memories (600)");
      expect(md.memories.split(/^## /m).slice(1).map((section: string) => /- id: `([^`]+)`/.exec(section)![1])).toEqual(listed);
    });
  });
});
