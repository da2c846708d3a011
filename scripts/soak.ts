/**
 * Bounded soak: 64 connections mixing every endpoint against a locally started service
 * (127.0.0.1 only), RSS sampled every 10 s.
 *
 *   bun scripts/soak.ts [--minutes 10] [--connections 64]
 *   STORE=redis REDIS_URL=redis://127.0.0.1:6379 bun scripts/soak.ts   (Redis engine: the service keeps its data there)
 *
 * Starts `bun scripts/start.ts` on a fresh data dir, seeds each of 8 wallets, then runs the
 * connections (each a loop of requests, one at a time) for the given time. Deletes keep up with
 * stores so the live data stays bounded. Prints one row per sample (RSS, requests, rate, 5xx,
 * latency) and whether RSS is flat: the mean of the last third of the samples within 10% (or
 * 16 MB) of the mean of the middle third (the first third is warm-up). Exits 1 on a 5xx or growth.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, sessionFor, startChild } from "./durability-child";
import { percentiles, printTable, sentence } from "./bench/bench-util";

const { values } = parseArgs({ options: { minutes: { type: "string", default: "10" }, connections: { type: "string", default: "64" } } });
const MINUTES = Number(values.minutes);
const CONNECTIONS = Number(values.connections);
const SAMPLE_MS = 10_000;
const WALLETS = 8;

const dataDir = mkdtempSync(join(tmpdir(), "engram-soak-"));
const service = await startChild(dataDir, freePort());
const url = service.url;

interface Wallet {
  headers: Record<string, string>;
  ids: string[];
}
const wallets: Wallet[] = [];
for (let w = 0; w < WALLETS; w++) {
  const { headers } = await sessionFor(url);
  const res = await fetch(`${url}/v1/store/batch`, {
    method: "POST",
    headers,
    body: JSON.stringify({ memories: Array.from({ length: 50 }, (_, i) => ({ content: `${sentence(w * 1000 + i)} (seed ${w}-${i})`, metadata: { tags: [`t${i % 5}`] } })) }),
  });
  wallets.push({ headers, ids: ((await res.json()) as { ids: string[] }).ids });
}

let counter = 0;
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;
const content = () => `${sentence(++counter)} (soak ${counter} ${crypto.randomUUID().slice(0, 8)})`;

/** One request of the mix: [name, method, path, body?]; stores and deletes balance. */
function nextRequest(wallet: Wallet): [string, string, string, unknown?] {
  const id = pick(wallet.ids);
  const other = pick(wallet.ids);
  const mix: [string, string, string, unknown?][] = [
    ["store", "POST", "/v1/store", { content: content(), metadata: { tags: ["soak"] } }],
    ["store batch", "POST", "/v1/store/batch", { memories: Array.from({ length: 5 }, () => ({ content: content() })) }],
    ["delete", "DELETE", `/v1/memories/${id}`],
    ["bulk delete", "DELETE", "/v1/memories", { ids: wallet.ids.slice(-5) }],
    ["recall", "POST", "/v1/recall", { query: sentence(Math.floor(Math.random() * 500)), limit: 10, include_relations: true }],
    ["search", "POST", "/v1/search", { query: pick(["deploy", "database", "team", "billing", "tests"]), limit: 10 }],
    ["context", "POST", "/v1/context", { query: "what do we know", max_tokens: 1000 }],
    ["list", "GET", `/v1/memories?limit=20&offset=${Math.floor(Math.random() * 40)}`],
    ["get", "GET", `/v1/memories/${id}`],
    ["patch", "PATCH", `/v1/memories/${id}`, { importance: Math.round(Math.random() * 100) / 100 }],
    ["patch batch", "PATCH", "/v1/memories/batch", { updates: [{ id, importance: 0.6 }, { id: other, pinned: Math.random() < 0.5 }] }],
    ["history", "GET", `/v1/memories/${id}/history`],
    ["relate", "POST", `/v1/memories/${id}/relations`, { target_id: other, relation_type: pick(["related_to", "supports", "contradicts"]) }],
    ["relations", "GET", `/v1/memories/${id}/relations`],
    ["pin", "POST", "/v1/memories/core", { memory_id: id }],
    ["core", "GET", "/v1/memories/core"],
    ["stats", "GET", "/v1/stats"],
    ["namespaces", "GET", "/v1/namespaces"],
    ["export", "GET", "/v1/export?format=csv"],
    ["suggested", "GET", "/v1/suggested"],
    ["graph", "GET", `/v1/graph?memory_id=${id}`],
    ["extract", "POST", "/v1/extract", { text: "I prefer tea over coffee. We decided to deploy on Fridays." }],
    ["ingest", "POST", "/v1/ingest", { messages: [{ role: "user", content: `${content()} I always use tabs.` }] }],
    ["bad request", "POST", "/v1/store", { content: "x".repeat(9000) }],
  ];
  return pick(mix);
}

