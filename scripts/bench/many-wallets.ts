/**
 * Many small wallets through the HTTP API, as users would write them: what the service's anonymous
 * memory grows by per wallet and per memory, whether it stays within CACHE_MAX_MB while wallets
 * come and go, and whether every wallet still answers with its own memories.
 *
 *   nice bun scripts/bench/many-wallets.ts [--first 1000] [--more 2000] [--soak 300] [--churn 0]
 *        [--memories 20] [--cache-mb 1024] [--idle 45] [--sample 1000] [--concurrency 4]
 *        [--auth session|signature] [--smaps]
 *   nice bun scripts/bench/many-wallets.ts --first 0 --more 0 --soak 0 --churn 50000 --cache-mb 256
 *
 * A phase of 0 is skipped. The first command measures phases 1–3 below (the default budget holds
 * every wallet: a soak measured while the cache drops wallets would say little), the second the
 * churn. Quick runs: `--more 1000 --soak 60 --idle 30` and `--churn 5000 --cache-mb 32`.
 *
 * Starts the service as a user does (`bun scripts/start.ts`, the embedded engine, the default model
 * or EMBEDDING_MODEL, CACHE_MAX_MB = --cache-mb) on a fresh data directory, on 127.0.0.1. A wallet
 * is written as: one `POST /v1/store/batch` of --memories synthetic memories (synthetic.ts, seeded by
 * the wallet's number), then one `POST /v1/recall` (limit 10); --concurrency clients write wallets
 * side by side. Anonymous RSS (RssAnon of /proc/<pid>/status) is read after --idle seconds without
 * requests at the end of each phase:
 *
 * 1. **first**: --first wallets into the started service. Their growth in all (the cache, and what
 *    the process grows by once: the model's runtime, the JIT, the heaps' first capacity).
 * 2. **more**: --more wallets. The slope (after more − after first) / more is what one more wallet
 *    costs once the process has settled.
 * 3. **soak**: --soak seconds of mixed requests by --concurrency clients over the wallets of 1–2,
 *    each request for a wallet at random: batch stores of 5 (25%), single stores (15%), recalls
 *    (25%), keyword searches (10%), list pages (10%), gets, importance patches and deletes of a
 *    memory the soak stored (5% each). The growth per memory the soak stored (the ids its stores
 *    answered that the wallet did not hold).
 * 4. **churn**: --churn wallets more, beyond what --cache-mb holds (~14 KiB per wallet by the
 *    cache's accounting), so the cache drops the least recently used ones as others load: RssAnon
 *    sampled every second while they are written, against the started service + CACHE_MAX_MB (the
 *    bound rss-watch.ts holds) and that + 25%.
 *
 * Then the check: the first wallet, the last and --sample others at random of every phase each list
 * their memories (`GET /v1/memories`: exactly the ids their stores answered, less those the soak
 * deleted, and the total right) and recall their first memory by its text (`POST /v1/recall`: it
 * comes back, and nothing of another wallet does), whether the cache still holds the wallet or
 * loads it again.
 *
 * What the memory is made of is read inside the service by scripts/bench/memory-probe.ts (JSC's heap,
 * mimalloc and glibc malloc as they count themselves), with --smaps also by what each holds resident
 * in the service's `/proc/<pid>/smaps`, parsed here (mimalloc's own "in use" is kept per thread and
 * reads high once workers have run; off by default, as locating mimalloc's arenas allocates in the
 * service), and from `/metrics` (the cache's own accounting), at each reading and again
 * after a forced collection (a diagnosis: the figures are the readings before it); the service's CPU
 * per wallet and per soak request, by thread, from /proc (the cost side).
 *
 * Auth: `session` (default) gives each wallet a session token (the one `POST /auth/session` answers,
 * minted here with the service's JWT_SECRET: signing 50,000 wallets' headers costs minutes of CPU on
 * both sides); `signature` sends `x-wallet-auth` headers signed per wallet, as the spec's clients do.
 * Either way the service keeps its verified credentials in its bounded caches (10,000 entries).
 *
 * Progress goes to stderr; the tables to stdout.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { SessionTokens } from "../../src/auth/session-token.ts";
import { ensureBuiltInModel, isBuiltInModel } from "../../src/embed/built-in-models.ts";
import { BENCH_MODEL, cpuByName, printTable, scrapeCache, threadCpu } from "./bench-util.ts";
import { anonymousRss } from "../../src/store/sqlite/rss-watch.ts";
import { prng, syntheticMemory, syntheticQuery, type Rng } from "./synthetic.ts";
import { smapsByAllocator, type ProbeAnswer, type SmapsByAllocator } from "./memory-probe.ts";
import { spawnProbed } from "./probe-client.ts";

const { values: args } = parseArgs({
  options: {
    first: { type: "string", default: "1000" },
    more: { type: "string", default: "2000" },
    soak: { type: "string", default: "300" },
    churn: { type: "string", default: "0" },
    memories: { type: "string", default: "20" },
    "cache-mb": { type: "string", default: "1024" },
    idle: { type: "string", default: "45" },
    sample: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "4" },
    auth: { type: "string", default: "session" },
    port: { type: "string", default: "18790" },
    smaps: { type: "boolean", default: false },
  },
});
const first = Number(args.first);
const more = Number(args.more);
const soakSeconds = Number(args.soak);
const churn = Number(args.churn);
const memories = Number(args.memories);
const cacheMb = Number(args["cache-mb"]);
const idle = Number(args.idle);
const concurrency = Number(args.concurrency);
const wallets = first + more + churn;
if (![first, more, soakSeconds, churn, idle].every((n) => Number.isInteger(n) && n >= 0) || wallets < 1 || !(memories >= 1 && memories <= 100) || !(cacheMb >= 1) || !(concurrency >= 1)) {
  throw new Error("--first, --more, --soak, --churn, --idle ≥ 0 (whole numbers, some wallets), --memories 1–100, --cache-mb ≥ 1, --concurrency ≥ 1");
}
if (soakSeconds > 0 && first + more === 0) throw new Error("--soak needs wallets to soak: --first or --more > 0");
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
  CACHE_MAX_MB: String(cacheMb),
  // the soak and the check call paid endpoints more than the free calls allow
  FREE_TIER_CALLS: "100000000",
  LOG_LEVEL: "warn",
};
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
log(`service up (pid ${server.pid}, model ${BENCH_MODEL}, CACHE_MAX_MB=${cacheMb}), data in ${dataDir}`);

const rssAnon = () => anonymousRss(server.pid) ?? 0;
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const kib = (bytes: number) => (bytes / 1024).toFixed(1);

/** Wallet n's credential header, minted once: deterministic, so a wallet is asked again without keeping keys. */
const credentials = new Map<number, [string, string]>();
async function credential(n: number): Promise<[string, string]> {
  const known = credentials.get(n);
  if (known) return known;
  const key = keccak256(toHex(`engram-many-wallets-${n}`));
  let auth: [string, string];
  if (args.auth === "signature") {
    const account = privateKeyToAccount(key);
    const ts = Math.floor(Date.now() / 1000);
    auth = ["x-wallet-auth", `${account.address}:${ts}:${await account.signMessage({ message: `service-auth:${ts}` })}`];
  } else {
    // any address works with a token the service signed; a hash keeps them distinct and realistic
    const { token } = await sessions.issue(`0x${key.slice(26)}`, Date.now());
    auth = ["authorization", `Bearer ${token}`];
  }
  // the soak's and the check's wallets are asked again; a signature expires, a token lasts the run
  if (n < first + more || checked.has(n)) credentials.set(n, auth);
  return auth;
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

type StoreItem = { content: string; namespace: string; memory_type: string; importance: number; metadata: { tags: string[] } };
const storeItem = (rng: Rng): StoreItem => {
  const s = syntheticMemory(rng);
  return { content: s.content, namespace: s.namespace, memory_type: s.memory_type, importance: s.importance, metadata: { tags: s.tags } };
};

/** Wallet n's first memories: the same every time they are asked for (seeded by n). */
function walletMemories(n: number): StoreItem[] {
  const rng = prng(n + 1);
  return Array.from({ length: memories }, () => storeItem(rng));
}

/** Wallets the check reads: the first and last of each phase's and --sample at random (chosen before any is written). */
const checked = new Set<number>();
{
  const rng = prng(99);
  const ranges = [
    [0, first],
    [first, first + more],
    [first + more, wallets],
  ].filter(([from, to]) => to! > from!);
  for (const [from, to] of ranges) checked.add(from!).add(to! - 1);
  const sample = Math.min(Number(args.sample), wallets);
  while (checked.size < Math.min(wallets, sample + 2 * ranges.length)) checked.add(Math.floor(rng() * wallets));
}

/**
 * The ids each wallet holds (distinct: a duplicate carries the id it merged into), kept for the
 * wallets the soak writes to and those the check reads; `soaked`: those the soak added (the ones it may delete).
 */
const held = new Map<number, { ids: Set<string>; first: string[]; soaked: string[] }>();
let stored = 0;

async function writeWallet(n: number): Promise<void> {
  const auth = await credential(n);
  const batch = walletMemories(n);
  const answer = await call("POST", "/v1/store/batch", auth, { memories: batch });
  const ids = answer.ids as string[];
  if (ids.length !== batch.length) throw new Error(`wallet ${n}: ${ids.length} ids for ${batch.length} memories`);
  await call("POST", "/v1/recall", auth, { query: syntheticQuery(prng(-n - 1)), limit: 10 });
  stored += new Set(ids).size;
  if (n < first + more || checked.has(n)) held.set(n, { ids: new Set(ids), first: [...new Set(ids)], soaked: [] });
}

/** 1 s samples of RssAnon while a phase runs (the churn's are the figure). */
let samples: number[] = [];
const sampler = setInterval(() => samples.push(rssAnon()), 1000);

/** The service's CPU by thread name over each phase (ms), and what each phase did: the cost side of the memory figures. */
const phaseCpu: { label: string; units: number; unit: string; seconds: number; cpu: Map<string, number> }[] = [];
async function timed<T>(label: string, unit: string, work: () => Promise<T>, units: (result: T) => number): Promise<T> {
  const before = threadCpu(server.pid!);
  const t0 = performance.now();
  const result = await work();
  phaseCpu.push({ label, unit, units: units(result), seconds: (performance.now() - t0) / 1000, cpu: cpuByName(before, threadCpu(server.pid!)) });
  return result;
}

async function run(from: number, count: number, label: string): Promise<number> {
  const t0 = performance.now();
  let next = from;
  let done = 0;
  const step = Math.max(100, Math.min(2500, Math.round(count / 10 / 100) * 100));
  const worker = async () => {
    while (next < from + count) {
      await writeWallet(next++);
      done++;
      if (done % step === 0 || done === count) {
        const rate = done / ((performance.now() - t0) / 1000);
        const cache = await scrapeCache(base);
        log(`${label} ${done}/${count} wallets, ${rate.toFixed(1)}/s, RssAnon ${mib(rssAnon())} MiB, cache ${mib(cacheBytes(cache))} / ${mib(cache.cap)} MiB (${cache.wallets} wallets), ETA ${((count - done) / rate / 60).toFixed(1)} min`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - t0) / 1000;
}

/** The soak: requests for the wallets 0 … first + more at random, until `seconds` have passed. */
async function soak(seconds: number): Promise<{ requests: number; stored: number; deleted: number; byKind: Map<string, number> }> {
  const rng = prng(7);
  const byKind = new Map<string, number>();
  let requests = 0;
  let soakStored = 0;
  let deleted = 0;
  const end = performance.now() + seconds * 1000;
  const pickWallet = () => Math.floor(rng() * (first + more));
  const kinds: [number, string][] = [
    [25, "store batch"],
    [15, "store"],
    [25, "recall"],
    [10, "search"],
    [10, "list"],
    [5, "get"],
    [5, "patch"],
    [5, "delete"],
  ];
  const kindOf = () => {
    let r = rng() * 100;
    for (const [weight, kind] of kinds) if ((r -= weight) < 0) return kind;
    return "recall";
  };
  const added = (wallet: { ids: Set<string>; soaked: string[] }, ids: string[]) => {
    for (const id of ids) {
      if (wallet.ids.has(id)) continue;
      wallet.ids.add(id);
      wallet.soaked.push(id);
      soakStored++;
    }
  };
  let lastLog = performance.now();
  const client = async () => {
    while (performance.now() < end) {
      const n = pickWallet();
      const wallet = held.get(n)!;
      const auth = await credential(n);
      let kind = kindOf();
      // gets and patches read the wallet's first memories, which no client deletes
      const anyId = () => wallet.first[Math.floor(rng() * wallet.first.length)]!;
      if (kind === "delete" && wallet.soaked.length === 0) kind = "store";
      if (kind === "store batch") {
        const answer = await call("POST", "/v1/store/batch", auth, { memories: Array.from({ length: 5 }, () => storeItem(rng)) });
        added(wallet, answer.ids as string[]);
      } else if (kind === "store") {
        const answer = await call("POST", "/v1/store", auth, storeItem(rng));
        added(wallet, [answer.id as string]);
      } else if (kind === "recall") await call("POST", "/v1/recall", auth, { query: syntheticQuery(rng), limit: 10 });
      else if (kind === "search") await call("POST", "/v1/search", auth, { query: syntheticQuery(rng), limit: 10 });
      else if (kind === "list") await call("GET", `/v1/memories?limit=20&offset=${Math.floor(rng() * 10)}`, auth);
      else if (kind === "get") await call("GET", `/v1/memories/${anyId()}`, auth);
      else if (kind === "patch") await call("PATCH", `/v1/memories/${anyId()}`, auth, { importance: Math.round(rng() * 100) / 100 });
      else {
        const id = wallet.soaked.splice(Math.floor(rng() * wallet.soaked.length), 1)[0]!;
        await call("DELETE", `/v1/memories/${id}`, auth);
        wallet.ids.delete(id);
        deleted++;
      }
      requests++;
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      if (performance.now() - lastLog >= 30_000) {
        lastLog = performance.now();
        const cache = await scrapeCache(base);
        log(`soak ${((seconds * 1000 - (end - lastLog)) / 1000).toFixed(0)}/${seconds} s, ${requests} requests, ${soakStored} memories stored, ${deleted} deleted, RssAnon ${mib(rssAnon())} MiB, cache ${mib(cacheBytes(cache))} MiB (${cache.rows} rows)`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { requests, stored: soakStored, deleted, byKind };
}

type CacheScrape = Awaited<ReturnType<typeof scrapeCache>>;
const cacheBytes = (c: CacheScrape) => Object.values(c.bytes).reduce((a, b) => a + b, 0);
type Reading = { label: string; anon: number; probe: ProbeAnswer; smaps: (SmapsByAllocator & { rssAnon: number }) | null; collected: ProbeAnswer; cache: CacheScrape };

/** The service's anonymous pages by allocator, and its RssAnon right after reading them. */
function smapsOfService(blocks: string[]): SmapsByAllocator & { rssAnon: number } {
  const smaps = smapsByAllocator(readFileSync(`/proc/${server.pid}/smaps`, "utf8"), blocks);
  return { ...smaps, rssAnon: rssAnon() };
}

/** After --idle s: RssAnon as a user sees it, the probe's reading, then (a diagnosis) the probe's after a forced GC. */
async function settle(label: string): Promise<Reading> {
  if (idle > 0) log(`${label}: idle ${idle} s`);
  await Bun.sleep(idle * 1000);
  const anon = rssAnon();
  const answer = await probe(false, args.smaps);
  const smaps = args.smaps ? smapsOfService(answer.mimallocBlocks) : null;
  const reading = { label, anon, probe: answer, smaps, cache: await scrapeCache(base), collected: await probe(true) };
  log(`${label}: RssAnon ${mib(anon)} MiB, cache ${mib(cacheBytes(reading.cache))} MiB (${reading.cache.wallets} wallets)`);
  return reading;
}

// ---- the run ----
const readings: Reading[] = [];
const start = await settle("service started");
readings.push(start);
let afterFirst: Reading | null = null;
let afterMore: Reading | null = null;
if (first > 0) {
  await timed("first", "wallet", () => run(0, first, "first"), () => first);
  readings.push((afterFirst = await settle(`after the first ${first.toLocaleString("en")} wallets`)));
}
if (more > 0) {
  await timed("more", "wallet", () => run(first, more, "more"), () => more);
  readings.push((afterMore = await settle(`after ${more.toLocaleString("en")} more`)));
}
const beforeSoak = readings.at(-1)!;
let soaked: Awaited<ReturnType<typeof soak>> | null = null;
let afterSoak: Reading | null = null;
if (soakSeconds > 0) {
  log(`soak: ${soakSeconds} s of mixed requests over ${(first + more).toLocaleString("en")} wallets`);
  soaked = await timed("soak", "request", () => soak(soakSeconds), (r) => r.requests);
  readings.push((afterSoak = await settle(`after the soak (${soakSeconds} s)`)));
}
let churnSamples: number[] = [];
let afterChurn: Reading | null = null;
if (churn > 0) {
  samples = [];
  await timed("churn", "wallet", () => run(first + more, churn, "churn"), () => churn);
  churnSamples = samples;
  readings.push((afterChurn = await settle(`after churning ${churn.toLocaleString("en")} wallets`)));
}

// ---- the check ----
log(`checking ${checked.size} wallets`);
samples = [];
const failures: string[] = [];
let checks = 0;
for (const n of checked) {
  const own = held.get(n)!.ids;
  const auth = await credential(n);
  const listed: string[] = [];
  let total = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await call("GET", `/v1/memories?limit=100&offset=${offset}`, auth);
    total = page.total as number;
    listed.push(...(page.memories as { id: string }[]).map((m) => m.id));
    if ((page.memories as unknown[]).length < 100) break;
  }
  if (total !== own.size || listed.length !== own.size || !listed.every((id) => own.has(id))) {
    failures.push(`wallet ${n}: list has ${listed.length} (total ${total}), expected ${own.size}`);
  }
  const probeText = walletMemories(n)[0]!.content;
  const recall = await call("POST", "/v1/recall", auth, { query: probeText, limit: 10 });
  const found = recall.memories as { id: string; content: string }[];
  if (!found.some((m) => m.content === probeText)) failures.push(`wallet ${n}: recall of its own memory did not return it`);
  const foreign = found.filter((m) => !own.has(m.id));
  if (foreign.length) failures.push(`wallet ${n}: recall returned ${foreign.length} memories of another wallet`);
  checks++;
  if (checks % 200 === 0) log(`checked ${checks}/${checked.size}, RssAnon ${mib(rssAnon())} MiB`);
}
const checkPeak = Math.max(0, ...samples);
readings.push(await settle("after the check"));
clearInterval(sampler);
stop();
await server.exited;
rmSync(dataDir, { recursive: true, force: true });

// ---- the tables ----
const budget = cacheMb * 2 ** 20;
console.log(
  `\n${wallets.toLocaleString("en")} wallets × ${memories} memories (${stored.toLocaleString("en")} stored by their batches): first ${first.toLocaleString("en")}, more ${more.toLocaleString("en")}, soak ${soakSeconds} s, churn ${churn.toLocaleString("en")}; model ${BENCH_MODEL}, CACHE_MAX_MB ${cacheMb}, auth ${args.auth}, ${concurrency} clients, idle ${idle} s before each reading; whole run ${((performance.now() - started) / 60_000).toFixed(1)} min\n`,
);
const verdict = (ok: boolean) => (ok ? "met" : "**not met**");
const figures: string[][] = [];
if (afterFirst) {
  const grown = afterFirst.anon - start.anon;
  figures.push([`the first ${first.toLocaleString("en")} wallets: RssAnon growth in all`, `${mib(grown)} MiB (${kib(grown / first)} KiB a wallet)`, "≤ 52 MiB for 1,000", first === 1000 ? verdict(grown <= 52 * 2 ** 20) : "—"]);
}
if (afterFirst && afterMore) {
  const slope = (afterMore.anon - afterFirst.anon) / more;
  figures.push([`each of ${more.toLocaleString("en")} more wallets (the slope between the two readings)`, `${kib(slope)} KiB (the cache's accounting: ${kib((cacheBytes(afterMore.cache) - cacheBytes(afterFirst.cache)) / more)} KiB)`, "≤ 20 KiB", verdict(slope <= 20 * 1024)]);
}
if (soaked && afterSoak) {
  const grown = afterSoak.anon - beforeSoak.anon;
  const perStored = grown / soaked.stored;
  const rows = afterSoak.cache.rows - beforeSoak.cache.rows;
  figures.push([
    `the soak: RssAnon growth per memory stored (${soaked.stored.toLocaleString("en")} stored, ${soaked.deleted.toLocaleString("en")} deleted, ${soaked.requests.toLocaleString("en")} requests)`,
    `${perStored.toFixed(0)} B (${mib(grown)} MiB; per memory the cache gained: ${(grown / rows).toFixed(0)} B, its accounting ${((cacheBytes(afterSoak.cache) - cacheBytes(beforeSoak.cache)) / rows).toFixed(0)} B)`,
    "≤ 2 KB",
    verdict(perStored <= 2000),
  ]);
}
if (afterChurn) {
  const bound = start.anon + budget;
  const high = Math.max(...churnSamples);
  const late = churnSamples.slice(Math.floor(churnSamples.length / 2));
  const mean = late.reduce((a, b) => a + b, 0) / Math.max(1, late.length);
  const over = (anon: number) => `${mib(anon)} MiB (started + ${((anon - start.anon) / budget).toFixed(2)} × CACHE_MAX_MB)`;
  figures.push([
    `churn of ${churn.toLocaleString("en")} wallets: RssAnon against the started service + CACHE_MAX_MB = ${mib(bound)} MiB (that + 25%: ${mib(bound * 1.25)}; started + 1.25 × CACHE_MAX_MB: ${mib(start.anon + 1.25 * budget)})`,
    `peak ${over(high)}; second half's mean ${over(mean)}; after ${idle} s idle ${over(afterChurn.anon)}; checking afterwards, peak ${over(checkPeak)}`,
    "peak ≤ (started + CACHE_MAX_MB) × 1.25",
    `${verdict(high <= bound * 1.25)} (≤ started + 1.25 × CACHE_MAX_MB: ${verdict(high <= start.anon + 1.25 * budget)})`,
  ]);
}
figures.push(["wallets checked (list + recall of their own memory)", `${checks}, ${failures.length ? `**${failures.length} failures**` : "all correct"}`, "all correct", verdict(failures.length === 0)]);
printTable(["figure", "measured", "target", ""], figures);

console.log("\nwhat the memory is made of at each reading (MiB; memory-probe.ts)\n");
printTable(
  ["reading", "RssAnon", "cache accounted / cap", "wallets cached", "rows cached", "main JS heap live / held", "of which typed arrays", "mimalloc in use", "mimalloc beyond the main JS heap", "glibc malloc in use / held (onnxruntime)", "smaps: mimalloc resident (its mappings / its reserved)", "smaps: glibc resident", "smaps: other anonymous", "smaps: the three − RssAnon", "RssAnon after a forced GC"],
  readings.map(({ label, anon, probe: p, smaps, cache, collected }) => [
    label,
    mib(anon),
    `${mib(cacheBytes(cache))} / ${mib(cache.cap)}`,
    String(cache.wallets),
    String(cache.rows),
    `${mib(p.jsc.heapSize)} / ${mib(p.jsc.heapCapacity)}`,
    mib(p.jsc.extraMemorySize),
    mib(p.mimalloc.inUse),
    mib(p.mimalloc.inUse - p.jsc.heapCapacity),
    p.glibc ? `${mib(p.glibc.inUse)} / ${mib(p.glibc.system + p.glibc.mmap)}` : "—",
    smaps ? `${mib(smaps.mimalloc)} (${mib(smaps.mimallocReserved)} / ${mib(p.mimalloc.reserved)})` : "—",
    smaps ? mib(smaps.glibc) : "—",
    smaps ? mib(smaps.other) : "—",
    smaps ? mib(smaps.mimalloc + smaps.glibc + smaps.other - smaps.rssAnon) : "—",
    mib(collected.status.RssAnon ?? 0),
  ]),
);

console.log("\nthe service's CPU per wallet written or request served, by thread (ms; /proc/<pid>/task; threads that used 1% of the total or more)\n");
const cpuTotal = (cpu: Map<string, number>) => [...cpu.values()].reduce((a, b) => a + b, 0);
const threadNames = [...new Set(phaseCpu.flatMap(({ cpu }) => [...cpu].filter(([, ms]) => ms >= 0.01 * cpuTotal(cpu)).map(([name]) => name)))].sort();
printTable(
  ["phase", "per", "rate", "all threads", ...threadNames],
  phaseCpu.map(({ label, unit, units, seconds, cpu }) => {
    return [label, unit, `${(units / seconds).toFixed(1)}/s`, (cpuTotal(cpu) / units).toFixed(2), ...threadNames.map((name) => ((cpu.get(name) ?? 0) / units).toFixed(2))];
  }),
);

/** Between two readings: the cache by part, the JS object types (after forced GCs) and mimalloc's block sizes that grew most. */
function growth(from: Reading, to: Reading, per: number, unit: string): void {
  console.log(`\nfrom "${from.label}" to "${to.label}", per ${unit}: the cache's accounting by part (bytes), the JS objects and mimalloc's block sizes that grew most\n`);
  const parts = Object.keys(to.cache.bytes).map((part): [string, number] => [part, ((to.cache.bytes[part] ?? 0) - (from.cache.bytes[part] ?? 0)) / per]);
  const types = Object.keys({ ...to.collected.jsc.types, ...from.collected.jsc.types })
    .map((t): [string, number] => [t, ((to.collected.jsc.types[t] ?? 0) - (from.collected.jsc.types[t] ?? 0)) / per])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  const bins = (p: ProbeAnswer) => p.mimalloc.bins;
  const grown = Object.keys({ ...bins(to.probe), ...bins(from.probe) })
    .map((size): [string, number] => [size, ((bins(to.probe)[Number(size)] ?? 0) - (bins(from.probe)[Number(size)] ?? 0)) / per])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  printTable(
    ["cache part", "bytes", "", "JS object type", "count", "", "mimalloc block size", "bytes"],
    Array.from({ length: Math.max(parts.length, types.length, grown.length) }, (_, i) => [
      parts[i]?.[0] ?? "",
      parts[i] ? parts[i]![1].toFixed(0) : "",
      "",
      types[i]?.[0] ?? "",
      types[i] ? types[i]![1].toFixed(2) : "",
      "",
      grown[i]?.[0] ?? "",
      grown[i] ? grown[i]![1].toFixed(0) : "",
    ]),
  );
}
if (afterFirst) growth(start, afterFirst, first, "wallet");
if (afterFirst && afterMore) growth(afterFirst, afterMore, more, "wallet");
if (soaked && afterSoak) {
  growth(beforeSoak, afterSoak, soaked.stored, "memory stored");
  console.log(`\nthe soak's requests by kind: ${[...soaked.byKind].map(([k, n]) => `${k} ${n}`).join(", ")}`);
}
if (failures.length) {
  console.log(`\n${failures.length} wallets answered wrongly; the first ones:\n${failures.slice(0, 10).join("\n")}`);
  process.exit(1);
}
