/** Shared helpers for the benchmark scripts: percentiles, a markdown table, deterministic text, memory. */
import { DEFAULT_EMBEDDING_MODEL, ensureBuiltInModel, isBuiltInModel } from "../../src/embed/built-in-models.ts";
import { startEmbedder, type Embedder } from "../../src/embed/embedder.ts";
import { readdirSync, readFileSync } from "node:fs";
import type { connectRedis } from "../../src/store/redis/client.ts";

export function percentiles(samples: number[]): { p50: number; p95: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

/**
 * `target` with each method call timed until its answer (a promise's settling, else the return) and
 * given to `record` (with the call's start, performance.now()) while `on()` says so: the stores' and
 * embedders' calls in the latency benches.
 */
export function timedCalls<T extends object>(target: T, record: (method: string, ms: number, startedAt: number) => void, on: () => boolean = () => true): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...callArgs: unknown[]) => {
        if (!on()) return value.apply(obj, callArgs);
        const t = performance.now();
        const result = value.apply(obj, callArgs);
        if (!(result instanceof Promise)) record(prop, performance.now() - t, t);
        else result.then(() => record(prop, performance.now() - t, t), () => {});
        return result;
      };
    },
  });
}

export function printTable(header: string[], rows: string[][]): void {
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

const SUBJECTS = ["The user", "The team", "The project", "Our API", "The billing service", "The mobile app", "The data pipeline", "The CI job"];
const VERBS = ["prefers", "uses", "depends on", "was migrated to", "should avoid", "is deployed with", "needs", "reports errors from"];
const OBJECTS = ["Postgres 16", "dark mode", "tabs for indentation", "Kubernetes", "weekly releases", "TypeScript strict mode", "Redis caching", "the EU region", "GraphQL", "feature flags", "Bun", "Terraform"];
const TAILS = ["since March", "for the dashboard", "in production", "after the outage", "on Fridays", "for new customers", "because of latency", ""];

/** A deterministic, varied sentence for index i. */
export function sentence(i: number): string {
  const pick = <T>(xs: T[], k: number) => xs[(Math.imul(i + 1, k) >>> 0) % xs.length]!;
  return `${pick(SUBJECTS, 2654435761)} ${pick(VERBS, 40503)} ${pick(OBJECTS, 9973)} ${pick(TAILS, 7919)} (#${i})`.replace(/\s+/g, " ");
}

/**
 * What the process's resident memory is made of (Linux; zeros elsewhere), in bytes. RSS alone mixes
 * anonymous memory (heaps, typed arrays, WebAssembly memories: what the process owns) with
 * file-backed pages (the executable, libraries and SQLite's memory-mapped database: page cache the
 * OS can drop under pressure and that other processes mapping the same file share).
 */
export interface MemorySnapshot {
  rss: number;
  /** RssAnon of /proc/self/status */
  anon: number;
  /** RssFile of /proc/self/status */
  file: number;
  /** RssShmem of /proc/self/status */
  shmem: number;
  /** resident pages of mappings whose path ends with `mappedFile` (the SQLite database), from /proc/self/smaps */
  mapped: number;
}

export function memorySnapshot(mappedFile?: string): MemorySnapshot {
  const rss = process.memoryUsage().rss;
  const kb = (text: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
  let status = "";
  try {
    status = readFileSync("/proc/self/status", "utf8");
  } catch {
    return { rss, anon: 0, file: 0, shmem: 0, mapped: 0 };
  }
  let mapped = 0;
  if (mappedFile) {
    // smaps: a header line per mapping (address range … path), then its fields
    const smaps = readFileSync("/proc/self/smaps", "utf8");
    let inside = false;
    for (const line of smaps.split("\n")) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inside = line.trimEnd().endsWith(mappedFile);
      else if (inside && line.startsWith("Rss:")) mapped += kb(line, "Rss");
    }
  }
  return { rss, anon: kb(status, "RssAnon"), file: kb(status, "RssFile"), shmem: kb(status, "RssShmem"), mapped };
}

/** The embedding model a bench runs with: EMBEDDING_MODEL when set, else the service's default. */
export const BENCH_MODEL = process.env.EMBEDDING_MODEL ?? DEFAULT_EMBEDDING_MODEL;

/** Builds a built-in model first if needed (keeping the build out of the timings), then starts the embedder. */
export async function startBenchEmbedder(cacheDir: string): Promise<Embedder> {
  if (isBuiltInModel(BENCH_MODEL)) await ensureBuiltInModel(BENCH_MODEL, cacheDir);
  return startEmbedder({ model: BENCH_MODEL, cacheDir });
}

/** Removes a bench's index and every key under `prefix` from every master (one key per UNLINK: keys of several slots). */
export async function dropRedisPrefix(nodes: Awaited<ReturnType<typeof connectRedis>>, prefix: string): Promise<void> {
  for (const { commands } of await nodes.masters()) {
    await commands.sendCommand(["FT.DROPINDEX", `${prefix}idx:memories`]).catch(() => {});
    let cursor = "0";
    do {
      const [next, found] = (await commands.sendCommand(["SCAN", cursor, "MATCH", `${prefix}*`, "COUNT", "5000"])) as [string, string[]];
      cursor = next;
      await Promise.all(found.map((key) => commands.sendCommand(["UNLINK", key])));
    } while (cursor !== "0");
  }
}

let clockTicks: number | undefined;
/** The kernel's clock ticks per second, the unit of /proc's CPU times. */
const ticksPerSecond = () => (clockTicks ??= Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100);

/** CPU ms so far of each thread of process `pid`, by thread id, with its name ("main" for its JavaScript thread). */
export function threadCpu(pid = process.pid): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = tid === String(pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond() });
    } catch {} // the thread ended meanwhile
  }
  return out;
}

/** CPU ms spent between two readings of threadCpu, summed by thread name (a thread started meanwhile counts from 0). */
export function cpuByName(before: ReturnType<typeof threadCpu>, after: ReturnType<typeof threadCpu>): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [tid, { name, ms }] of after) spent.set(name, (spent.get(name) ?? 0) + ms - (before.get(tid)?.ms ?? 0));
  return spent;
}

/** An unlabelled sample's value in a /metrics text (0 when absent). */
export function metricValue(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
}

/** The embedded engine's cache as the service's /metrics reports it (engram_cache_*): wallets, rows, cap and accounted bytes by part. */
export async function scrapeCache(base: string): Promise<{ wallets: number; rows: number; cap: number; bytes: Record<string, number> }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => metricValue(text, name);
  const bytes: Record<string, number> = {};
  for (const m of text.matchAll(/^engram_cache_bytes\{part="(\w+)"\} (\S+)$/gm)) bytes[m[1]!] = Number(m[2]);
  return { wallets: value("engram_cache_wallets"), rows: value("engram_cache_rows"), cap: value("engram_cache_cap_bytes"), bytes };
}
