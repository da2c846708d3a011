/**
 * Bounded soak: 64 connections mixing every endpoint against a locally started service
 * (127.0.0.1 only), RSS sampled every 10 s.
 *
 *   bun scripts/soak.ts [--minutes 10] [--connections 64] [--writes mixed|replace|add]
 *   STORE=redis REDIS_URL=redis://127.0.0.1:6379 bun scripts/soak.ts   (Redis engine: the service keeps its data there)
 *
 * Starts `bun scripts/start.ts` on a fresh data dir, seeds each of 8 wallets, then runs the
 * connections (each a loop of requests, one at a time) for the given time. --writes says what the
 * writes do to the live data: `mixed` (default) deletes and bulk deletes among the other requests,
 * about as many as the stores; `replace` deletes the wallet's oldest memories right after each write
 * that added some, as many as it added, so every wallet keeps its size; `add` never deletes and sends
 * batch stores of 20 as half of its requests, so the memories accumulate. Prints one row per sample (anonymous and whole RSS, the cache's rows and
 * accounted bytes from /metrics on the sqlite engine, requests, rate, 5xx, latency) and whether
 * anonymous RSS is flat: the mean of the last third of the samples within 10% (or 16 MiB) of the mean
 * of the middle third (the first third is warm-up); with `add`, the anonymous RSS per memory cached
 * from the end of the warm-up on, next to the cache's own accounting per memory: as a least-squares
 * slope over the samples, and between two readings after --idle s (default 30) without requests,
 * at the end of the warm-up (the connections pause) and at the end; at those two readings the
 * service (started with scripts/bench/memory-probe.ts preloaded) says which allocator the growth is in.
 * --skip leaves request kinds out of the mix (e.g. `--skip export,suggested`). Exits 1 on a 5xx,
 * or on growth unless --writes add (where growth is the point).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, sessionFor, startChild } from "./durability-child";
import type { ProbeAnswer } from "./bench/memory-probe";
import { percentiles, printTable, scrapeCache, sentence } from "./bench/bench-util";
import { anonymousRss } from "../src/store/sqlite/rss-watch";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    writes: { type: "string", default: "mixed" },
    idle: { type: "string", default: "30" },
    skip: { type: "string", default: "" },
  },
});
const IDLE_S = Number(values.idle);
const MINUTES = Number(values.minutes);
const CONNECTIONS = Number(values.connections);
const WRITES = values.writes as "mixed" | "replace" | "add";
if (!["mixed", "replace", "add"].includes(WRITES)) throw new Error(`--writes is mixed, replace or add; got ${values.writes}`);
/** request kinds left out of the mix (--skip export,stats): which requests' garbage the readings carry */
const SKIP = new Set(values.skip ? values.skip.split(",") : []);
const SAMPLE_MS = 10_000;
const WALLETS = 8;

const dataDir = mkdtempSync(join(tmpdir(), "engram-soak-"));
const service = await startChild(dataDir, freePort(), {}, { probe: WRITES === "add" });
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

