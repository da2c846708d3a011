/**
 * Many small wallets through the HTTP API, as users would write them: the service's anonymous
 * memory before and after, and whether every wallet still answers with its own memories.
 *
 *   nice bun scripts/bench/many-wallets.ts [--wallets 10000] [--memories 20] [--cache-mb N]
 *        [--idle 45] [--warmup 250] [--sample 1000] [--concurrency 4] [--auth session|signature]
 *
 * Starts the service as a user does (`bun scripts/start.ts`, the embedded engine, the default model
 * or EMBEDDING_MODEL; CACHE_MAX_MB = --cache-mb when given) on a fresh data directory, on 127.0.0.1.
 * Each wallet: one `POST /v1/store/batch` of --memories synthetic memories (synthetic.ts, seeded by
 * the wallet's number), then one `POST /v1/recall` (limit 10). --concurrency clients run wallets
 * side by side. Anonymous RSS (RssAnon of /proc/<pid>/status) is read after --idle seconds without
 * requests: when the service has started, after --warmup wallets (not counted: they settle the
 * model's, the JIT's and the process-wide bounded caches' first growth), and after the wallets.
 *
 * Then the check: the first wallet, the last and --sample others at random each list their memories
 * (`GET /v1/memories?limit=100`: exactly the ids their batch store answered, the total right) and
 * recall one of them by its own text (`POST /v1/recall`: it comes back, and nothing of another
 * wallet does), whether the cache still holds the wallet or drops others to load it again.
 *
 * What the memory is made of is read inside the service by scripts/bench/memory-probe.ts (JSC's heap,
 * mimalloc, glibc malloc) and from `/metrics` (the cache's own accounting).
 *
 * Auth: `session` (default) gives each wallet a session token (the one `POST /auth/session` answers,
 * minted here with the service's JWT_SECRET: signing 50,000 wallets' headers costs minutes of CPU on
 * both sides); `signature` sends `x-wallet-auth` headers signed per wallet, as the spec's clients do.
 * Either way the service keeps its verified credentials in its bounded caches (10,000 entries).
 *
 * Progress goes to stderr; the table to stdout.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { SessionTokens } from "../../src/auth/session-token.ts";
import { ensureBuiltInModel, isBuiltInModel } from "../../src/embed/built-in-models.ts";
import { BENCH_MODEL, printTable, scrapeCache } from "./bench-util.ts";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import { prng, syntheticMemory, syntheticQuery } from "./synthetic.ts";
import type { ProbeAnswer } from "./memory-probe.ts";
import { spawnProbed } from "./probe-client.ts";

const { values: args } = parseArgs({
  options: {
    wallets: { type: "string", default: "10000" },
    memories: { type: "string", default: "20" },
    "cache-mb": { type: "string" },
    idle: { type: "string", default: "45" },
    warmup: { type: "string", default: "250" },
    sample: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "4" },
    auth: { type: "string", default: "session" },
    port: { type: "string", default: "18790" },
  },
});
const wallets = Number(args.wallets);
const memories = Number(args.memories);
const idle = Number(args.idle);
const warmup = Number(args.warmup);
const sampleSize = Math.min(Number(args.sample), wallets);
const concurrency = Number(args.concurrency);
if (!(wallets >= 1 && memories >= 1 && memories <= 100 && idle >= 0 && warmup >= 0 && concurrency >= 1)) {
  throw new Error("--wallets ≥ 1, --memories 1–100, --idle ≥ 0, --warmup ≥ 0, --concurrency ≥ 1");
}
if (args.auth !== "session" && args.auth !== "signature") throw new Error(`--auth is session or signature; got ${args.auth}`);

const root = resolve(import.meta.dir, "../..");
const cacheDir = join(root, ".cache/models");
const dataDir = mkdtempSync(join(tmpdir(), "engram-many-wallets-"));
const secret = toHex(crypto.getRandomValues(new Uint8Array(32))).slice(2);
const sessions = new SessionTokens(secret);
const base = `http://127.0.0.1:${args.port}`;
const log = (line: string) => process.stderr.write(`[many-wallets] ${line}\n`);
const started = performance.now();

if (isBuiltInModel(BENCH_MODEL)) await ensureBuiltInModel(BENCH_MODEL, cacheDir);
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  DATA_DIR: dataDir,
  MODEL_CACHE_DIR: cacheDir,
  PORT: args.port!,
  HOST: "127.0.0.1",
  JWT_SECRET: secret,
  EMBEDDING_MODEL: BENCH_MODEL,
  LOG_LEVEL: "warn",
};
if (args["cache-mb"]) env.CACHE_MAX_MB = args["cache-mb"];
else delete env.CACHE_MAX_MB;
const { process: server, probe } = spawnProbed(join(root, "scripts/start.ts"), { env });
const stop = () => {
  if (server.exitCode === null) server.kill("SIGTERM");
};
process.on("SIGINT", () => {
  stop();
  process.exit(130);
});

for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/health`)).ok) break;
  } catch {}
  if (server.exitCode !== null) throw new Error(`the service exited (${server.exitCode}); its output is above`);
  if (i > 600) throw new Error("the service did not answer /health within 60 s");
  await Bun.sleep(100);
}
log(`service up (pid ${server.pid}, model ${BENCH_MODEL}${args["cache-mb"] ? `, CACHE_MAX_MB=${args["cache-mb"]}` : ""}), data in ${dataDir}`);

const rssAnon = () => anonymousRss(server.pid) ?? 0;
/** The highest RssAnon seen, sampled every second while wallets are written and checked. */
let peakAnon = 0;
const sampler = setInterval(() => {
  peakAnon = Math.max(peakAnon, rssAnon());
}, 1000);

