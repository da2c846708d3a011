/**
 * What a memory added through the service costs, in process: the HTTP app (createApp + buildDeps,
 * requests through app.handle, no sockets), the default model and the embedded engine, next to the
 * cache's own accounting. Where `scripts/soak.ts --writes add` reads one process from outside, this
 * reads the process itself, after forced collections: anonymous RSS, the JS heap, and (--snapshot)
 * the typed arrays' storage by class from heap snapshots, which tells live memory from memory the
 * allocators hold after freeing it.
 *
 *   bun scripts/bench/service-growth.ts [--wallets 8] [--start 3000] [--add 3000] [--mix soak|stores] [--connections 16] [--snapshot]
 *
 * Fills --wallets wallets to --start memories each, reads, adds --add more to each, reads again.
 * `--mix stores`: batch stores of 20 and a recall after each; `--mix soak`: the request mix of
 * scripts/soak.ts --writes add (half batch stores of 20, half one request each of the other kinds,
 * exports of the whole wallet included), over --connections concurrent loops.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heapStats } from "bun:jsc";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import type { VectorIndex } from "../../src/store/sqlite/vector-index.ts";
import { printTable, sentence } from "./bench-util.ts";
import { inProcessService } from "./in-process-service.ts";

const { values: args } = parseArgs({
  options: {
    wallets: { type: "string", default: "8" },
    start: { type: "string", default: "3000" },
    add: { type: "string", default: "3000" },
    mix: { type: "string", default: "soak" },
    connections: { type: "string", default: "16" },
    snapshot: { type: "boolean", default: false },
  },
});
const [WALLETS, START, ADD, CONNECTIONS] = [args.wallets, args.start, args.add, args.connections].map(Number) as [number, number, number, number];
if (!(WALLETS >= 1 && START >= 20 && ADD >= 20 && CONNECTIONS >= 1) || !["soak", "stores"].includes(args.mix!)) {
  throw new Error("--wallets ≥ 1, --start ≥ 20, --add ≥ 20, --connections ≥ 1, --mix soak or stores");
}
const log = (line: string) => process.stderr.write(`[service-growth] ${line}\n`);
const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

const dir = mkdtempSync(join(tmpdir(), "engram-service-growth-"));
const service = await inProcessService(dir, (settings) => ({ vectorIndex: { maxCachedBytes: settings.CACHE_MAX_MB * 2 ** 20, boundRss: true } }));
const vectors = (service.store as unknown as { vectors: VectorIndex }).vectors;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<string> {
  const res = await service.handle(method, path, headers, body);
  const text = await res.text();
  if (res.status >= 500 || (res.status >= 300 && method === "POST" && path.startsWith("/v1/store"))) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

interface Wallet {
  headers: Record<string, string>;
  /** a few of its memory ids, for the requests that name one */
  ids: string[];
}
const wallets: Wallet[] = [];
for (let w = 0; w < WALLETS; w++) wallets.push({ headers: await service.session(), ids: [] });

let counter = 0;
const content = () => `${sentence(++counter)} (soak ${counter} ${crypto.randomUUID().slice(0, 8)})`;
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const batch = (): [string, string, unknown] => ["POST", "/v1/store/batch", { memories: Array.from({ length: 20 }, () => ({ content: content() })) }];

/** One request of scripts/soak.ts's `--writes add` mix (deletes and the rejected store left out). */
function soakRequest(wallet: Wallet): [string, string, unknown?] {
  if (Math.random() < 0.5 || wallet.ids.length === 0) return batch();
  const id = pick(wallet.ids);
  const other = pick(wallet.ids);
  return pick<[string, string, unknown?]>([
    ["POST", "/v1/store", { content: content(), metadata: { tags: ["soak"] } }],
    ["POST", "/v1/recall", { query: sentence(Math.floor(Math.random() * 500)), limit: 10, include_relations: true }],
    ["POST", "/v1/search", { query: pick(["deploy", "database", "team", "billing", "tests"]), limit: 10 }],
    ["POST", "/v1/context", { query: "what do we know", max_tokens: 1000 }],
    ["GET", `/v1/memories?limit=20&offset=${Math.floor(Math.random() * 40)}`],
    ["GET", `/v1/memories/${id}`],
    ["PATCH", `/v1/memories/${id}`, { importance: Math.round(Math.random() * 100) / 100 }],
    ["PATCH", "/v1/memories/batch", { updates: [{ id, importance: 0.6 }, { id: other, pinned: Math.random() < 0.5 }] }],
    ["GET", `/v1/memories/${id}/history`],
    ["POST", `/v1/memories/${id}/relations`, { target_id: other, relation_type: pick(["related_to", "supports", "contradicts"]) }],
    ["GET", `/v1/memories/${id}/relations`],
    ["POST", "/v1/memories/core", { memory_id: id }],
    ["GET", "/v1/memories/core"],
    ["GET", "/v1/stats"],
    ["GET", "/v1/namespaces"],
    ["GET", "/v1/export?format=csv"],
    ["GET", "/v1/suggested"],
    ["GET", `/v1/graph?memory_id=${id}`],
    ["POST", "/v1/extract", { text: "I prefer tea over coffee. We decided to deploy on Fridays." }],
    ["POST", "/v1/ingest", { messages: [{ role: "user", content: `${content()} I always use tabs.` }] }],
  ]);
}