/** The requests of the mix for the wallet: [name, method, path, body?]; stores and deletes balance. */
function mixOf(wallet: Wallet, skip = SKIP): [string, string, string, unknown?][] {
  const id = pick(wallet.ids);
  const other = pick(wallet.ids);
  const mix: [string, string, string, unknown?][] = [
    ["store", "POST", "/v1/store", { content: content(), metadata: { tags: ["soak"] } }],
    ["store batch", "POST", "/v1/store/batch", { memories: Array.from({ length: WRITES === "add" ? 20 : 5 }, () => ({ content: content() })) }],
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
  return mix.filter(([name]) => !skip.has(name));
}
const kinds = mixOf(wallets[0]!, new Set()).map(([kind]) => kind);
const unknownSkips = [...SKIP].filter((name) => !kinds.includes(name));
if (unknownSkips.length) {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
  throw new Error(`--skip: no request kind ${unknownSkips.join(", ")}; the kinds are ${kinds.join(", ")}`);
}

/** One request of the mix. */
function nextRequest(wallet: Wallet): [string, string, string, unknown?] {
  const mix = mixOf(wallet);
  if (WRITES === "mixed") return pick(mix);
  // replace: the writes delete right after adding (see connection); add: nothing is deleted, and half
  // the requests are batch stores of 20, so that the memories added outweigh the noise of the heaps
  const writes = mix.filter(([name]) => name !== "delete" && name !== "bulk delete");
  return WRITES === "add" && Math.random() < 0.5 ? writes.find(([name]) => name === "store batch")! : pick(writes);
}

let stop = false;
let requests = 0;
let fiveXX = 0;
const latencies: number[] = [];
const byName = new Map<string, number>();

/** Set while the connections pause (`--writes add`'s idle reading after the warm-up). */
let paused: Promise<void> | null = null;
let inFlight = 0;

async function connection(c: number) {
  const wallet = wallets[c % WALLETS]!;
  while (!stop) {
    if (paused) {
      await paused;
      continue;
    }
    inFlight++;
    try {
      await oneRequest(wallet);
    } finally {
      inFlight--;
    }
  }
}

/** One request of the mix, and what it changes in the wallet's ids. */
async function oneRequest(wallet: Wallet) {
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
    const added = (created.ids ?? created.memory_ids ?? (created.id ? [created.id] : [])).filter((x) => !wallet.ids.includes(x));
    wallet.ids.push(...added);
    if (WRITES === "replace" && added.length > 0) await replaceOldest(wallet, added.length);
  }
  if (name === "delete" || name === "bulk delete") {
    const gone = new Set(name === "delete" ? [path.split("/").pop()!] : wallet.ids.slice(-5));
    if (wallet.ids.length > gone.size + 10) wallet.ids = wallet.ids.filter((x) => !gone.has(x));
  }
}

/** Deletes the wallet's `n` oldest memories (one bulk delete): what `--writes replace` does after each write. */
async function replaceOldest(wallet: Wallet, n: number): Promise<void> {
  const oldest = wallet.ids.splice(0, n);
  const res = await fetch(`${url}/v1/memories`, { method: "DELETE", headers: wallet.headers, body: JSON.stringify({ ids: oldest }) });
  await res.text();
  requests++;
  byName.set("replace (bulk delete)", (byName.get("replace (bulk delete)") ?? 0) + 1);
  if (res.status >= 500) fiveXX++;
}

/** The service's anonymous RSS (RssAnon): what it holds, without the database file's mapped pages. */
const rssAnon = () => anonymousRss(service.pid) ?? 0;

/** The cache's rows and accounted bytes (/metrics; zeros on the Redis engine). */
async function cacheReading(): Promise<{ rows: number; bytes: number }> {
  const { rows, bytes } = await scrapeCache(url);
  return { rows, bytes: Object.values(bytes).reduce((a, b) => a + b, 0) };
}

/** RssAnon, the cache and (with `add`) the memory probe's answer after the requests under way have ended and IDLE_S s without any. */
async function idleReading(): Promise<{ anon: number; rows: number; bytes: number; probe?: ProbeAnswer; collected?: number }> {
  while (inFlight > 0) await Bun.sleep(50);
  await Bun.sleep(IDLE_S * 1000);
  const reading = { anon: rssAnon(), ...(await cacheReading()), probe: await service.probe?.() };
  if (!service.probe) return reading;
  // then after a full collection (and 2 s for the allocators to return pages): what of it was garbage
  await service.probe(true);
  await Bun.sleep(2000);
  return { ...reading, collected: rssAnon() };
}
let warmedIdle: Awaited<ReturnType<typeof idleReading>> | null = null;

