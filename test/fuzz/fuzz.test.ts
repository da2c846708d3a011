import { afterAll, beforeAll, expect, test } from "bun:test";
import { startService, TestWallet, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { FACTS, MISSING_ID } from "../helpers/contract";
import { seededRandom } from "../helpers/seeded-random";

/**
 * Seeded fuzz over every route: malformed and hostile requests (bad types, huge and negative
 * numbers, deep nesting, huge strings, unicode and NUL, wrong content types, truncated JSON,
 * duplicate keys, huge offsets, bad path ids). Asserts for every answer:
 *   - never 5xx;
 *   - every 4xx has the nested error body {error: {code, message, details}} and an x-request-id;
 *   - a rejected request stores or changes nothing (export with deleted, stats, core list,
 *     relations, history and free calls compared before and after).
 * Reproduce a failure with FUZZ_SEED=<seed printed>; FUZZ_REQUESTS sets the count (default 2,500
 * per engine, about 10 s on sqlite).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
/** 48 ms a request (the default run takes 15-60 s): a longer FUZZ_REQUESTS run gets the time it needs. */
const TIMEOUT_MS = Math.max(120_000, REQUESTS * 48);

type Rng = ReturnType<typeof seededRandom>;

const nest = (depth: number, leaf: unknown = 1): unknown => (depth <= 0 ? leaf : { k: nest(depth - 1, leaf) });
const nestArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** A value that is wrong somewhere: type, size, range, encoding or depth. Some happen to be valid. */
function hostileValue(r: Rng): unknown {
  switch (r.int(22)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return -1;
    case 3: return 0;
    case 4: return 1.5;
    case 5: return 1e308;
    case 6: return -1e308;
    case 7: return Number.MAX_SAFE_INTEGER + 2;
    case 8: return "";
    case 9: return "x".repeat(r.pick([255, 256, 1001, 8193, 32769, 100_000]));
    case 10: return "nul\u0000byte";
    case 11: return "🧠 ünïcödé \u202Eevil\u202C \ud800 lone";
    case 12: return [];
    case 13: return {};
    case 14: return nest(r.int(20) + 1);
    case 15: return Array.from({ length: r.pick([11, 101, 1000]) }, (_, i) => `t${i}`);
    case 16: return "2030-01-01T00:00:00Z\u0000";
    case 17: return r.pick(["2030-02-31T00:00:00Z", "2030-01-01", "not a date", "+275760-09-13T00:00:00Z", "2030-01-01T24:00:00Z"]);
    case 18: return r.pick(["general", "correction", "supports", "json", "csv", "structured", "text"]);
    case 19: return "00000000-0000-4000-8000-00000000000" + r.int(10);
    case 20: return { tags: hostileValue(r) };
    default: return [hostileValue(r)];
  }
}

/** Query-string values: integers strict, strings bounded. */
function hostileQueryValue(r: Rng): string {
  return r.pick([
    "99999999999999999999", "-1", "0", "1", "1.5", "1e3", "0x10", " 5", "", "NaN", "Infinity", "007", "100", "101", "999900", "999901",
    "a".repeat(256), "a".repeat(5000), "%00", "🧠", "true", "a,".repeat(12), "x".repeat(70), "2030-02-31T00:00:00Z", "2030-01-01T00:00:00Z",
  ]);
}

interface Route {
  method: string;
  path: string;
  /** body fields the route reads, with one plausible value each (the fuzzer breaks them) */
  body?: Record<string, unknown>;
  query?: string[];
}

const SOME_ID = "{id}";
const ROUTES: Route[] = [
  { method: "GET", path: "/v1/free-tier/status" },
  { method: "GET", path: "/v1/stats" },
  { method: "GET", path: "/v1/namespaces" },
  { method: "GET", path: "/v1/export", query: ["format", "namespace", "memory_type", "tags", "session_id", "agent_id", "before", "after", "include_deleted"] },
  { method: "GET", path: "/v1/memories/core", query: ["namespace", "limit", "offset"] },
  { method: "POST", path: "/v1/memories/core", body: { memory_id: SOME_ID } },
  { method: "DELETE", path: "/v1/memories/core/{id}" },
  {
    method: "POST",
    path: "/v1/store",
    body: { content: "fuzz content", metadata: { tags: ["a"] }, importance: 0.5, namespace: "fuzz", memory_type: "general", session_id: "s", agent_id: "a", expires_at: "2099-01-01T00:00:00Z", pinned: false, immutable: false },
  },
  { method: "POST", path: "/v1/store/batch", body: { memories: [{ content: "fuzz batch item" }] } },
  { method: "GET", path: "/v1/memories", query: ["limit", "offset", "tags", "namespace", "session_id", "agent_id", "memory_type", "pinned", "immutable", "after", "before", "sort", "order", "metadata"] },
  { method: "DELETE", path: "/v1/memories", body: { ids: [SOME_ID] } },
  { method: "PATCH", path: "/v1/memories/batch", body: { updates: [{ id: SOME_ID, importance: 0.7 }] } },
  { method: "GET", path: "/v1/memories/{id}" },
  { method: "PATCH", path: "/v1/memories/{id}", body: { content: "patched", metadata: {}, importance: 0.4, memory_type: "project", namespace: "fuzz", pinned: true, expires_at: null, immutable: false } },
  { method: "DELETE", path: "/v1/memories/{id}" },
  { method: "GET", path: "/v1/memories/{id}/history" },
  { method: "POST", path: "/v1/memories/{id}/relations", body: { target_id: SOME_ID, relation_type: "supports", metadata: { why: "fuzz" } } },
  { method: "GET", path: "/v1/memories/{id}/relations" },
  { method: "DELETE", path: "/v1/memories/{id}/relations/{relationId}" },
  {
    method: "POST",
    path: "/v1/recall",
    body: { query: "deploy", limit: 5, min_similarity: 0, namespace: "fuzz", session_id: "s", agent_id: "a", include_relations: true, filters: { tags: ["a"], after: "2020-01-01T00:00:00Z" } },
  },
  { method: "POST", path: "/v1/search", body: { query: "deploy", limit: 10, namespace: "fuzz", memory_type: "general", tags: ["a"], session_id: "s", agent_id: "a" } },
  {
    method: "POST",
    path: "/v1/context",
    body: { query: "deploy", namespace: "fuzz", session_id: "s", agent_id: "a", max_memories: 10, max_tokens: 4000, format: "text", include_metadata: true, summarize: false },
  },
  { method: "POST", path: "/v1/ingest", body: { messages: [{ role: "user", content: "I prefer tea." }], namespace: "fuzz", session_id: "s", agent_id: "a", auto_relate: true } },
  { method: "POST", path: "/v1/extract", body: { text: "We decided to use Postgres." } },
  { method: "GET", path: "/v1/suggested", query: ["namespace", "limit", "category", "session_id", "agent_id"] },
  { method: "GET", path: "/v1/graph", query: ["memory_id", "namespace", "depth", "max_nodes"] },
  { method: "POST", path: "/auth/session", body: { address: "0x0000000000000000000000000000000000000001", timestamp: 1, signature: "0x00" } },
  { method: "GET", path: "/v1/free-tier/info" },
  { method: "GET", path: "/metrics" },
  // MemoClaw clients' routes (docs/clients.md)
  { method: "GET", path: "/v1/memories/search", query: ["q", "limit", "namespace", "tags", "memory_type", "session_id", "agent_id", "after", "before", "sort", "order", "pinned", "metadata"] },
  { method: "GET", path: "/v1/memories/count", query: ["namespace", "tags", "memory_type", "pinned", "immutable", "since", "until", "metadata"] },
  { method: "GET", path: "/v1/core-memories", query: ["limit", "namespace", "agent_id"] },
  { method: "GET", path: "/v1/core", query: ["limit", "namespace", "offset"] },
  { method: "GET", path: "/v1/tags", query: ["namespace", "agent_id"] },
  { method: "POST", path: "/v1/memories/batch-update", body: { updates: [{ id: SOME_ID, tags: ["b"], session_id: "s2" }] } },
  { method: "POST", path: "/v1/memories/batch-delete", body: { ids: [SOME_ID] } },
  { method: "POST", path: "/v1/memories/bulk-delete", body: { ids: [SOME_ID] } },
  { method: "POST", path: "/v1/memories/extract", body: { messages: [{ role: "user", content: "I prefer tea." }], namespace: "fuzz", session_id: "s", agent_id: "a" } },
  { method: "POST", path: "/v1/memories/consolidate", body: { namespace: "fuzz", min_similarity: 0.9, mode: "merge", dry_run: true } },
  { method: "POST", path: "/v1/migrate", body: { files: [{ filename: "notes.md", content: "# Notes\n- The user likes tea" }], namespace: "fuzz", auto_tag: true, dry_run: false } },
];

const CONTENT_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "", "application/json; charset=utf-8", "APPLICATION/JSON"];

