import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { expectUnknownField as expectUnknown, storeOne, uniqueNs } from "../helpers/contract";

/**
 * Query strings on the API are closed as bodies are: a parameter a route does not declare is a 422
 * naming it (`query/<name>`, rule unknown_field), never silently ignored. Every parameter the
 * MemoClaw clients send (their source, per route) is declared and answered.
 */

describeEngines("unknown query parameters", (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.stop());

  test("an undeclared parameter is a 422 naming it on GET, DELETE and body routes, and changes nothing", async () => {
    const client = new Client(service);
    const namespace = uniqueNs("unknown-query");
    const id = await storeOne(client, { content: "The build cache is cleared every Sunday night.", namespace });
    const cases: [string, string, string, string[]][] = [
      ["GET", `/v1/memories?namespce=${namespace}`, "query/namespce", ["namespace"]],
      ["GET", "/v1/memories/search?q=cache&limt=3", "query/limt", ["q", "limit"]],
      ["GET", "/v1/memories/count?tag=ops", "query/tag", ["tags"]],
      ["GET", `/v1/memories/${id}?full=true`, "query/full", []],
      ["GET", `/v1/memories/${id}/history?limit=5`, "query/limit", []],
      ["GET", `/v1/memories/${id}/relations?direction=out`, "query/direction", []],
      ["DELETE", `/v1/memories/${id}?hard=true`, "query/hard", []],
      ["GET", "/v1/stats?namespaces=a", "query/namespaces", ["namespace"]],
      ["GET", "/v1/namespaces?agent=a", "query/agent", ["agent_id"]],
      ["GET", "/v1/tags?session_id=s", "query/session_id", ["namespace", "agent_id"]],
      ["GET", "/v1/export?fromat=csv", "query/fromat", ["format"]],
      ["GET", "/v1/suggested?categories=hot", "query/categories", ["category"]],
      ["GET", "/v1/core-memories?offest=1", "query/offest", ["offset"]],
      ["GET", "/v1/graph?maxnodes=5", "query/maxnodes", ["max_nodes"]],
      ["GET", "/v1/free-tier/status?wallet=0x0", "query/wallet", []],
    ];
    for (const [method, path, field, declared] of cases) expectUnknown(await client.request(method, path), field, declared);
    // on a body route the query takes nothing: the limit belongs in the body
    expectUnknown(await client.post("/v1/recall?limit=5", { query: "build cache", namespace }), "query/limit", []);
    expectUnknown(await client.post("/v1/store?namespace=x", { content: "Not stored", namespace }), "query/namespace", []);
    // nothing was deleted or stored
    expect((await client.get(`/v1/memories/${id}`)).status).toBe(200);
    expect((await client.get(`/v1/memories?namespace=${namespace}`)).body.total).toBe(1);
  });

  test("a parameter given twice is a 422 naming it, never read as one of its values", async () => {
    const client = new Client(service);
    const cases: [string, string][] = [
      ["/v1/memories?limit=200&limit=2", "query/limit"],
      ["/v1/memories/count?tags=a&tags=b", "query/tags"],
      ["/v1/memories/search?limit=3&q=cache&q=build", "query/q"],
      ["/v1/export?format=csv&format=json", "query/format"],
    ];
    for (const [path, field] of cases) {
      const res = await client.get(path);
      expect(res.status).toBe(422);
      expect(res.body.error.details).toMatchObject({ field, rule: "repeated" });
    }
    expect((await client.get("/v1/memories?tags=a,b&limit=2")).status).toBe(200);
  });

  test("every parameter the MemoClaw clients send is accepted", async () => {
    const client = new Client(service);
    const namespace = uniqueNs("client-query");
    await storeOne(client, { content: "Standups are at 9:30 in the small meeting room.", namespace, agent_id: "a1", session_id: "s1", tags: ["team"] });
    const common = `namespace=${namespace}&tags=team&memory_type=general&session_id=s1&agent_id=a1`;
    const dates = "after=2020-01-01T00:00:00Z&before=2099-01-01T00:00:00Z";
    const paths = [
      // CLI list, watch; MCP memoclaw_list; SDK list
      `/v1/memories?limit=20&offset=0&${common}&pinned=false&immutable=false&since=2020-01-01T00:00:00Z&until=2099-01-01T00:00:00Z`,
      `/v1/memories?sort=created_at&order=desc&limit=20&namespace=${namespace}&tags=team`,
      `/v1/memories?limit=20&offset=0&${common}&${dates}&sort=created_at&order=desc&pinned=false&metadata=%7B%7D`,
      // MCP and SDK GET search
      `/v1/memories/search?q=standup&limit=5&${common}&${dates}&sort=created_at&order=desc&pinned=false&metadata=%7B%7D`,
      `/v1/memories/count?${common}&${dates}&pinned=false&metadata=%7B%7D`,
      `/v1/core?namespace=${namespace}&limit=5`,
      `/v1/core-memories?limit=5&namespace=${namespace}&agent_id=a1`,
      `/v1/tags?namespace=${namespace}&agent_id=a1`,
      `/v1/suggested?limit=5&namespace=${namespace}&session_id=s1&agent_id=a1&category=fresh`,
      "/v1/namespaces?agent_id=a1",
      `/v1/stats?namespace=${namespace}`,
      `/v1/export?format=json&${common}&${dates}&include_deleted=false`,
      // a bare trailing "?" (the TS SDK and CLI send one without options) and Python's empty tags
      "/v1/memories?",
      `/v1/memories?namespace=${namespace}&tags=`,
    ];
    for (const path of paths) {
      const res = await client.get(path);
      expect({ path, status: res.status, body: res.status === 200 ? "" : res.body }).toEqual({ path, status: 200, body: "" });
    }
  });

  test("stats of one namespace and namespaces of one agent count only theirs", async () => {
    const client = new Client(service);
    const [mine, other] = [uniqueNs("stats-ns"), uniqueNs("stats-other")];
    await storeOne(client, { content: "The quarterly report is due on the fifth.", namespace: mine, agent_id: "planner", memory_type: "project" });
    await storeOne(client, { content: "Invoices are paid within thirty days.", namespace: mine, agent_id: "planner" });
    await storeOne(client, { content: "The espresso machine is descaled monthly.", namespace: other, agent_id: "office" });
    const stats = (await client.get(`/v1/stats?namespace=${mine}`)).body;
    expect(stats.total_memories).toBe(2);
    expect(stats.by_namespace).toEqual([{ namespace: mine, count: 2 }]);
    expect(stats.by_type.reduce((n: number, t: { count: number }) => n + t.count, 0)).toBe(2);
    expect((await client.get("/v1/stats")).body.total_memories).toBeGreaterThanOrEqual(3);
    const planner = (await client.get("/v1/namespaces?agent_id=planner")).body;
    expect(planner.namespaces.map((n: { name: string; count: number }) => [n.name, n.count])).toEqual([[mine, 2]]);
    // another wallet's namespace is not counted
    expect((await new Client(service).get(`/v1/stats?namespace=${mine}`)).body.total_memories).toBe(0);
  });
});