/** Wallet n's address and credential header: deterministic, so a wallet is asked again without keeping keys. */
async function credential(n: number): Promise<[string, string]> {
  const key = keccak256(toHex(`engram-many-wallets-${n}`));
  if (args.auth === "signature") {
    const account = privateKeyToAccount(key);
    const ts = Math.floor(Date.now() / 1000);
    return ["x-wallet-auth", `${account.address}:${ts}:${await account.signMessage({ message: `service-auth:${ts}` })}`];
  }
  // any address works with a token the service signed; a hash keeps them distinct and realistic
  const address = `0x${key.slice(26)}`;
  const { token } = await sessions.issue(address, Date.now());
  return ["authorization", `Bearer ${token}`];
}

async function call(method: string, path: string, auth: [string, string], body?: unknown): Promise<Record<string, unknown>> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json", [auth[0]]: auth[1] },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.ok) return JSON.parse(text) as Record<string, unknown>;
    // a busy embedding queue answers 503: wait and try again, as a client should
    if (res.status === 503 && attempt < 20) {
      await Bun.sleep(500);
      continue;
    }
    throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  }
}

/** Wallet n's memories: the same every time they are asked for (seeded by n). */
function walletMemories(n: number) {
  const rng = prng(n + 1);
  return Array.from({ length: memories }, () => {
    const s = syntheticMemory(rng);
    return { content: s.content, namespace: s.namespace, memory_type: s.memory_type, importance: s.importance, metadata: { tags: s.tags } };
  });
}

/** The ids each checked wallet's batch store answered (distinct: a duplicate carries the id it merged into). */
const expected = new Map<number, string[]>();
let stored = 0;

async function writeWallet(n: number, keep: boolean): Promise<void> {
  const auth = await credential(n);
  const batch = walletMemories(n);
  const answer = await call("POST", "/v1/store/batch", auth, { memories: batch });
  const ids = answer.ids as string[];
  if (ids.length !== batch.length) throw new Error(`wallet ${n}: ${ids.length} ids for ${batch.length} memories`);
  await call("POST", "/v1/recall", auth, { query: syntheticQuery(prng(-n - 1)), limit: 10 });
  stored += new Set(ids).size;
  if (keep) expected.set(n, [...new Set(ids)]);
}

