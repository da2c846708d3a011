import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { DAY, expectFieldError, FACTS, storeMany, storeOne, type Reply } from "../helpers/contract";

const ids = (res: Reply) => (res.body.memories as { id: string }[]).map((m) => m.id);
const sorted = (list: string[]) => [...list].sort();
/** The words of a text, compared without case or accents. */
const wordsOf = (text: string) => new Set(text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

const SIGNAL_FIELDS = ["base_importance", "context_importance", "effective_importance", "keyword", "recency", "relation_count", "type_decay", "vector"];
const HALF_LIFE: Record<string, number> = { correction: 180, preference: 180, decision: 90, project: 30, observation: 14, general: 60 };

interface Recalled {
  id: string;
  content: string;
  similarity: number;
  importance: number;
  memory_type: string;
  access_count: number;
  pinned: boolean;
  created_at: string;
  _signals: Record<string, number>;
  relations?: { id: string; direction: string; source_id: string; target_id: string }[];
}

/** The spec's score, written out here (not imported) so the service is checked against the spec. */
function specScore(m: Recalled): number {
  const s = m._signals;
  const [wVector, wKeyword] = s.keyword! > 0.3 ? [0.45, 0.35] : [0.55, 0.25];
  const hybrid = s.vector! * wVector + s.keyword! * wKeyword + s.recency! * 0.2;
  const accessBoost = Math.min(1 + 0.1 * m.access_count, 2);
  return hybrid * s.context_importance! * accessBoost * s.type_decay!;
}

const CORPUS = {
  pgPrimary: { content: "PostgreSQL is the primary database for the billing service.", namespace: "infra", memory_type: "decision", importance: 0.8, metadata: { tags: ["db", "billing"] }, session_id: "s1", agent_id: "a1" },
  pgBackups: { content: "Nightly PostgreSQL backups are encrypted and copied to another region.", namespace: "infra", memory_type: "general", importance: 0.6, metadata: { tags: ["db", "backup"] }, agent_id: "a2" },
  rollback: { content: "Deploy rollback: revert the release tag and redeploy the previous image.", namespace: "ops", memory_type: "correction", importance: 0.9, metadata: { tags: ["deploy"] }, session_id: "s2" },
  announce: { content: "Every deploy must be announced in the releases channel beforehand.", namespace: "ops", memory_type: "decision", importance: 0.5, metadata: { tags: ["deploy", "process"] } },
  cafe: { content: "The team meets at the café on Rue Cler every Friday morning.", namespace: "social", memory_type: "observation", importance: 0.3, metadata: { tags: ["team"] } },
  strict: { content: "Carol prefers TypeScript strict mode with no implicit any.", namespace: "people", memory_type: "preference", importance: 0.7, metadata: { tags: ["style"] }, pinned: true },
  crash: { content: "The mobile app crashes on Android 12 when the camera permission is denied.", namespace: "mobile", memory_type: "project", importance: 0.5, metadata: { tags: ["bug"] } },
} as const;
type Key = keyof typeof CORPUS;

describeEngines("retrieval", (engine) => {
  let service: TestService;
  let client: Client;
  const id = {} as Record<Key, string>;
  const keyOf = (memoryId: string) => (Object.keys(id) as Key[]).find((k) => id[k] === memoryId);

  beforeAll(async () => {
    service = await startService(engine);
    client = new Client(service);
    for (const key of Object.keys(CORPUS) as Key[]) id[key] = await storeOne(client, CORPUS[key]);
  });
  afterAll(() => service.stop());

  describe("POST /v1/search", () => {
    test("finds by keyword, echoes the query, reports total and the documented fields", async () => {
      const res = await client.post("/v1/search", { query: "PostgreSQL" });
      expect(res.status).toBe(200);
      expect(res.body.query).toBe("PostgreSQL");
      expect(res.body.total).toBe(2);
      expect(sorted(ids(res))).toEqual(sorted([id.pgPrimary, id.pgBackups]));
      const hit = res.body.memories.find((m: { id: string }) => m.id === id.pgPrimary);
      expect(hit).toEqual({
        id: id.pgPrimary,
        content: CORPUS.pgPrimary.content,
        importance: 0.8,
        memory_type: "decision",
        namespace: "infra",
        tags: ["db", "billing"],
        created_at: expect.any(String),
      });
      expect(Date.parse(hit.created_at)).toBeGreaterThan(0);
    });

    test("is case- and accent-insensitive and ranks the fuller match first", async () => {
      expect(ids(await client.post("/v1/search", { query: "postgresql" }))).toHaveLength(2);
      expect(ids(await client.post("/v1/search", { query: "CAFE" }))).toEqual([id.cafe]);
      expect(ids(await client.post("/v1/search", { query: "café" }))).toEqual([id.cafe]);
      const ranked = await client.post("/v1/search", { query: "deploy rollback" });
      expect(ranked.body.total).toBe(2);
      expect(ids(ranked)).toEqual([id.rollback, id.announce]);
    });

    test("filters: namespace, memory_type, tags, session_id, agent_id", async () => {
      const q = (extra: Record<string, unknown>) => client.post("/v1/search", { query: "PostgreSQL deploy", ...extra });
      expect(sorted(ids(await q({})))).toEqual(sorted([id.pgPrimary, id.pgBackups, id.rollback, id.announce]));
      expect(sorted(ids(await q({ namespace: "ops" })))).toEqual(sorted([id.rollback, id.announce]));
      expect(ids(await q({ memory_type: "correction" }))).toEqual([id.rollback]);
      expect(sorted(ids(await q({ tags: ["backup", "process"] })))).toEqual(sorted([id.pgBackups, id.announce]));
      expect(ids(await q({ session_id: "s1" }))).toEqual([id.pgPrimary]);
      expect(ids(await q({ agent_id: "a2" }))).toEqual([id.pgBackups]);
      const none = await q({ namespace: "ops", agent_id: "a2" });
      expect(none.body).toMatchObject({ memories: [], total: 0 });
      expectFieldError(await q({ memory_type: "fact" }), "memory_type");
      expectFieldError(await q({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }), "tags");
    });

    test("limit: default 10, 1..100; 0 and 101 → 422; total counts all matches", async () => {
      const query = "PostgreSQL deploy team";
      const limited = await client.post("/v1/search", { query, limit: 1 });
      expect(limited.body.memories).toHaveLength(1);
      expect(limited.body.total).toBe(5);
      const all = await client.post("/v1/search", { query, limit: 100 });
      expect(all.body.total).toBe(5);
      expect(sorted(ids(all))).toEqual(sorted([id.pgPrimary, id.pgBackups, id.rollback, id.announce, id.cafe]));
      expect((await client.post("/v1/search", { query, limit: 3 })).body.memories).toHaveLength(3);
      expect((await client.post("/v1/search", { query })).body.memories).toHaveLength(5);
      expectFieldError(await client.post("/v1/search", { query, limit: 0 }), "limit");
      expectFieldError(await client.post("/v1/search", { query, limit: 101 }), "limit");
    });

    test("limit defaults to 10", async () => {
      const other = new Client(service);
      await storeMany(other, FACTS.slice(0, 12).map((fact, i) => ({ content: `Runbook: ${fact}`, namespace: `runbook-${i}` })));
      const res = await other.post("/v1/search", { query: "runbook" });
      expect(res.body.total).toBe(12);
      expect(res.body.memories).toHaveLength(10);
    });

    test("query: 1000 chars accepted, 1001 and empty → 422", async () => {
      const base = "postgresql ";
      const q1000 = base.repeat(Math.ceil(1000 / base.length)).slice(0, 1000);
      const ok = await client.post("/v1/search", { query: q1000 });
      expect(ok.status).toBe(200);
      expect(ok.body.total).toBe(2);
      expect(ok.body.query).toBe(q1000);
      expectFieldError(await client.post("/v1/search", { query: q1000 + "x" }), "query");
      expectFieldError(await client.post("/v1/search", { query: "" }), "query");
      expectFieldError(await client.post("/v1/search", {}), "query");
    });

    const hostile = ['"', "*", "-foo", "NEAR(a b)", "AND", "OR", "NOT", "(", ")", ":", "^", "{}", "@x", "|", "content:deploy", "deploy*", '"PostgreSQL', "PostgreSQL OR *", "-deploy", "NEAR(PostgreSQL deploy)", "'; DROP TABLE memories; --", "ünïcödé 東京 мост", "🚀", "deploy 🚀🔥", "\\", "%_", "a".repeat(300)];
    test.each(hostile)("hostile query %p never fails and never widens the results", async (query) => {
      const res = await client.post("/v1/search", { query, limit: 100 });
      expect(res.status).toBe(200);
      expect(res.body.query).toBe(query);
      expect(res.body.total).toBe(res.body.memories.length);
      const queryWords = wordsOf(query);
      for (const m of res.body.memories as { id: string; content: string }[]) {
        expect(keyOf(m.id)).toBeDefined();
        expect([...wordsOf(m.content)].some((w) => queryWords.has(w))).toBe(true);
      }
      if (queryWords.size === 0) expect(res.body.memories).toEqual([]);
    });

    test("operators are plain words: exact expectations", async () => {
      const search = async (query: string) => sorted(ids(await client.post("/v1/search", { query, limit: 100 })));
      expect(await search('"PostgreSQL')).toEqual(sorted([id.pgPrimary, id.pgBackups]));
      expect(await search("PostgreSQL OR *")).toEqual(sorted([id.pgPrimary, id.pgBackups]));
      expect(await search("-deploy")).toEqual(sorted([id.rollback, id.announce]));
      expect(await search("deploy*")).toEqual(sorted([id.rollback, id.announce]));
      expect(await search("content:deploy")).toEqual(sorted([id.rollback, id.announce]));
      expect(await search("NEAR(PostgreSQL deploy)")).toEqual(sorted([id.pgPrimary, id.pgBackups, id.rollback, id.announce]));
      expect(await search("deploy 🚀🔥")).toEqual(sorted([id.rollback, id.announce]));
      for (const empty of ['"', "*", "-foo", "NEAR(a b)", "(", ")", ":", "^", "{}", "|", "🚀", "'; DROP TABLE memories; --"]) expect(await search(empty)).toEqual([]);
      expect((await client.get("/v1/memories?limit=100")).body.total).toBe(7);
    });
  });

  describe("POST /v1/recall", () => {
    test("shape: every documented field, eight signals, query_tokens > 0, sorted by similarity", async () => {
      const res = await client.post("/v1/recall", { query: "which database does billing use" });
      expect(res.status).toBe(200);
      expect(Number.isInteger(res.body.query_tokens)).toBe(true);
      expect(res.body.query_tokens).toBeGreaterThan(0);
      const memories = res.body.memories as Recalled[];
      expect(memories).toHaveLength(5); // default limit
      expect(memories[0]!.id).toBe(id.pgPrimary);
      for (const m of memories) {
        for (const field of ["id", "content", "similarity", "metadata", "importance", "namespace", "memory_type", "session_id", "agent_id", "created_at", "access_count", "pinned", "_signals"]) {
          expect(m).toHaveProperty(field);
        }
        expect(Object.keys(m._signals).sort()).toEqual(SIGNAL_FIELDS);
        for (const value of Object.values(m._signals)) expect(typeof value).toBe("number");
        expect(m).not.toHaveProperty("relations");
      }
      const top = memories[0]!;
      expect(top).toMatchObject({ content: CORPUS.pgPrimary.content, namespace: "infra", memory_type: "decision", session_id: "s1", agent_id: "a1", metadata: { tags: ["db", "billing"] }, importance: 0.8, pinned: false });
      const scores = memories.map((m) => m.similarity);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    });

    test("similarity equals the spec's formula over the signals; signals follow the spec's definitions", async () => {
      service.advance(10 * DAY);
      const seen: Recalled[] = [];
      for (const query of ["PostgreSQL database backups", "deploy rollback", "Carol TypeScript strict mode", "team breakfast", "which database does billing use"]) {
        const res = await client.post("/v1/recall", { query, limit: 7 });
        expect(res.status).toBe(200);
        const memories = res.body.memories as Recalled[];
        seen.push(...memories);
        // context_importance lifts the best-matching memory's importance and scales the others by relative relevance
        const match = (m: Recalled) => m._signals.vector! * (m._signals.keyword! > 0.3 ? 0.45 : 0.55) + m._signals.keyword! * (m._signals.keyword! > 0.3 ? 0.35 : 0.25);
        const best = memories.reduce((a, b) => (match(b) > match(a) ? b : a));
        expect(best._signals.context_importance).toBeGreaterThanOrEqual(best.importance);
        for (const m of memories) {
          const lift = m.importance + (1 - m.importance) * 0.5 * Math.max(m._signals.vector!, m._signals.keyword!);
          expect(m._signals.context_importance).toBeCloseTo(lift * Math.pow(match(m) / match(best), 4), 10);
        }
      }
      // both weightings and access boosts above 1 are exercised
      expect(seen.some((m) => m._signals.keyword! > 0.3)).toBe(true);
      expect(seen.some((m) => m._signals.keyword! <= 0.3)).toBe(true);
      expect(seen.some((m) => m.access_count > 0)).toBe(true);
      for (const m of seen) {
        const s = m._signals;
        expect(m.similarity).toBeCloseTo(specScore(m), 10);
        for (const unit of ["vector", "keyword", "recency", "type_decay"]) {
          expect(s[unit]).toBeGreaterThanOrEqual(0);
          expect(s[unit]).toBeLessThanOrEqual(1);
        }
        expect(s.base_importance).toBe(m.importance);
        expect(s.context_importance).toBeGreaterThanOrEqual(0);
        expect(s.context_importance).toBeLessThanOrEqual(1);
        const ageDays = (service.now() - Date.parse(m.created_at)) / DAY;
        expect(ageDays).toBeGreaterThan(9.99);
        expect(s.recency).toBeCloseTo(Math.exp(-ageDays / 30), 5);
        if (m.pinned) expect(s.type_decay).toBe(1);
        else if (s.relation_count === 0) expect(s.type_decay).toBeCloseTo(Math.pow(0.5, ageDays / HALF_LIFE[m.memory_type]!), 5);
      }
      expect(seen.find((m) => m.id === id.strict)?._signals.type_decay).toBe(1);
      const cafe = seen.find((m) => m.id === id.cafe);
      if (cafe) expect(cafe._signals.type_decay).toBeCloseTo(Math.pow(0.5, 10 / 14), 4);
    });

    test("limit: 1..100; 0 and 101 → 422", async () => {
      expect((await client.post("/v1/recall", { query: "deploy", limit: 1 })).body.memories).toHaveLength(1);
      expect((await client.post("/v1/recall", { query: "deploy", limit: 100 })).body.memories).toHaveLength(7);
      expectFieldError(await client.post("/v1/recall", { query: "deploy", limit: 0 }), "limit");
      expectFieldError(await client.post("/v1/recall", { query: "deploy", limit: 101 }), "limit");
      expectFieldError(await client.post("/v1/recall", { query: "deploy", min_similarity: 1.01 }), "min_similarity");
      expectFieldError(await client.post("/v1/recall", { query: "deploy", min_similarity: -0.1 }), "min_similarity");
    });

    test("query: 32768 chars accepted, 32769 and empty → 422", async () => {
      const base = "Which database holds the billing records and how is it backed up? ";
      const long = base.repeat(Math.ceil(32768 / base.length)).slice(0, 32768);
      const ok = await client.post("/v1/recall", { query: long, limit: 2 });
      expect(ok.status).toBe(200);
      expect(ok.body.memories).toHaveLength(2);
      expect(ok.body.query_tokens).toBeGreaterThan(0);
      expectFieldError(await client.post("/v1/recall", { query: long + "?" }), "query");
      expectFieldError(await client.post("/v1/recall", { query: "" }), "query");
      expectFieldError(await client.post("/v1/recall", {}), "query");
    });

    test("filters: namespace, session_id, agent_id, tags (any), after", async () => {
      const recall = async (extra: Record<string, unknown>) => {
        const res = await client.post("/v1/recall", { query: "database deploy team", limit: 100, ...extra });
        expect(res.status).toBe(200);
        return sorted(ids(res));
      };
      expect(await recall({ namespace: "infra" })).toEqual(sorted([id.pgPrimary, id.pgBackups]));
      expect(await recall({ session_id: "s2" })).toEqual([id.rollback]);
      expect(await recall({ agent_id: "a1" })).toEqual([id.pgPrimary]);
      expect(await recall({ filters: { tags: ["backup", "team"] } })).toEqual(sorted([id.pgBackups, id.cafe]));
      expect(await recall({ namespace: "infra", filters: { tags: ["deploy"] } })).toEqual([]);
      expect(await recall({ namespace: "nowhere" })).toEqual([]);
      expectFieldError(await client.post("/v1/recall", { query: "x", filters: { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }), "tags");
      expectFieldError(await client.post("/v1/recall", { query: "x", filters: { after: "last week" } }), "after");
      for (const filters of ["namespace=infra", ["db"], 7]) expectFieldError(await client.post("/v1/recall", { query: "x", filters }), "filters");

      const cutoff = new Date(service.now()).toISOString();
      service.advance(60_000);
      const fresh = await storeOne(client, { content: "Grafana dashboards for the API live in the observability folder.", namespace: "infra" });
      expect(await recall({ filters: { after: cutoff } })).toEqual([fresh]);
      expect(await recall({ namespace: "infra", filters: { after: cutoff } })).toEqual([fresh]);
      expect((await recall({})).length).toBe(8);
      expect((await client.del(`/v1/memories/${fresh}`)).status).toBe(200);
    });

    test("recall increments access_count and accessed_at of the returned memories only", async () => {
      const other = new Client(service);
      const [a, b] = [
        await storeOne(other, { content: "The data warehouse is Snowflake, loaded nightly by Airflow." }),
        await storeOne(other, { content: "Interns get read-only access to production dashboards." }),
      ];
      service.advance(5_000);
      const res = await other.post("/v1/recall", { query: "Snowflake data warehouse Airflow", limit: 1 });
      expect(ids(res)).toEqual([a]);
      expect(res.body.memories[0].access_count).toBe(0);
      const afterA = (await other.get(`/v1/memories/${a}`)).body;
      expect(afterA.access_count).toBe(1);
      expect(Math.abs(Date.parse(afterA.accessed_at) - service.now())).toBeLessThan(2_000);
      expect(Date.parse(afterA.accessed_at)).toBeGreaterThan(Date.parse(afterA.created_at));
      const afterB = (await other.get(`/v1/memories/${b}`)).body;
      expect(afterB.access_count).toBe(0);
      expect(afterB.accessed_at).toBe(afterB.created_at);
      const again = await other.post("/v1/recall", { query: "Snowflake data warehouse Airflow", limit: 1 });
      expect(again.body.memories[0].access_count).toBe(1);
      expect((await other.get(`/v1/memories/${a}`)).body.access_count).toBe(2);
    });

    test("access counts from earlier recalls never lift a memory that matches the query less above one that matches it", async () => {
      const other = new Client(service);
      const generic = await storeOne(other, { content: "Topics the user mentioned in passing today: the deploy, invoices, a dog, the project plan." });
      const facts = [
        ["The deploy pipeline runs on GitHub Actions with a manual approval step.", "deploy pipeline approval step"],
        ["Invoices are generated on the first business day of each month.", "when are invoices generated each month"],
        ["The user's dog is a border collie named Pixel.", "dog breed border collie"],
      ] as const;
      const factIds = [];
      for (const [content] of facts) factIds.push(await storeOne(other, { content }));
      // The generic memory is returned (and counted) by many earlier, loosely related recalls: access_count 20, boost 2.
      for (let i = 0; i < 20; i++) await other.post("/v1/recall", { query: "topics the user mentioned today", limit: 1 });
      expect((await other.get(`/v1/memories/${generic}`)).body.access_count).toBe(20);
      for (const [i, [, query]] of facts.entries()) {
        const res = await other.post("/v1/recall", { query, limit: 4 });
        expect(ids(res)[0]).toBe(factIds[i]!);
      }
    });

    test("min_similarity keeps only results at or above it", async () => {
      const other = new Client(service);
      for (const content of [
        "Kubernetes clusters are upgraded one minor version at a time.",
        "Kubernetes node pools use spot instances for batch jobs.",
        "The design system tokens are exported from Figma to Tailwind.",
        "Translations are synced from Crowdin every Friday.",
      ]) await storeOne(other, { content });
      const query = "Kubernetes cluster upgrades";
      const first = (await other.post("/v1/recall", { query, limit: 100 })).body.memories as Recalled[];
      expect(first).toHaveLength(4);
      for (const m of first) expect(m.access_count).toBe(0);
      // every memory was returned, so each now has access_count 1: the next scores are 1.1× these
      const threshold = (1.1 * (first[1]!.similarity + first[2]!.similarity)) / 2;
      expect(threshold).toBeLessThanOrEqual(1);
      const second = (await other.post("/v1/recall", { query, limit: 100, min_similarity: threshold })).body.memories as Recalled[];
      expect(second.map((m) => m.id)).toEqual(first.slice(0, 2).map((m) => m.id));
      for (const m of second) {
        expect(m.similarity).toBeGreaterThanOrEqual(threshold);
        expect(m.access_count).toBe(1);
      }
      const none = await other.post("/v1/recall", { query, min_similarity: 1 });
      expect(none.body.memories.every((m: Recalled) => m.similarity >= 1)).toBe(true);
    });

    test("a query only of words the model does not know recalls by keyword alone", async () => {
      const other = new Client(service);
      const [known] = await storeMany(other, [{ content: "The zqxvlarn relay restarts every night." }, { content: "Backups are copied to another region." }]);
      const res = await other.post("/v1/recall", { query: "zqxvlarn", limit: 10 });
      expect(res.status).toBe(200);
      const recalled = res.body.memories as Recalled[];
      expect(recalled.map((m) => m.id)).toEqual([known]);
      expect([recalled[0]!._signals.vector, recalled[0]!._signals.keyword]).toEqual([0, 1]);
    });

    test("include_relations adds each result's relations with their direction", async () => {
      const other = new Client(service);
      const old = await storeOne(other, { content: "Feature flags were kept in environment variables.", memory_type: "decision" });
      const current = await storeOne(other, { content: "Feature flags are managed with LaunchDarkly now.", memory_type: "correction" });
      const rel = (await other.post(`/v1/memories/${current}/relations`, { target_id: old, relation_type: "supersedes" })).body;
      const res = await other.post("/v1/recall", { query: "feature flags", include_relations: true, limit: 10 });
      const byId = new Map((res.body.memories as Recalled[]).map((m) => [m.id, m]));
      const { created: _, ...relation } = rel;
      const summary = (id: string, content: string, memory_type: string) => ({ id, content, importance: 0.5, memory_type, namespace: "default" });
      expect(byId.get(current)?.relations).toEqual([{ ...relation, direction: "outgoing", memory: summary(old, "Feature flags were kept in environment variables.", "decision") }]);
      expect(byId.get(old)?.relations).toEqual([{ ...relation, direction: "incoming", memory: summary(current, "Feature flags are managed with LaunchDarkly now.", "correction") }]);
      expect(byId.get(current)?._signals.relation_count).toBe(1);
      const plain = await other.post("/v1/recall", { query: "feature flags", limit: 10 });
      for (const m of plain.body.memories as Recalled[]) expect(m).not.toHaveProperty("relations");
    });

    test("relations among the candidates reorder the results: a related memory decays slower and can overtake the best unrelated one", async () => {
      const other = new Client(service);
      const [a, b] = await storeMany(other, [
        { content: "Spot instances host the staging cluster.", memory_type: "observation" },
        { content: "The staging cluster runs on spot instances to save cost.", memory_type: "observation" },
      ]);
      const fillers = await storeMany(other, Array.from({ length: 10 }, (_, i) => ({ content: `Gardening note ${i}: water the tomatoes at dawn.`, memory_type: "general" })));
      service.advance(60 * DAY); // observations halve every 14 days; 10 relations stretch that to 42
      const query = { query: "staging cluster spot instances", limit: 1 };
      const [first] = (await other.post("/v1/recall", query)).body.memories as Recalled[];
      const second = first!.id === a ? b : a;
      expect([a, b]).toContain(first!.id);
      expect(first!._signals.relation_count).toBe(0);
      for (const target of fillers) expect((await other.post(`/v1/memories/${second}/relations`, { target_id: target, relation_type: "related_to" })).status).toBe(201);
      const [now] = (await other.post("/v1/recall", query)).body.memories as Recalled[];
      expect(now!.id).toBe(second);
      expect(now!._signals.relation_count).toBe(10);
      expect(now!.similarity).toBeCloseTo(specScore(now!), 10);
      const all = (await other.post("/v1/recall", { ...query, limit: 100 })).body.memories as Recalled[];
      expect(all[0]!.id).toBe(second);
      expect(all.find((m) => m.id === first!.id)!._signals.relation_count).toBe(0);
    });
  });
});
