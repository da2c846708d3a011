/**
 * Embedding benchmark.
 *
 *   bun scripts/bench/embed.ts [--model use-lite-128d|glove-sif-100d|DIR] [--cache-dir DIR] [--cold] [--seconds 2]
 *
 * --model defaults to the service's default. --cold also times a full build of a built-in model
 * into a temp folder (the real cache is untouched).
 * Prints: build time, start/load time, single-query latency through the worker
 * (and in-process, to show the thread hop), embeddings/s at batch 1/16/64, RSS, then embeddings/s
 * and RSS after batches of 64 texts longer than the model reads (its largest runs).
 */
import { parseArgs } from "node:util";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startEmbedder, WorkerEmbedder, type Embedder } from "../../src/embed/embedder.ts";
import { DEFAULT_EMBEDDING_MODEL, ensureBuiltInModel, isBuiltInModel } from "../../src/embed/built-in-models.ts";
import { loadEngine } from "../../src/embed/engine.ts";
import { resolveModelSpec } from "../../src/embed/model-spec.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: DEFAULT_EMBEDDING_MODEL },
    "cache-dir": { type: "string" },
    cold: { type: "boolean", default: false },
    seconds: { type: "string", default: "2" },
  },
});
const model = values.model!;
const cacheDir = resolve(values["cache-dir"] ?? process.env.MODEL_CACHE_DIR ?? join(import.meta.dir, "../../.cache/models"));
const seconds = Number(values.seconds);
const rows: [string, string][] = [];
const row = (name: string, value: string) => {
  rows.push([name, value]);
  console.error(`[bench] ${name}: ${value}`);
};
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const ms = (x: number) => `${x.toFixed(3)} ms`;

/** Deterministic filler text: ~n everyday words from a small list (LCG, fixed seed). */
function sentence(n: number, seed: number): string {
  const words = ("the user prefers dark mode in editor project deadline meeting team database server deploy " +
    "release weekly report customer invoice budget travel flight morning coffee office remote code review test " +
    "bug fix performance memory cache search query result note idea plan decision change issue").split(" ");
  let s = seed;
  return Array.from({ length: n }, () => words[(s = (s * 1103515245 + 12345) % 2147483648) % words.length]).join(" ");
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function dirBytes(dir: string): number {
  return readdirSync(dir, { recursive: true })
    .map((f) => statSync(join(dir, String(f))))
    .reduce((sum, st) => sum + (st.isFile() ? st.size : 0), 0);
}

async function coldBuild(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), "engram-bench-"));
  try {
    const result = await ensureBuiltInModel(model, tmp);
    row("cold build (read the weights package → model folder)", `${result.seconds.toFixed(2)} s`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function latency(embed: (t: string[]) => Promise<unknown>, label: string, n = 5000): Promise<void> {
  const query = ["what theme does the user prefer in the editor?"];
  for (let i = 0; i < 500; i++) await embed(query);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await embed(query);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  row(`${label} p50 / p95 / p99`, `${ms(percentile(times, 0.5))} / ${ms(percentile(times, 0.95))} / ${ms(percentile(times, 0.99))}`);
}

async function throughput(embedder: Embedder, batch: number, words = 30): Promise<void> {
  const texts = Array.from({ length: batch }, (_, i) => sentence(words, i + 1));
  await embedder.embed(texts);
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    await embedder.embed(texts);
    done += batch;
  }
  row(`embeddings/s, batch ${batch} × ~${words} words`, `${Math.round(done / ((performance.now() - started) / 1000))}`);
}

if (values.cold && isBuiltInModel(model)) await coldBuild();
if (isBuiltInModel(model)) await ensureBuiltInModel(model, cacheDir); // keep build time out of the start time

const embedder = await startEmbedder({ model, cacheDir });
const stats = embedder instanceof WorkerEmbedder ? embedder.stats() : undefined;
if (stats) row("worker start + load + warm-up (first start)", `${stats.startMs.toFixed(0)} ms (in-worker load ${stats.loadMs.toFixed(0)} ms)`);
await embedder.close();

const starts: number[] = [];
for (let i = 0; i < 3; i++) {
  const e = await startEmbedder({ model, cacheDir });
  if (e instanceof WorkerEmbedder) starts.push(e.stats().startMs);
  await e.close();
}
row("worker start + load + warm-up (median of 3 more)", `${starts.sort((a, b) => a - b)[1]!.toFixed(0)} ms`);

const warm = await startEmbedder({ model, cacheDir });
row("RSS after start", mb(process.memoryUsage().rss));
await latency((t) => warm.embed(t), "single query through worker");
for (const batch of [1, 16, 64]) await throughput(warm, batch);
row("RSS after benchmark", mb(process.memoryUsage().rss));
// texts past the model's 128 tokens: the largest runs, which onnxruntime's arena grows to and keeps
await throughput(warm, 64, 150);
row("RSS after batches of 64 × ~150 words", mb(process.memoryUsage().rss));
await warm.close();

const engine = await loadEngine(resolveModelSpec(model, cacheDir), model, cacheDir);
await latency((t) => engine.embed(t), "single query in-process (no worker hop)");
await engine.dispose();

const source = resolveModelSpec(model, cacheDir);
if (source.kind !== "hub") row("model size on disk", mb(dirBytes(source.dir)));

const width = Math.max(...rows.map(([name]) => name.length));
console.log(`\nembedding benchmark: ${model} (bun ${Bun.version}, ${navigator.hardwareConcurrency} cores)\n`);
for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