let stop = false;
let requests = 0;
let fiveXX = 0;
const latencies: number[] = [];
const byName = new Map<string, number>();

async function connection(c: number) {
  const wallet = wallets[c % WALLETS]!;
  while (!stop) {
    const [name, method, path, body] = nextRequest(wallet);
    const t0 = performance.now();
    const res = await fetch(url + path, { method, headers: wallet.headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    latencies.push(performance.now() - t0);
    requests++;
    byName.set(name, (byName.get(name) ?? 0) + 1);
    if (res.status >= 500) {
      fiveXX++;
      console.error(`5xx: ${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
    }
    if (res.status === 201 && (name === "store" || name === "store batch" || name === "ingest")) {
      const created = JSON.parse(text) as { id?: string; ids?: string[]; memory_ids?: string[] };
      wallet.ids.push(...(created.ids ?? created.memory_ids ?? (created.id ? [created.id] : [])));
    }
    if (name === "delete" || name === "bulk delete") {
      const gone = new Set(name === "delete" ? [path.split("/").pop()!] : wallet.ids.slice(-5));
      if (wallet.ids.length > gone.size + 10) wallet.ids = wallet.ids.filter((x) => !gone.has(x));
    }
  }
}

const rows: string[][] = [];
const rss: number[] = [];
const started = performance.now();
const conns = Array.from({ length: CONNECTIONS }, (_, c) => connection(c));
let lastRequests = 0;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
rss.push(service.rssBytes());
rows.push(["0", mb(rss[0]!), "0", "-", "0", "-", "-"]);
while (performance.now() - started < MINUTES * 60_000) {
  await Bun.sleep(Math.min(SAMPLE_MS, MINUTES * 60_000 - (performance.now() - started)));
  const sample = service.rssBytes();
  rss.push(sample);
  const window = latencies.splice(0);
  const { p50, p99 } = window.length ? percentiles(window) : { p50: 0, p99: 0 };
  const elapsed = (performance.now() - started) / 1000;
  rows.push([elapsed.toFixed(0), mb(sample), String(requests), ((requests - lastRequests) / (SAMPLE_MS / 1000)).toFixed(0), String(fiveXX), p50.toFixed(1), p99.toFixed(1)]);
  lastRequests = requests;
  console.error(`[soak] ${elapsed.toFixed(0)} s: RSS ${mb(sample)} MB, ${requests} requests, ${fiveXX} 5xx`);
}
stop = true;
await Promise.allSettled(conns);
await service.stop();
rmSync(dataDir, { recursive: true, force: true });

const third = Math.max(1, Math.floor(rss.length / 3));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const middle = mean(rss.slice(third, 2 * third));
const last = mean(rss.slice(-third));
const growth = last - middle;
const flat = growth <= Math.max(0.1 * middle, 16 * 1024 * 1024);
console.log(`\nsoak (${process.env.STORE ?? "sqlite"} engine): ${MINUTES} min, ${CONNECTIONS} connections, ${requests} requests (${(requests / (MINUTES * 60)).toFixed(0)}/s), ${fiveXX} × 5xx\n`);
printTable(["t (s)", "RSS (MB)", "requests", "req/s", "5xx", "p50 ms", "p99 ms"], rows);
console.log(`\nrequests by kind: ${[...byName].sort().map(([k, n]) => `${k} ${n}`).join(", ")}`);
console.log(`RSS: warm-up end ${mb(rss[third]!)} MB, middle-third mean ${mb(middle)} MB, last-third mean ${mb(last)} MB (${growth >= 0 ? "+" : ""}${mb(growth)} MB): ${flat ? "flat" : "GROWING"}`);
process.exit(fiveXX === 0 && flat ? 0 : 1);
