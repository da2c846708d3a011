/**
 * Storage engine benchmark: the recall path on the store directly (no HTTP, no scoring).
 *
 *   bun scripts/bench/engines.ts --engine sqlite|redis [--n 100000] [--queries 300]
 *       [--vectors embed|random] [--redis-url redis://127.0.0.1:6379] [--data-dir DIR] [--keep]
 *
 * Fills one wallet with N memories (realistic short texts from templates, deterministic), then
 * times `nearest` (KNN k=40) and `searchText` (BM25, k=40, the query's queryTerms) for a set of
 * query texts, and prints p50/p95/p99. Vectors: `embed` (default) embeds every text with the
 * real embedding model (glove-sif-100d, in batches through the worker); `random` uses seeded
 * random unit vectors of the model's dimension (faster to fill; KNN cost is the same, but
 * neighbours are meaningless). Redis data goes under the prefix `engram-bench:` and is removed
 * at the end unless --keep; sqlite uses a temp dir unless --data-dir.
 */
import { parseArgs } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClient } from "redis";
import { newMemory } from "../../src/domain/memory.ts";
import { contentHash, queryTerms } from "../../src/domain/text.ts";
import { startBenchEmbedder } from "./bench-util.ts";
import type { MemoryStore, StoredMemory } from "../../src/domain/store-port";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { RedisStore } from "../../src/store/redis/redis-store.ts";