interface Attempt {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  label: string;
}

/** One malformed request for a route; ids are the service's real memories most of the time. */
function malformed(r: Rng, route: Route, ids: string[], relationId: string): Attempt {
  const realId = () => (r.chance(0.8) ? r.pick(ids) : r.pick([MISSING_ID, "not-a-uuid", "%00", "a".repeat(300), "🧠", "..%2F..%2Fetc"]));
  let path = route.path.replace("{id}", realId()).replace("{relationId}", r.chance(0.5) ? relationId : realId());
  const withRealIds = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll(`"${SOME_ID}"`, () => `"${r.pick(ids)}"`));
  if (route.query && r.chance(0.9)) {
    const params = Array.from({ length: r.int(3) + 1 }, () => `${r.pick(route.query!)}=${encodeURIComponent(hostileQueryValue(r))}`);
    path += `?${params.join("&")}`;
  }
  if (!route.body) {
    if (route.method !== "GET" && r.chance(0.2)) return { method: route.method, path, body: JSON.stringify({ stray: hostileValue(r) }), contentType: "application/json", label: "stray body" };
    return { method: route.method, path, label: "query/path" };
  }
  const base = withRealIds(route.body) as Record<string, unknown>;
  const json = (value: unknown, label: string): Attempt => ({ method: route.method, path, body: JSON.stringify(value), contentType: "application/json", label });
  switch (r.int(12)) {
    case 0: {
      const text = JSON.stringify(base);
      return { method: route.method, path, body: text.slice(0, r.int(text.length)), contentType: "application/json", label: "truncated JSON" };
    }
    case 1: {
      const key = r.pick(Object.keys(base));
      const text = JSON.stringify(base).replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(hostileValue(r)) ?? "null"},`);
      return { method: route.method, path, body: text, contentType: "application/json", label: `duplicate key ${key}` };
    }
    case 2: {
      const key = r.pick(Object.keys(base));
      const depth = r.pick([8, 17, 100, 100_000]);
      const text = JSON.stringify({ ...base, [key]: "__DEEP__" }).replace('"__DEEP__"', nestArrays(depth));
      return { method: route.method, path, body: text, contentType: "application/json", label: `deep ${key} ${depth}` };
    }
    case 3:
      return { method: route.method, path, body: JSON.stringify(base), contentType: r.pick(CONTENT_TYPES), label: "content type" };
    case 4:
      return { method: route.method, path, body: r.pick(["", "null", "[]", "5", '"str"', "{", "{}", "\u0000", "[{}]", '{"a":1}}']), contentType: "application/json", label: "odd root" };
    case 5: {
      // an item of a batch turned hostile, the rest valid
      const [listKey] = Object.entries(base).find(([, v]) => Array.isArray(v)) ?? [];
      if (!listKey) return json({ ...base, [r.pick(Object.keys(base))]: hostileValue(r) }, "field");
      const items = base[listKey] as unknown[];
      const hostile = r.chance(0.5) ? hostileValue(r) : { ...(items[0] as object), [r.pick(["content", "metadata", "namespace", "expires_at", "importance", "id"])]: hostileValue(r) };
      return json({ ...base, [listKey]: [...items, hostile, ...items] }, `hostile ${listKey} item`);
    }
    case 6: {
      const metadata = r.pick([nest(r.int(12) + 4), Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])), { blob: "x".repeat(5000) }, { tags: hostileValue(r) }]);
      return json({ ...base, metadata }, "metadata");
    }
    default: {
      const mutated = { ...base };
      for (let n = r.int(3) + 1; n > 0; n--) mutated[r.pick([...Object.keys(base), "unknown_field"])] = hostileValue(r);
      return json(mutated, "fields");
    }
  }
}

describeEngines("fuzz", (engine) => {
  let service: TestService;
  let token: string;
  let ids: string[];
  let relationId: string;

  const send = async (attempt: Attempt) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (attempt.contentType) headers["content-type"] = attempt.contentType;
    const res = await fetch(service.url + attempt.path, { method: attempt.method, headers, body: attempt.body });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, requestId: res.headers.get("x-request-id") };
  };
  const getJson = async (path: string) => (await send({ method: "GET", path, label: "snapshot" })).body;

  /** Everything a request could change for this wallet. */
  const snapshot = async () =>
    JSON.stringify(
      await Promise.all([
        getJson("/v1/export?include_deleted=true"),
        getJson("/v1/stats"),
        getJson("/v1/memories/core?limit=100"),
        getJson("/v1/free-tier/status"),
        ...ids.slice(0, 3).flatMap((id) => [getJson(`/v1/memories/${id}/relations`), getJson(`/v1/memories/${id}/history`)]),
      ]),
    );

  beforeAll(async () => {
    service = await startService(engine, { FREE_TIER_CALLS: "1000000" });
    const wallet = new TestWallet();
    const ts = Math.floor(service.now() / 1000);
    const signature = (await wallet.header(ts)).split(":")[2]!;
    const session = await fetch(`${service.url}/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: wallet.address, timestamp: ts, signature }),
    });
    token = ((await session.json()) as { token: string }).token;
    const stored = await send({
      method: "POST",
      path: "/v1/store/batch",
      contentType: "application/json",
      body: JSON.stringify({ memories: FACTS.slice(0, 6).map((content, i) => ({ content, namespace: "fuzz", immutable: i === 5, pinned: i === 4, metadata: { tags: ["a"] } })) }),
      label: "seed",
    });
    expect(stored.status).toBe(201);
    ids = stored.body.ids;
    const relation = await send({ method: "POST", path: `/v1/memories/${ids[0]}/relations`, contentType: "application/json", body: JSON.stringify({ target_id: ids[1], relation_type: "supports" }), label: "seed" });
    expect(relation.status).toBe(201);
    relationId = relation.body.id;
  });
  afterAll(() => service?.stop());

  test("the fuzzer covers every route of the OpenAPI document", async () => {
    const openapi = (await getJson("/swagger/json")) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(openapi.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const covered = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    expect(documented.filter((r) => !r.includes("/swagger") && !r.startsWith("GET /health") && !covered.has(r))).toEqual([]);
  });

  test(`${REQUESTS} malformed requests: no 5xx, nested 4xx bodies, rejected requests change nothing (seed ${SEED})`, async () => {
    const r = seededRandom(SEED);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let before = await snapshot();
    for (let i = 0; i < REQUESTS && failures.length < 10; i++) {
      const attempt = malformed(r, r.pick(ROUTES), ids, relationId);
      const res = await send(attempt);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const where = `#${i} ${attempt.method} ${attempt.path.slice(0, 120)} (${attempt.label}) → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      if (res.status >= 500) failures.push(`5xx: ${where}`);
      if (!res.requestId) failures.push(`no x-request-id: ${where}`);
      if (res.status >= 400) {
        const error = res.body?.error;
        if (typeof error?.code !== "string" || typeof error?.message !== "string" || typeof error?.details !== "object" || error.details === null) {
          failures.push(`not the nested error body: ${where}`);
        }
      }
      if (attempt.method === "GET") continue;
      if (res.status >= 400) {
        const after = await snapshot();
        if (after !== before) failures.push(`a rejected request changed state: ${where}`);
        before = after;
      } else {
        before = await snapshot();
      }
    }
    const summary = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(" ");
    console.log(`[fuzz ${engine.name}] seed ${SEED}, ${REQUESTS} requests: ${summary}`);
    if (failures.length) console.error(`[fuzz ${engine.name}] FAILED with seed ${SEED} (rerun: FUZZ_SEED=${SEED} bun test test/fuzz)\n${failures.join("\n")}`);
    expect(failures).toEqual([]);
  }, TIMEOUT_MS);
});