async function run(from: number, count: number, label: string, keep: (n: number) => boolean): Promise<number> {
  const t0 = performance.now();
  let next = from;
  let done = 0;
  const worker = async () => {
    while (next < from + count) {
      const n = next++;
      await writeWallet(n, keep(n));
      done++;
      if (done % 500 === 0 || done === count) {
        const rate = done / ((performance.now() - t0) / 1000);
        log(`${label} ${done}/${count} wallets, ${rate.toFixed(1)}/s, RssAnon ${mib(rssAnon())} MiB, ETA ${((count - done) / rate / 60).toFixed(1)} min`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - t0) / 1000;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const kib = (bytes: number) => (bytes / 1024).toFixed(1);

/** After --idle s: RssAnon as a user sees it, the probe's reading, then (a diagnosis) the probe's after a forced GC. */
async function settle(label: string): Promise<{ anon: number; probe: ProbeAnswer; collected: ProbeAnswer; cache: CacheScrape }> {
  if (idle > 0) log(`${label}: idle ${idle} s`);
  await Bun.sleep(idle * 1000);
  const anon = rssAnon();
  return { anon, probe: await probe(), cache: await scrapeCache(base), collected: await probe(true) };
}

/** The cache's own accounting, from /metrics; `cap`: what it may hold now (lower than the budget while the process's memory is over its bound). */
type CacheScrape = Awaited<ReturnType<typeof scrapeCache>>;

// ---- the run ----
const start = await settle("started");
// warm-up wallets are numbered past the measured ones
if (warmup > 0) await run(wallets, warmup, "warm-up", () => false);
const before = warmup > 0 ? await settle("after warm-up") : start;
stored = 0;
const rng = prng(99);
const checked = new Set<number>([0, wallets - 1]);
while (checked.size < Math.min(wallets, sampleSize + 2)) checked.add(Math.floor(rng() * wallets));
const writeSeconds = await run(0, wallets, "wallets", (n) => checked.has(n));
const after = await settle("after the wallets");
const afterGc = after.collected;

// ---- the check ----
log(`checking ${checked.size} wallets (first, last and ${checked.size - 2} at random)`);
const failures: string[] = [];
let checks = 0;
for (const n of checked) {
  const ids = expected.get(n)!;
  const auth = await credential(n);
  const list = await call("GET", "/v1/memories?limit=100", auth);
  const listed = (list.memories as { id: string }[]).map((m) => m.id);
  const own = new Set(ids);
  if (list.total !== ids.length || listed.length !== ids.length || !listed.every((id) => own.has(id))) {
    failures.push(`wallet ${n}: list has ${listed.length} (total ${list.total}), expected ${ids.length}`);
  }
  const batch = walletMemories(n);
  const probeText = batch[0]!.content;
  const recall = await call("POST", "/v1/recall", auth, { query: probeText, limit: 10 });
  const found = recall.memories as { id: string; content: string }[];
  if (!found.some((m) => m.content === probeText)) failures.push(`wallet ${n}: recall of its own memory did not return it`);
  const foreign = found.filter((m) => !own.has(m.id));
  if (foreign.length) failures.push(`wallet ${n}: recall returned ${foreign.length} memories of another wallet`);
  checks++;
  if (checks % 200 === 0) log(`checked ${checks}/${checked.size}, RssAnon ${mib(rssAnon())} MiB`);
}
const checkedAnon = rssAnon();
clearInterval(sampler);
const afterCheck = await settle("after the check");
stop();
await server.exited;
rmSync(dataDir, { recursive: true, force: true });

// ---- the table ----
const budget = args["cache-mb"] ? Number(args["cache-mb"]) * 2 ** 20 : 1024 * 2 ** 20;
const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
const cacheBytes = (c: CacheScrape) => sum(c.bytes);
const perWallet = (a: number, b: number) => `${kib((a - b) / wallets)} KiB`;
console.log(`\n${wallets.toLocaleString("en")} wallets × ${memories} memories (${stored.toLocaleString("en")} stored), model ${BENCH_MODEL}, CACHE_MAX_MB ${budget / 2 ** 20}${args["cache-mb"] ? "" : " (default)"}, auth ${args.auth}, ${concurrency} clients, idle ${idle} s before each reading; written in ${(writeSeconds / 60).toFixed(1)} min, whole run ${((performance.now() - started) / 60_000).toFixed(1)} min\n`);
printTable(
  ["reading (MiB)", "RssAnon", "cache accounted (/metrics)", "cache cap", "wallets cached", "main JS heap live / held", "of which typed arrays' storage", "mimalloc in use (Bun, JS heaps, SQLite)", "mimalloc in use beyond the main JS heap", "glibc malloc in use / held (onnxruntime)", "LazyFree"],
  [
    ["service started", start],
    [`after ${warmup} warm-up wallets`, before],
    [`after ${wallets.toLocaleString("en")} wallets`, after],
    [`after the check`, afterCheck],
  ].map(([label, r]) => {
    const { anon, probe: p, cache } = r as Awaited<ReturnType<typeof settle>>;
    return [
      label as string,
      mib(anon),
      mib(cacheBytes(cache)),
      mib(cache.cap),
      String(cache.wallets),
      `${mib(p.jsc.heapSize)} / ${mib(p.jsc.heapCapacity)}`,
      mib(p.jsc.extraMemorySize),
      mib(p.mimalloc.inUse),
      mib(p.mimalloc.inUse - p.jsc.heapCapacity),
      p.glibc ? `${mib(p.glibc.inUse)} / ${mib(p.glibc.system + p.glibc.mmap)}` : "—",
      mib(p.rollup.LazyFree ?? 0),
    ];
  }),
);
console.log("");
printTable(
  ["measure", "value"],
  [
    ["anonymous RSS growth per wallet, from the started service", perWallet(after.anon, start.anon)],
    [`anonymous RSS growth per wallet, after the warm-up`, perWallet(after.anon, before.anon)],
    ["JSC heap growth per wallet (live), after the warm-up", perWallet(after.probe.jsc.heapSize, before.probe.jsc.heapSize)],
    ["the cache's accounting per cached wallet", `${kib((cacheBytes(after.cache) - cacheBytes(before.cache)) / Math.max(1, after.cache.wallets - before.cache.wallets))} KiB`],
    ["peak RssAnon (1 s samples while writing and checking)", `${mib(peakAnon)} MiB`],
    ["RssAnon after a forced GC", `${mib(afterGc.status.RssAnon ?? 0)} MiB (JSC heap ${mib(afterGc.jsc.heapSize)} / ${mib(afterGc.jsc.heapCapacity)} MiB)`],
    ["RssAnon right after the check, and after idle", `${mib(checkedAnon)} → ${mib(afterCheck.anon)} MiB (${afterCheck.cache.wallets} wallets cached)`],
    ...(
      [
        ["the started service", start.anon],
        ["the service after the warm-up", before.anon],
      ] as const
    ).map(([label, baseline]) => {
      const limit = budget + baseline;
      const verdict = (anon: number) => `${mib(anon)} ${anon <= limit ? "within" : "**over**"}`;
      return [`budget + baseline (${label}): ${mib(limit)} MiB`, `after the wallets ${verdict(after.anon)}, after the check ${verdict(afterCheck.anon)} (idle ${idle} s); peak ${verdict(peakAnon)}`];
    }),
    ["wallets checked (list + recall of their own memory)", `${checks}, ${failures.length ? `**${failures.length} failures**` : "all correct"}`],
  ],
);
console.log("\nthe cache's accounting by part after the wallets (/metrics engram_cache_bytes), and the JS objects that grew most per wallet\n");
const types = Object.entries(afterGc.jsc.types)
  .map(([t, n]): [string, number] => [t, n - (before.collected.jsc.types[t] ?? 0)])
  .sort((a, b) => b[1] - a[1])
  .slice(0, 8);
printTable(
  ["cache part", "MiB", "", "JS object type", "per wallet"],
  Array.from({ length: Math.max(Object.keys(after.cache.bytes).length, types.length) }, (_, i) => {
    const part = Object.entries(after.cache.bytes)[i];
    const type = types[i];
    return [part?.[0] ?? "", part ? mib(part[1]) : "", "", type?.[0] ?? "", type ? (type[1] / wallets).toFixed(2) : ""];
  }),
);
console.log("\nmimalloc in use by block size: the sizes that grew most from the warm-up to after the wallets\n");
const bins = (p: ProbeAnswer) => p.mimalloc.bins;
const grown = Object.keys({ ...bins(after.probe), ...bins(before.probe) })
  .map((size): [string, number] => [size, (bins(after.probe)[Number(size)] ?? 0) - (bins(before.probe)[Number(size)] ?? 0)])
  .sort((a, b) => b[1] - a[1])
  .slice(0, 8);
printTable(
  ["block size (bytes)", "growth (MiB)", "after the wallets (MiB)", "then after a forced GC (MiB)"],
  grown.map(([size, growth]) => [size, mib(growth), mib(bins(after.probe)[Number(size)] ?? 0), mib(bins(after.collected)[Number(size)] ?? 0)]),
);
if (failures.length) {
  console.log(`\n${failures.length} wallets answered wrongly; the first ones:\n${failures.slice(0, 10).join("\n")}`);
  process.exit(1);
}
