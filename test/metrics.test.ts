/**
 * GET /metrics: scraped over HTTP and read with a Prometheus text-format parser, before and after
 * real requests, so every figure is checked as the change those requests made. Also who may read it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PromData, PromMetrics } from "prom2javascript";
import { sendJson, startService, TestWallet, type TestService } from "./helpers/harness";
import { observed, scrape, value } from "./helpers/scrape";
import { createApp } from "../src/http/app";
import { loadConfig } from "../src/config";
import { redisErrors, redisRoundTrips } from "../src/metrics/registry";
import { countedClient } from "../src/store/redis/round-trips";
import { vectorIndexCounters } from "../src/store/sqlite/vector-index";

describe("GET /metrics (loopback, no token)", () => {
  let service: TestService;
  const wallet = new TestWallet();
  const call = async (method: string, path: string, body?: unknown) =>
    sendJson(fetch, service.url + path, method, body, { "x-wallet-auth": await wallet.header(Math.floor(Date.now() / 1000)) });

  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.stop());

  test("requests by route template and status, latency per route, recall stages, embedding batches, free calls", async () => {
    const before = await scrape(service.url);
    const stored: string[] = [];
    for (const content of ["User prefers tabs over spaces", "The deploy window is Tuesday", "Alice reviews every database migration"]) {
      const res = await call("POST", "/v1/store", { content });
      expect(res.status).toBe(201);
      stored.push(res.body.id);
    }
    for (const query of ["tabs or spaces", "when is the deploy window"]) expect((await call("POST", "/v1/recall", { query })).status).toBe(200);
    expect((await call("GET", `/v1/memories/${stored[0]}`)).status).toBe(200);
    expect((await call("GET", `/v1/memories/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await call("GET", "/v1/no-such-route")).status).toBe(404);
    const after = await scrape(service.url);

    const requests = (labels: Record<string, string>) => value(after, "engram_http_requests_total", labels) - value(before, "engram_http_requests_total", labels);
    expect(requests({ method: "POST", route: "/v1/store", status: "201" })).toBe(3);
    expect(requests({ method: "POST", route: "/v1/recall", status: "200" })).toBe(2);
    expect(requests({ method: "GET", route: "/v1/memories/:id", status: "200" })).toBe(1);
    expect(requests({ method: "GET", route: "/v1/memories/:id", status: "404" })).toBe(1);
    expect(requests({ route: "unmatched", status: "404" })).toBe(1);
    // no raw path or id ever becomes a label
    const routes = (after.engram_http_requests_total!.data as PromData[]).map((d) => d.labels.route!);
    expect(routes.filter((r) => r.includes(stored[0]!) || r.includes("no-such-route"))).toEqual([]);

    const latency = (labels: Record<string, string>) => observed(after, "engram_http_request_duration_seconds", labels) - observed(before, "engram_http_request_duration_seconds", labels);
    expect(latency({ method: "POST", route: "/v1/recall" })).toBe(2);
    expect(latency({ method: "POST", route: "/v1/store" })).toBe(3);
    expect(observed(after, "engram_http_request_duration_seconds", { route: "/v1/recall" }, "sum")).toBeGreaterThan(0);

    const stage = (metrics: PromMetrics, name: string) => (metrics.engram_recall_stage_duration_seconds ? observed(metrics, "engram_recall_stage_duration_seconds", { stage: name }) : 0);
    for (const name of ["embed", "keyword_search", "vector_search", "scoring", "records"]) expect([name, stage(after, name) - stage(before, name)]).toEqual([name, 2]);

    // 3 stores and 2 recalls embed one text each, in at least one batch each (none were concurrent)
    expect(observed(after, "engram_embed_batch_texts") - observed(before, "engram_embed_batch_texts")).toBe(5);
    expect(observed(after, "engram_embed_batch_texts", {}, "sum") - observed(before, "engram_embed_batch_texts", {}, "sum")).toBe(5);
    expect(value(after, "engram_embed_queue_texts", { state: "queued" })).toBe(0);
    expect(value(after, "engram_embed_queue_texts", { state: "in_flight" })).toBe(0);
    expect(value(after, "engram_embed_workers")).toBeGreaterThanOrEqual(1); // no call waited: the first worker, or a second one not yet ended

    expect(value(after, "engram_free_tier_calls_total", { outcome: "used" }) - value(before, "engram_free_tier_calls_total", { outcome: "used" })).toBe(5);
  });

  test("the embedded engine's cache: wallets, rows and bytes by part", async () => {
    const other = new TestWallet();
    const headers = { "x-wallet-auth": await other.header(Math.floor(Date.now() / 1000)) };
    const before = await scrape(service.url);
    const memories = Array.from({ length: 40 }, (_, i) => ({ content: `Cache fact ${i}: the build number is ${1000 + i}` }));
    expect((await sendJson(fetch, `${service.url}/v1/store/batch`, "POST", { memories }, headers)).status).toBe(201);
    expect((await sendJson(fetch, `${service.url}/v1/search`, "POST", { query: "build number" }, headers)).status).toBe(200);
    const after = await scrape(service.url);
    expect(value(after, "engram_cache_rows") - value(before, "engram_cache_rows")).toBe(40);
    expect(value(after, "engram_cache_wallets") - value(before, "engram_cache_wallets")).toBe(1);
    // 16-bit vectors of 100 dimensions: at least 200 bytes a row
    expect(value(after, "engram_cache_bytes", { part: "vectors" }) - value(before, "engram_cache_bytes", { part: "vectors" })).toBeGreaterThanOrEqual(40 * 200);
    expect(value(after, "engram_cache_bytes", { part: "keywords" })).toBeGreaterThan(value(before, "engram_cache_bytes", { part: "keywords" }));
  });

  test("the scan thread's counters are the engine's own; the process's memory and CPU", async () => {
    const before = await scrape(service.url);
    // the thread takes wallets of 16,384 rows or more (test/unit/vector-index.test.ts runs it): here its counts move by hand
    vectorIndexCounters.offloadedScans += 3;
    vectorIndexCounters.offloadDiscards += 1;
    const metrics = await scrape(service.url);
    expect(value(metrics, "engram_scan_thread_offloads_total") - value(before, "engram_scan_thread_offloads_total")).toBe(3);
    expect(value(metrics, "engram_scan_thread_discards_total") - value(before, "engram_scan_thread_discards_total")).toBe(1);
    expect(value(metrics, "engram_process_resident_memory_bytes")).toBeGreaterThan(10e6);
    expect(value(metrics, "engram_process_cpu_seconds_total")).toBeGreaterThan(0);
  });
});

describe("deploy/grafana/engram.json", () => {
  test("charts only metrics /metrics exposes, and every one of them", async () => {
    const service = await startService();
    try {
      const exposed = Object.keys(await scrape(service.url)).filter((name) => name.startsWith("engram_"));
      const dashboard = JSON.parse(await Bun.file(`${import.meta.dir}/../deploy/grafana/engram.json`).text()) as { panels: { targets?: { expr: string }[] }[] };
      const charted = new Set(dashboard.panels.flatMap((p) => p.targets ?? []).flatMap((t) => [...t.expr.matchAll(/\bengram_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ""))));
      expect([...charted].filter((name) => !exposed.includes(name))).toEqual([]);
      expect(exposed.filter((name) => !charted.has(name))).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});

describe("who may read /metrics", () => {
  let service: TestService;
  const token = "metrics-token-for-the-test-0123456789";
  beforeAll(async () => {
    service = await startService(undefined, { METRICS_TOKEN: token });
  });
  afterAll(() => service.stop());

  test("with METRICS_TOKEN: 401 without it or with another, 200 with it", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong-token-0123456789" }, { authorization: `Basic ${token}` }] as Record<string, string>[]) {
      const res = await fetch(`${service.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: "AUTH_ERROR", details: { reason: "unauthorized" } });
    }
    const metrics = await scrape(service.url, { authorization: `Bearer ${token}` });
    expect(value(metrics, "engram_http_requests_total")).toBeGreaterThan(0);
  });

  test("without METRICS_TOKEN, a client that is not on the loopback address gets 403", async () => {
    // app.handle has no socket, so no loopback peer: the route's answer to a remote client. (The
    // app is never stopped, so it gets an engine of its own for the metrics to forget.)
    const app = createApp({ ...service.deps, engine: Object.create(null), config: { ...service.deps.config, METRICS_TOKEN: undefined } });
    const res = await app.handle(new Request("http://engram.example/metrics"));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: "FORBIDDEN", details: { reason: "metrics_loopback_only" } });
  });

  test("METRICS_TOKEN shorter than 16 characters stops start-up, naming it", () => {
    expect(() => loadConfig({ DATA_DIR: service.config.DATA_DIR, METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN="short"/);
  });
});

describe("Redis round trips", () => {
  test("a command, a pipeline and a transaction count one round trip each; a failed one counts an error", async () => {
    const read = async () => ({
      trips: Object.fromEntries((await redisRoundTrips.get()).values.map((v) => [String(v.labels.kind), v.value])),
      errors: (await redisErrors.get()).values.find((v) => v.labels.kind === "command")?.value ?? 0,
    });
    const multi = { commands: [] as string[][], addCommand(c: string[]) { this.commands.push(c); return this; }, exec: async () => ["OK"], execAsPipeline: async () => ["OK"] };
    const fake = {
      sendCommand: async (command: string[]) => {
        if (command[0] === "BAD") throw new Error("ERR unknown command");
        return "PONG";
      },
      multi: () => ({ ...multi, commands: [] }),
    };
    const client = countedClient(fake as never) as unknown as typeof fake;
    const before = await read();
    expect(await client.sendCommand(["PING"])).toBe("PONG");
    await expect(client.sendCommand(["BAD"])).rejects.toThrow("unknown command");
    await client.multi().addCommand(["SET", "a", "1"]).addCommand(["GET", "a"]).execAsPipeline();
    const tx = client.multi();
    tx.addCommand(["INCR", "n"]);
    await tx.exec();
    const after = await read();
    const diff = (kind: string) => (after.trips[kind] ?? 0) - (before.trips[kind] ?? 0);
    expect([diff("command"), diff("pipeline"), diff("transaction")]).toEqual([2, 1, 1]);
    expect(after.errors - before.errors).toBe(1);
  });
});
