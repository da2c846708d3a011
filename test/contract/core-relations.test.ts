import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectFieldError, MISSING_ID, storeMany, storeOne, type Reply } from "../helpers/contract";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ids = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);

describeEngines("core memories and relations", (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.stop());

  describe("core memories", () => {
    test("pin → listed as core with its shape; unpin → active again, not deleted", async () => {
      const client = new Client(service);
      const [rule, other] = await storeMany(client, [
        { content: "Never force-push to the main branch; use revert commits instead.", memory_type: "correction", importance: 0.9, metadata: { tags: ["git", "policy"] } },
        { content: "The design review happens on Thursdays at 3 pm.", namespace: "meetings" },
      ]);
      expect((await client.get("/v1/memories/core")).body).toEqual({ memories: [], total: 0 });

      const pin = await client.post("/v1/memories/core", { memory_id: rule });
      expect(pin.status).toBe(200);
      expect(pin.body).toEqual({ pinned: true, id: rule });
      expect((await client.get(`/v1/memories/${rule}`)).body.pinned).toBe(true);

      const list = await client.get("/v1/memories/core");
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      expect(list.body.memories).toHaveLength(1);
      const core = list.body.memories[0];
      expect(core).toMatchObject({
        id: rule,
        content: "Never force-push to the main branch; use revert commits instead.",
        importance: 0.9,
        pinned: true,
        memory_type: "correction",
        tags: ["git", "policy"],
      });
      expect(Date.parse(core.created_at)).toBeGreaterThan(0);

      const unpin = await client.del(`/v1/memories/core/${rule}`);
      expect(unpin.status).toBe(200);
      expect(unpin.body).toEqual({ unpinned: true, id: rule });
      expect((await client.get("/v1/memories/core")).body).toEqual({ memories: [], total: 0 });
      const after = await client.get(`/v1/memories/${rule}`);
      expect(after.status).toBe(200);
      expect(after.body.pinned).toBe(false);
      expect((await client.get("/v1/memories")).body.total).toBe(2);
      expect((await client.get(`/v1/memories/${other}`)).body.pinned).toBe(false);
    });

    test("list: total, namespace filter, limit/offset and limit bounds", async () => {
      const client = new Client(service);
      const stored = await storeMany(client, [
        { content: "Always run database migrations before deploying the API.", namespace: "ops", pinned: true },
        { content: "On-call engineers must acknowledge pages within five minutes.", namespace: "ops", pinned: true },
        { content: "Carol prefers written async updates over video calls.", namespace: "people", pinned: true },
        { content: "The cafeteria closes at 2 pm on Fridays.", namespace: "people" },
      ]);
      const all = await client.get("/v1/memories/core");
      expect(all.body.total).toBe(3);
      expect(ids(all).sort()).toEqual(stored.slice(0, 3).sort());
      const ops = await client.get("/v1/memories/core?namespace=ops");
      expect(ops.body.total).toBe(2);
      expect(ids(ops).sort()).toEqual(stored.slice(0, 2).sort());
      const people = await client.get("/v1/memories/core?namespace=people");
      expect(ids(people)).toEqual([stored[2]]);
      expect((await client.get("/v1/memories/core?namespace=nowhere")).body).toEqual({ memories: [], total: 0 });

      const first = await client.get("/v1/memories/core?limit=1");
      expect(first.body.total).toBe(3);
      expect(first.body.memories).toHaveLength(1);
      const rest = await client.get("/v1/memories/core?limit=100&offset=1");
      expect(rest.body.memories).toHaveLength(2);
      expect([...ids(first), ...ids(rest)].sort()).toEqual(stored.slice(0, 3).sort());
      for (const bad of ["limit=0", "limit=101", "limit=x"]) expectFieldError(await client.get(`/v1/memories/core?${bad}`), "limit");
    });

    test("pin: 404 for unknown, deleted or another wallet's memory; 422 for a bad or missing uuid", async () => {
      const client = new Client(service);
      const stranger = new Client(service);
      const foreign = await storeOne(stranger, { content: "Stranger's note: rotate the API keys every 90 days." });
      const gone = await storeOne(client, { content: "The old VPN endpoint was vpn1.example.internal." });
      await client.del(`/v1/memories/${gone}`);
      for (const id of [MISSING_ID, gone, foreign]) {
        const res = await client.post("/v1/memories/core", { memory_id: id });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: "NOT_FOUND", details: { reason: "not_found" } });
      }
      expectFieldError(await client.post("/v1/memories/core", { memory_id: "abc" }), "memory_id");
      expectFieldError(await client.post("/v1/memories/core", {}), "memory_id");
      expect((await stranger.get(`/v1/memories/${foreign}`)).body.pinned).toBe(false);
    });

    test("unpin: 404 when not pinned or unknown, 422 for a bad uuid", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "Feature flags are managed with LaunchDarkly." });
      const notPinned = await client.del(`/v1/memories/core/${id}`);
      expect(notPinned.status).toBe(404);
      expect(notPinned.body.error).toMatchObject({ code: "NOT_FOUND", details: { reason: "not_found" } });
      expect((await client.get(`/v1/memories/${id}`)).status).toBe(200);
      await client.post("/v1/memories/core", { memory_id: id });
      expect((await client.del(`/v1/memories/core/${id}`)).status).toBe(200);
      expect((await client.del(`/v1/memories/core/${id}`)).status).toBe(404);
      expect((await client.del(`/v1/memories/core/${MISSING_ID}`)).status).toBe(404);
      expectFieldError(await client.del("/v1/memories/core/not-a-uuid"), "id");
    });

    test("an immutable memory can be pinned and unpinned (ranking, not content)", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "The public REST API is versioned in the URL path.", immutable: true });
      expect((await client.post("/v1/memories/core", { memory_id: id })).status).toBe(200);
      expect((await client.get(`/v1/memories/${id}`)).body).toMatchObject({ pinned: true, immutable: true });
      expect((await client.del(`/v1/memories/core/${id}`)).status).toBe(200);
      expect((await client.get(`/v1/memories/${id}`)).body).toMatchObject({ pinned: false, immutable: true });
    });

    test("a deleted pinned memory leaves the core list", async () => {
      const client = new Client(service);
      const id = await storeOne(client, { content: "Quarterly planning happens in the first week of each quarter.", pinned: true });
      expect((await client.get("/v1/memories/core")).body.total).toBe(1);
      await client.del(`/v1/memories/${id}`);
      expect((await client.get("/v1/memories/core")).body).toEqual({ memories: [], total: 0 });
    });
  });

  describe("relations", () => {
    test("create answers 201 with the relation; both ends list it with their direction", async () => {
      const client = new Client(service);
      const [oldRule, newRule] = await storeMany(client, [
        { content: "Deploys happen on Fridays after lunch.", memory_type: "decision" },
        { content: "Deploys moved to Tuesdays because Friday incidents ruined weekends.", memory_type: "correction" },
      ]);
      const res = await client.post(`/v1/memories/${newRule}/relations`, { target_id: oldRule, relation_type: "supersedes", metadata: { reason: "retro 2024-05" } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(["created", "created_at", "id", "metadata", "relation_type", "source_id", "target_id"]);
      expect(res.body).toMatchObject({ source_id: newRule, target_id: oldRule, relation_type: "supersedes", metadata: { reason: "retro 2024-05" } });
      expect(res.body.id).toMatch(UUID);
      expect(Math.abs(Date.parse(res.body.created_at) - service.now())).toBeLessThan(5_000);

      const fromSource = await client.get(`/v1/memories/${newRule}/relations`);
      expect(fromSource.status).toBe(200);
      const { created: _, ...relation } = res.body;
      const summary = (id: string, content: string, memory_type: string) => ({ id, content, importance: 0.5, memory_type, namespace: "default" });
      const [oldContent, newContent] = [(await client.get(`/v1/memories/${oldRule}`)).body, (await client.get(`/v1/memories/${newRule}`)).body];
      expect(fromSource.body.relations).toEqual([{ ...relation, direction: "outgoing", memory: summary(oldRule, oldContent.content, oldContent.memory_type) }]);
      const fromTarget = await client.get(`/v1/memories/${oldRule}/relations`);
      expect(fromTarget.body.relations).toEqual([{ ...relation, direction: "incoming", memory: summary(newRule, newContent.content, newContent.memory_type) }]);
    });

    test("every relation type is accepted; metadata defaults to {}; a memory lists incoming and outgoing together", async () => {
      const client = new Client(service);
      const [hub, ...others] = await storeMany(client, [
        { content: "The payments service uses idempotency keys on every POST." },
        { content: "Stripe retries webhooks for up to three days." },
        { content: "A duplicate charge happened in March because a retry lacked a key." },
        { content: "Idempotency keys are stored in Redis for 24 hours." },
        { content: "The old checkout did not deduplicate retries at all." },
        { content: "Finance confirmed no duplicate charges since April." },
      ]);
      const types = ["related_to", "derived_from", "contradicts", "supersedes", "supports"];
      const created: Record<string, unknown>[] = [];
      for (const [i, type] of types.entries()) {
        const [source, target] = i % 2 === 0 ? [hub!, others[i]!] : [others[i]!, hub!];
        const res = await client.post(`/v1/memories/${source}/relations`, { target_id: target, relation_type: type });
        expect(res.status).toBe(201);
        expect(res.body.relation_type).toBe(type);
        expect(res.body.metadata).toEqual({});
        created.push(res.body);
      }
      const list = (await client.get(`/v1/memories/${hub}/relations`)).body.relations as { id: string; direction: string; relation_type: string }[];
      expect(list).toHaveLength(5);
      const byType = Object.fromEntries(list.map((r) => [r.relation_type, r.direction]));
      expect(byType).toEqual({ related_to: "outgoing", derived_from: "incoming", contradicts: "outgoing", supersedes: "incoming", supports: "outgoing" });
      expect(list.map((r) => r.id).sort()).toEqual(created.map((r) => r.id as string).sort());
      const leaf = (await client.get(`/v1/memories/${others[1]}/relations`)).body.relations;
      expect(leaf).toHaveLength(1);
      expect(leaf[0]).toMatchObject({ relation_type: "derived_from", direction: "outgoing", source_id: others[1], target_id: hub });
    });

    test("delete: {deleted: true}, then gone from both ends; deleting again is 404", async () => {
      const client = new Client(service);
      const [a, b, c] = await storeMany(client, [
        { content: "Logs are shipped to Datadog with fifteen days of retention." },
        { content: "Audit logs must be kept for seven years by regulation." },
        { content: "Security logs are forwarded to the SIEM within a minute." },
      ]);
      const ab = (await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "contradicts" })).body;
      const ac = (await client.post(`/v1/memories/${a}/relations`, { target_id: c, relation_type: "related_to" })).body;
      const res = await client.del(`/v1/memories/${a}/relations/${ab.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true, id: ab.id });
      expect((await client.get(`/v1/memories/${a}/relations`)).body.relations.map((r: { id: string }) => r.id)).toEqual([ac.id]);
      expect((await client.get(`/v1/memories/${b}/relations`)).body.relations).toEqual([]);
      expect((await client.del(`/v1/memories/${a}/relations/${ab.id}`)).status).toBe(404);
      // from the target's end too
      expect((await client.del(`/v1/memories/${c}/relations/${ac.id}`)).status).toBe(200);
      expect((await client.get(`/v1/memories/${a}/relations`)).body.relations).toEqual([]);
      // the memories themselves are untouched
      expect((await client.get("/v1/memories")).body.total).toBe(3);
    });

    test("404 for an unknown source, target, memory or relation; a relation id under an unrelated memory is 404", async () => {
      const client = new Client(service);
      const [a, b, c] = await storeMany(client, [
        { content: "The mobile app targets iOS 16 as its minimum version." },
        { content: "Android builds target API level 26 and above." },
        { content: "Tablet layouts are not supported yet." },
      ]);
      const rel = (await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "related_to" })).body;
      expect((await client.post(`/v1/memories/${MISSING_ID}/relations`, { target_id: b, relation_type: "related_to" })).status).toBe(404);
      expect((await client.post(`/v1/memories/${a}/relations`, { target_id: MISSING_ID, relation_type: "related_to" })).status).toBe(404);
      expect((await client.get(`/v1/memories/${MISSING_ID}/relations`)).status).toBe(404);
      expect((await client.del(`/v1/memories/${a}/relations/${MISSING_ID}`)).status).toBe(404);
      expect((await client.del(`/v1/memories/${MISSING_ID}/relations/${rel.id}`)).status).toBe(404);
      expect((await client.del(`/v1/memories/${c}/relations/${rel.id}`)).status).toBe(404);
      expect((await client.get(`/v1/memories/${a}/relations`)).body.relations).toHaveLength(1);
    });

    test("422 for a bad relation_type, missing fields, bad uuids or a self-relation; 409 for the same typed relation twice", async () => {
      const client = new Client(service);
      const [a, b] = await storeMany(client, [
        { content: "GraphQL queries deeper than seven levels are rejected." },
        { content: "The REST API is versioned in the URL path, currently v3." },
      ]);
      expectFieldError(await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "causes" }), "relation_type");
      expectFieldError(await client.post(`/v1/memories/${a}/relations`, { target_id: b }), "relation_type");
      expectFieldError(await client.post(`/v1/memories/${a}/relations`, { relation_type: "supports" }), "target_id");
      expectFieldError(await client.post(`/v1/memories/${a}/relations`, { target_id: "b", relation_type: "supports" }), "target_id");
      expectFieldError(await client.post("/v1/memories/nope/relations", { target_id: b, relation_type: "supports" }), "id");
      expectFieldError(await client.get("/v1/memories/nope/relations"), "id");
      expectFieldError(await client.del(`/v1/memories/${a}/relations/nope`), "relationId");
      expectFieldError(await client.post(`/v1/memories/${a}/relations`, { target_id: a, relation_type: "supports" }), "target_id");
      for (const metadata of ["source: retro", [1, 2], 5]) {
        expectFieldError(await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "supports", metadata }), "metadata");
      }
      // metadata.tags follows a memory's rule: at most 10 strings of at most 64 characters
      const elevenTags = Array.from({ length: 11 }, (_, i) => `t${i}`);
      for (const tags of [elevenTags, [1, {}], "abc", ["a".repeat(65)], [""]]) {
        expectFieldError(await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "supports", metadata: { tags } }), "metadata/tags");
      }
      expect((await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "supports" })).status).toBe(201);
      const twice = await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "supports" });
      expect(twice.status).toBe(409);
      expect(twice.body.error).toMatchObject({ code: "CONFLICT", details: { reason: "relation_exists" } });
      expect((await client.post(`/v1/memories/${a}/relations`, { target_id: b, relation_type: "related_to" })).status).toBe(201);
      expect((await client.get(`/v1/memories/${a}/relations`)).body.relations).toHaveLength(2);
    });

    test("a relation to a deleted memory disappears from lists; a deleted memory cannot be related", async () => {
      const client = new Client(service);
      const [keep, drop, third] = await storeMany(client, [
        { content: "Sentry alerts for checkout page the on-call engineer." },
        { content: "PagerDuty escalates to the manager after fifteen minutes." },
        { content: "Alert fatigue is reviewed in the monthly ops meeting." },
      ]);
      await client.post(`/v1/memories/${keep}/relations`, { target_id: drop, relation_type: "related_to" });
      const kept = (await client.post(`/v1/memories/${third}/relations`, { target_id: keep, relation_type: "supports" })).body;
      expect((await client.get(`/v1/memories/${keep}/relations`)).body.relations).toHaveLength(2);
      expect((await client.del(`/v1/memories/${drop}`)).status).toBe(200);
      const after = (await client.get(`/v1/memories/${keep}/relations`)).body.relations;
      const { created: _, ...relation } = kept;
      expect(after).toMatchObject([{ ...relation, direction: "incoming", memory: { id: third } }]);
      expect((await client.get(`/v1/memories/${drop}/relations`)).status).toBe(404);
      expect((await client.post(`/v1/memories/${keep}/relations`, { target_id: drop, relation_type: "supports" })).status).toBe(404);
      expect((await client.post(`/v1/memories/${drop}/relations`, { target_id: keep, relation_type: "supports" })).status).toBe(404);
    });
  });
});