const rows: string[][] = [];
const rss: number[] = [];
const anon: number[] = [];
const cache: { rows: number; bytes: number }[] = [];
const started = performance.now();
const conns = Array.from({ length: CONNECTIONS }, (_, c) => connection(c));
let lastRequests = 0;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
rss.push(service.rssBytes());
anon.push(rssAnon());
cache.push(await cacheReading());
rows.push(["0", mb(anon[0]!), mb(rss[0]!), String(cache[0]!.rows), mb(cache[0]!.bytes), "0", "-", "0", "-", "-"]);
while (performance.now() - started < MINUTES * 60_000) {
  await Bun.sleep(Math.min(SAMPLE_MS, MINUTES * 60_000 - (performance.now() - started)));
  const sample = service.rssBytes();
  rss.push(sample);
  anon.push(rssAnon());
  cache.push(await cacheReading());
  const window = latencies.splice(0);
  const { p50, p99 } = window.length ? percentiles(window) : { p50: 0, p99: 0 };
  const elapsed = (performance.now() - started) / 1000;
  rows.push([elapsed.toFixed(0), mb(anon.at(-1)!), mb(sample), String(cache.at(-1)!.rows), mb(cache.at(-1)!.bytes), String(requests), ((requests - lastRequests) / (SAMPLE_MS / 1000)).toFixed(0), String(fiveXX), p50.toFixed(1), p99.toFixed(1)]);
  lastRequests = requests;
  if (WRITES === "add" && !warmedIdle && elapsed >= (MINUTES * 60) / 3) {
    let resume = () => {};
    paused = new Promise((done) => (resume = done));
    console.error(`[soak] warm-up over: pausing the connections for an idle reading (${IDLE_S} s)`);
    warmedIdle = await idleReading();
    paused = null;
    resume();
  }
  console.error(`[soak] ${elapsed.toFixed(0)} s: RssAnon ${mb(anon.at(-1)!)} MiB, RSS ${mb(sample)} MiB, ${cache.at(-1)!.rows} rows cached, ${requests} requests, ${fiveXX} 5xx`);
}
stop = true;
await Promise.allSettled(conns);
const endIdle = WRITES === "add" ? await idleReading() : null;
await service.stop();
rmSync(dataDir, { recursive: true, force: true });