const { values } = parseArgs({
  options: {
    engine: { type: "string", default: "sqlite" },
    n: { type: "string", default: "100000" },
    queries: { type: "string", default: "300" },
    vectors: { type: "string", default: "embed" },
    "redis-url": { type: "string", default: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" },
    "data-dir": { type: "string" },
    "cache-dir": { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const engine = values.engine!;
const N = Number(values.n);
const QUERIES = Number(values.queries);
const K = 40;
const BATCH = 100;
const REDIS_PREFIX = "engram-bench:";
if (engine !== "sqlite" && engine !== "redis") throw new Error("--engine must be sqlite or redis");
if (values.vectors !== "embed" && values.vectors !== "random") throw new Error("--vectors must be embed or random");

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// ---- deterministic, realistic-ish texts ------------------------------------------------

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;

const PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Yusuf"];
const TOOLS = ["PostgreSQL", "Redis", "Kafka", "Terraform", "Kubernetes", "Docker", "GitHub Actions", "Datadog", "Sentry", "Grafana", "Snowflake", "Airflow", "pnpm", "Bun", "Vite", "Playwright", "Stripe", "Twilio", "S3", "CloudFront", "Linear", "Jira", "Figma", "Tailwind", "GraphQL", "gRPC", "Rust", "Go", "Python", "TypeScript"];
const TEAMS = ["payments", "billing", "search", "mobile", "platform", "growth", "data", "security", "support", "design", "infra", "checkout", "onboarding", "analytics", "identity"];
const THINGS = ["dark mode", "tabs over spaces", "async standups", "written specs", "small pull requests", "trunk-based development", "feature flags", "weekly demos", "pair programming", "strict typing", "integration tests", "blue-green deploys", "canary releases", "on-call rotations", "code owners"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "the first week of the month", "every sprint", "each quarter", "after the standup", "before lunch"];
const VERBS = ["migrated", "deprecated", "upgraded", "benchmarked", "documented", "replaced", "sharded", "cached", "monitored", "load-tested"];
const REASONS = ["because of latency", "to cut costs", "after the outage", "for compliance", "to simplify onboarding", "because the vendor raised prices", "to reduce flaky tests", "for better observability"];

const TEMPLATES: (() => string)[] = [
  () => `${pick(PEOPLE)} prefers ${pick(THINGS)} and asked the ${pick(TEAMS)} team to adopt it.`,
  () => `The ${pick(TEAMS)} service ${pick(VERBS)} ${pick(TOOLS)} ${pick(REASONS)}.`,
  () => `Deploys of the ${pick(TEAMS)} stack happen on ${pick(DAYS)} using ${pick(TOOLS)}.`,
  () => `${pick(PEOPLE)} is the tech lead for ${pick(TEAMS)} and owns the ${pick(TOOLS)} integration.`,
  () => `Decision: use ${pick(TOOLS)} instead of ${pick(TOOLS)} in the ${pick(TEAMS)} project ${pick(REASONS)}.`,
  () => `Reminder: ${pick(PEOPLE)} reviews ${pick(TEAMS)} incidents on ${pick(DAYS)}; alerts go through ${pick(TOOLS)}.`,
  () => `The ${pick(TEAMS)} dashboard in ${pick(TOOLS)} shows p99 latency; ${pick(PEOPLE)} ${pick(VERBS)} it last sprint.`,
  () => `Correction: the ${pick(TEAMS)} backups run on ${pick(DAYS)}, not daily, and are stored in ${pick(TOOLS)}.`,
];
const text = () => pick(TEMPLATES)();

const QUERY_TEMPLATES: (() => string)[] = [
  () => `who leads the ${pick(TEAMS)} team`,
  () => `when do ${pick(TEAMS)} deploys happen`,
  () => `what does ${pick(PEOPLE)} prefer`,
  () => `why did we switch to ${pick(TOOLS)}`,
  () => `${pick(TOOLS)} ${pick(TEAMS)} latency`,
  () => `backups for ${pick(TEAMS)}`,
];

// ---- vectors -----------------------------------------------------------------------------

const cacheDir = resolve(values["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
const embedder = await startBenchEmbedder(cacheDir);
const dimension = embedder.dimension;

function randomUnit(): Float32Array {
  const v = new Float32Array(dimension);
  let norm = 0;
  for (let i = 0; i < dimension; i++) {
    // Box-Muller: gaussian components give uniformly distributed directions
    const g = Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
    v[i] = g;
    norm += g * g;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimension; i++) v[i]! /= norm;
  return v;
}

async function vectorsFor(texts: string[]): Promise<Float32Array[]> {
  if (values.vectors === "random") return texts.map(randomUnit);
  return (await embedder.embed(texts)).vectors;
}

// ---- the store -----------------------------------------------------------------------------

async function cleanRedis(url: string): Promise<void> {
  const client = createClient({ url, RESP: 2 });
  await client.connect();
  await client.sendCommand(["FT.DROPINDEX", `${REDIS_PREFIX}idx:memories`]).catch(() => {});
  let cursor = "0";
  do {
    const [next, keys] = (await client.sendCommand(["SCAN", cursor, "MATCH", `${REDIS_PREFIX}*`, "COUNT", "5000"])) as [string, string[]];
    cursor = next;
    if (keys.length > 0) await client.sendCommand(["UNLINK", ...keys]);
  } while (cursor !== "0");
  await client.close();
}

let dataDir: string | null = null;
async function openStore(): Promise<MemoryStore> {
  if (engine === "redis") {
    await cleanRedis(values["redis-url"]!);
    return RedisStore.connect(values["redis-url"]!, { keyPrefix: REDIS_PREFIX });
  }
  dataDir = values["data-dir"] ? resolve(values["data-dir"]) : mkdtempSync(join(tmpdir(), "engram-bench-"));
  return new SqliteStore(dataDir);
}

const store = await openStore();
await store.bindEmbeddingModel({ id: embedder.modelId, dimension });
const userId = await store.userIdForWallet(`0x${"be".repeat(20)}`);

// ---- fill ----------------------------------------------------------------------------------

const started = performance.now();
const createdBase = Date.now() - 365 * 86_400_000;
for (let done = 0; done < N; done += BATCH) {
  const size = Math.min(BATCH, N - done);
  const texts = Array.from({ length: size }, text);
  const vectors = await vectorsFor(texts);
  const items: StoredMemory[] = texts.map((content, i) => {
    const at = new Date(createdBase + Math.floor(((done + i) / N) * 365 * 86_400_000)).toISOString();
    const memory = newMemory(
      {
        user_id: userId,
        namespace: pick(["default", "default", "default", "work", "personal"]),
        content,
        metadata: { tags: [pick(TEAMS), pick(["infra", "process", "people", "tooling"])] },
        importance: Math.round(rand() * 100) / 100,
        memory_type: pick(["general", "decision", "preference", "project", "observation", "correction"] as const),
        pinned: rand() < 0.02,
      },
      at,
    );
    return { memory, embedding: vectors[i]!, content_hash: contentHash(content) };
  });
  await store.insertMemories(items);
  const total = done + size;
  if (total % 10_000 === 0 || total === N) {
    const seconds = (performance.now() - started) / 1000;
    log(`filled ${total.toLocaleString()}/${N.toLocaleString()} (${Math.round(total / seconds)}/s, ${seconds.toFixed(0)} s)`);
  }
}
const fillSeconds = (performance.now() - started) / 1000;

// ---- recall path -----------------------------------------------------------------------------

const queries = Array.from({ length: QUERIES }, () => pick(QUERY_TEMPLATES)());
const queryVectors = values.vectors === "random" ? queries.map(randomUnit) : (await embedder.embed(queries)).vectors;
const now = Date.now();

async function timeIt(label: string, run: (i: number) => Promise<number>): Promise<[string, number[], number]> {
  for (let i = 0; i < Math.min(30, QUERIES); i++) await run(i); // warm-up
  const times: number[] = [];
  let results = 0;
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    results += await run(i);
    times.push(performance.now() - t);
  }
  log(`${label}: done`);
  return [label, times.sort((a, b) => a - b), results / QUERIES];
}

const rows = [
  await timeIt(`nearest (KNN k=${K})`, async (i) => (await store.nearest(userId, queryVectors[i]!, {}, K, now)).length),
  await timeIt(`nearest + namespace filter`, async (i) => (await store.nearest(userId, queryVectors[i]!, { namespace: "work" }, K, now)).length),
  await timeIt(`searchText (BM25 k=${K})`, async (i) => (await store.searchText(userId, queryTerms(queries[i]!), {}, K, now)).length),
  await timeIt(`searchText + namespace filter`, async (i) => (await store.searchText(userId, queryTerms(queries[i]!), { namespace: "work" }, K, now)).length),
];

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const f = (x: number) => x.toFixed(2).padStart(8);
console.log(`\nengine benchmark: ${engine}, ${N.toLocaleString()} memories in one wallet, ${values.vectors === "embed" ? `${embedder.modelId} vectors` : `random ${dimension}-d unit vectors`}`);
console.log(`fill: ${fillSeconds.toFixed(1)} s (${Math.round(N / fillSeconds)} memories/s, batches of ${BATCH}, including embedding)`);
console.log(`${QUERIES} queries each, sequential, latency in ms\n`);
console.log(`${"operation".padEnd(32)} ${"p50".padStart(8)} ${"p95".padStart(8)} ${"p99".padStart(8)} ${"mean".padStart(8)} ${"hits".padStart(6)}`);
for (const [label, times, hits] of rows) {
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`${label.padEnd(32)} ${f(pct(times, 0.5))} ${f(pct(times, 0.95))} ${f(pct(times, 0.99))} ${f(mean)} ${hits.toFixed(1).padStart(6)}`);
}

await store.close();
await embedder.close();
if (engine === "redis" && !values.keep) await cleanRedis(values["redis-url"]!);
if (dataDir && !values["data-dir"] && !values.keep) rmSync(dataDir, { recursive: true, force: true });