async function request(wallet: Wallet, [method, path, body]: [string, string, unknown?]): Promise<void> {
  const text = await call(method, path, wallet.headers, body);
  // a few ids per wallet are enough to name memories (all of them would grow this process's heap)
  if (path === "/v1/store/batch" && wallet.ids.length < 100) wallet.ids.push(...(JSON.parse(text) as { ids: string[] }).ids.slice(0, 1));
}

/** Requests until every wallet holds `rows` memories (the cache's row count). */
async function growTo(rows: number): Promise<void> {
  let reported = 0;
  const loop = async (c: number) => {
    const wallet = wallets[c % WALLETS]!;
    while (vectors.cached().rows < rows * WALLETS) {
      if (args.mix === "stores") {
        await request(wallet, batch());
        await request(wallet, ["POST", "/v1/recall", { query: sentence(Math.floor(Math.random() * 500)), limit: 10 }]);
      } else await request(wallet, soakRequest(wallet));
      const cached = vectors.cached().rows;
      if (cached - reported >= 5000) log(`${(reported = cached)} memories cached, RssAnon ${MiB(anonymousRss() ?? 0)} MiB`);
    }
  };
  await Promise.all(Array.from({ length: args.mix === "stores" ? WALLETS : CONNECTIONS }, (_, c) => loop(c)));
}

interface Reading {
  rows: number;
  accounted: number;
  anon: number;
  /** RssAnon after Bun.shrink() (the allocators asked to return free pages) */
  shrunk: number;
  heap: number;
  typedArrays: number;
  /** storage of typed arrays and buffers by class, from a heap snapshot (with --snapshot) */
  byClass: Map<string, number>;
}

const TYPED = /^(Int|Uint|Float|BigInt|BigUint)\d+(Clamped)?Array$|^(Shared)?ArrayBuffer$/;

async function reading(): Promise<Reading> {
  await Bun.sleep(3000);
  for (let i = 0; i < 3; i++) {
    Bun.gc(true);
    await Bun.sleep(300);
  }
  const stats = heapStats();
  const anon = anonymousRss() ?? 0;
  Bun.shrink();
  await Bun.sleep(1500);
  const shrunk = anonymousRss() ?? 0;
  const byClass = new Map<string, number>();
  if (args.snapshot) {
    // JSC's snapshot: nodes are [id, size, class index, flags]; a typed array's size includes its storage
    const snap = Bun.generateHeapSnapshot() as unknown as { nodes: number[]; nodeClassNames: string[] };
    for (let i = 0; i < snap.nodes.length; i += 4) {
      const name = snap.nodeClassNames[snap.nodes[i + 2]!]!;
      if (TYPED.test(name)) byClass.set(name, (byClass.get(name) ?? 0) + snap.nodes[i + 1]!);
    }
  }
  const { rows, bytes } = vectors.cached();
  return { rows, accounted: bytes, anon, shrunk, heap: stats.heapSize, typedArrays: stats.extraMemorySize, byClass };
}

await growTo(START);
const before = await reading();
log(`read at ${before.rows} memories: RssAnon ${MiB(before.anon)} MiB, ${MiB(before.accounted)} MiB accounted`);
await growTo(START + ADD);
const after = await reading();
const accountedParts = vectors.memory();
await service.close();
rmSync(dir, { recursive: true, force: true });

const added = after.rows - before.rows;
const perRow = (of: (r: Reading) => number) => (of(after) - of(before)) / added;
const accounted = perRow((r) => r.accounted);
const line = (name: string, of: (r: Reading) => number): string[] => [name, MiB(of(before)), MiB(of(after)), perRow(of).toFixed(0), (perRow(of) / accounted).toFixed(2)];
console.log(`\n${WALLETS} wallets, ${before.rows} → ${after.rows} memories (mix ${args.mix}), read after forced collections; per memory added:\n`);
printTable(["part", "first reading (MiB)", "second (MiB)", "per memory added (B)", "× the accounting"], [
  line("the cache's accounting", (r) => r.accounted),
  line("RssAnon", (r) => r.anon),
  line("RssAnon after Bun.shrink()", (r) => r.shrunk),
  line("JS heap, live", (r) => r.heap),
  line("of which typed arrays' storage", (r) => r.typedArrays),
  ...[...after.byClass.keys()].sort().map((name) => line(`  ${name} (heap snapshot)`, (r) => r.byClass.get(name) ?? 0)),
]);
console.log(`\nthe accounting at the end, by part (MiB): ${Object.entries(accountedParts).map(([part, bytes]) => `${part} ${MiB(bytes)}`).join(", ")}`);
process.exit(0);