const third = Math.max(1, Math.floor(anon.length / 3));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const middle = mean(anon.slice(third, 2 * third));
const last = mean(anon.slice(-third));
const growth = last - middle;
const flat = growth <= Math.max(0.1 * middle, 16 * 1024 * 1024);
console.log(`\nsoak (${process.env.STORE ?? "sqlite"} engine, model ${process.env.EMBEDDING_MODEL ?? "default"}, writes ${WRITES}${SKIP.size ? `, without ${[...SKIP].join(", ")}` : ""}): ${MINUTES} min, ${CONNECTIONS} connections, ${requests} requests (${(requests / (MINUTES * 60)).toFixed(0)}/s), ${fiveXX} × 5xx\n`);
printTable(["t (s)", "RssAnon (MiB)", "RSS (MiB)", "rows cached", "cache accounted (MiB)", "requests", "req/s", "5xx", "p50 ms", "p99 ms"], rows);
console.log(`\nrequests by kind: ${[...byName].sort().map(([k, n]) => `${k} ${n}`).join(", ")}`);
console.log(`RssAnon: warm-up end ${mb(anon[third]!)} MiB, middle-third mean ${mb(middle)} MiB, last-third mean ${mb(last)} MiB (${growth >= 0 ? "+" : ""}${mb(growth)} MiB, ${((100 * growth) / middle).toFixed(1)}%): ${flat ? "flat" : "GROWING"}`);
if (WRITES === "add") {
  // least squares over the samples after the warm-up: one reading swings by tens of MB with the
  // garbage of the requests in flight, more than the memories added between two readings hold
  const after = (xs: number[]) => xs.slice(third);
  const rowsAfter = after(cache.map((c) => c.rows));
  const slope = (ys: number[]) => {
    const mx = mean(rowsAfter);
    const my = mean(ys);
    let num = 0;
    let den = 0;
    rowsAfter.forEach((x, i) => {
      num += (x - mx) * (ys[i]! - my);
      den += (x - mx) ** 2;
    });
    return den > 0 ? num / den : NaN;
  };
  const rssPerRow = slope(after(anon));
  const accountedPerRow = slope(after(cache.map((c) => c.bytes)));
  console.log(
    `from the warm-up's end on (${rowsAfter.at(-1)! - rowsAfter[0]!} memories more), per memory cached (least-squares slope over the samples): RssAnon ${rssPerRow.toFixed(0)} B, the cache's accounting ${accountedPerRow.toFixed(0)} B (ratio ${(rssPerRow / accountedPerRow).toFixed(2)})`,
  );
  if (warmedIdle && endIdle) {
    const added = endIdle.rows - warmedIdle.rows;
    const perRow = (a: number, b: number) => (b - a) / added;
    console.log(
      `after ${IDLE_S} s idle: warm-up end RssAnon ${mb(warmedIdle.anon)} MiB with ${warmedIdle.rows} memories cached (${mb(warmedIdle.bytes)} MiB accounted), end ${mb(endIdle.anon)} MiB with ${endIdle.rows} (${mb(endIdle.bytes)} MiB): per memory added, RssAnon ${perRow(warmedIdle.anon, endIdle.anon).toFixed(0)} B, the cache's accounting ${perRow(warmedIdle.bytes, endIdle.bytes).toFixed(0)} B (ratio ${((endIdle.anon - warmedIdle.anon) / (endIdle.bytes - warmedIdle.bytes)).toFixed(2)})`,
    );
    if (warmedIdle.collected !== undefined && endIdle.collected !== undefined) {
      const rss = endIdle.collected - warmedIdle.collected;
      console.log(
        `after a forced collection at each reading: RssAnon ${mb(warmedIdle.collected)} → ${mb(endIdle.collected)} MiB, per memory added ${perRow(warmedIdle.collected, endIdle.collected).toFixed(0)} B (ratio ${(rss / (endIdle.bytes - warmedIdle.bytes)).toFixed(2)})`,
      );
    }
    const [a, b] = [warmedIdle.probe, endIdle.probe];
    if (a && b) {
      // where the growth is, by allocator (memory-probe.ts): the main JS heap, the rest of mimalloc, glibc's malloc
      const parts: [string, (p: ProbeAnswer) => number][] = [
        ["RssAnon", (p) => p.status.RssAnon ?? 0],
        ["main JS heap, live", (p) => p.jsc.heapSize],
        ["main JS heap, held", (p) => p.jsc.heapCapacity],
        ["of which typed arrays' storage", (p) => p.jsc.extraMemorySize],
        ["glibc malloc in use (onnxruntime)", (p) => p.glibc?.inUse ?? 0],
        // mimalloc's own counters are not summed reliably across the threads this load starts and ends
        ["the rest: Bun, SQLite, other threads' heaps, allocator slack", (p) => (p.status.RssAnon ?? 0) - p.jsc.heapCapacity - (p.glibc?.inUse ?? 0)],
      ];
      console.log(`\nper memory added between the two idle readings, by allocator (bytes; the cache's accounting: ${perRow(warmedIdle.bytes, endIdle.bytes).toFixed(0)})\n`);
      printTable(["part", "warm-up end (MiB)", "end (MiB)", "per memory added (B)"], parts.map(([name, of]) => [name, mb(of(a)), mb(of(b)), perRow(of(a), of(b)).toFixed(0)]));
      const grown = Object.keys(b.jsc.types)
        .map((type): [string, number] => [type, perRow(a.jsc.types[type] ?? 0, b.jsc.types[type]!)])
        .sort((x, y) => y[1] - x[1])
        .slice(0, 6);
      console.log(`\nJS objects that grew most, per memory added: ${grown.map(([type, n]) => `${type} ${n.toFixed(2)}`).join(", ")}`);
    }
  }
}
process.exit(fiveXX === 0 && (flat || WRITES === "add") ? 0 : 1);
