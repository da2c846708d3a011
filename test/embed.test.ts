import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pipeline, env } from "@huggingface/transformers";
import { startEmbedder, startWorkerEmbedder, WorkerEmbedder, MAX_BATCH_TEXTS } from "../src/embed/embedder.ts";
import { buildGloveModel, gloveModelDir, GLOVE_MODEL_ID } from "../src/embed/glove-model.ts";
import { lengthGroups, MAX_RUN_POSITIONS, RUN_COST } from "../src/embed/length-groups.ts";
import { factSignature } from "../src/domain/fact-signature.ts";

/** Shared with the server and the build script, so the ~5 s build happens once per checkout. */
const CACHE_DIR = resolve(import.meta.dir, "../.cache/models");

let embedder: WorkerEmbedder;

beforeAll(async () => {
  const started = await startEmbedder({ model: GLOVE_MODEL_ID, cacheDir: CACHE_DIR });
  if (!(started instanceof WorkerEmbedder)) throw new Error("expected a WorkerEmbedder");
  embedder = started;
}, 180_000);

afterAll(async () => {
  await embedder?.close();
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0);

async function embedOne(text: string): Promise<Float32Array> {
  const { vectors } = await embedder.embed([text]);
  return vectors[0]!;
}

describe("glove-sif-100d embedder", () => {
  test("reports its model and dimension", () => {
    expect(embedder.modelId).toBe("glove-sif-100d");
    expect(embedder.dimension).toBe(100);
  });

  test("vectors are 100-d, unit norm, each with its own buffer", async () => {
    const { vectors } = await embedder.embed(["The user prefers dark mode", "Deploy on Fridays", "Hello!"]);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(100);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
      expect(v.buffer.byteLength).toBe(400);
    }
  });

  test("related sentences are closer than unrelated ones", async () => {
    const cases: [anchor: string, related: string, unrelated: string][] = [
      ["The user prefers dark mode in the editor", "User likes a dark theme for the IDE", "The invoice is due next Tuesday"],
      ["We decided to use PostgreSQL for the main database", "Which database did the team choose?", "The cat needs medicine twice a day"],
      ["The user is allergic to peanuts", "Food allergy information for the user", "Deployments happen every Friday afternoon"],
      ["The flight to Tokyo leaves at 9 am", "What time is the plane to Japan?", "Use tabs for indentation in this project"],
      ["The server crashed because the disk was full", "Outage caused by running out of storage space", "The user plays guitar on weekends"],
      ["Do not commit passwords to the repository", "Never store credentials in source control", "Budget for the marketing campaign"],
    ];
    for (const [anchor, related, unrelated] of cases) {
      const [a, r, u] = (await embedder.embed([anchor, related, unrelated])).vectors as [Float32Array, Float32Array, Float32Array];
      expect(dot(a, r)).toBeGreaterThan(dot(a, u));
    }
  });

  test("token counts are the non-padding tokens", async () => {
    const { tokens } = await embedder.embed([
      "The user prefers dark mode in the editor", // 8 words
      "Hello, world!", // hello , world !
      "Café déjà-vu", // accents stripped: cafe deja - vu
      "",
    ]);
    expect(tokens).toEqual([8, 4, 4, 0]);
  });

  test("empty and unknown-only texts embed to the zero vector, never NaN", async () => {
    const { vectors, tokens } = await embedder.embed(["", "   ", "qwzxqy", "dark mode"]);
    expect(tokens).toEqual([0, 0, 1, 2]);
    for (const v of vectors.slice(0, 3)) expect(v.every((x) => x === 0)).toBe(true);
    expect(Math.sqrt(dot(vectors[3]!, vectors[3]!))).toBeCloseTo(1, 5);
    const alone = await embedder.embed([""]);
    expect(alone.vectors[0]!.every((x) => x === 0)).toBe(true);
  });

  test("an empty list resolves to empty results; a non-string rejects only its own call", async () => {
    expect(await embedder.embed([])).toEqual({ vectors: [], tokens: [] });
    const good = embedder.embed(["dark mode"]);
    const bad = embedder.embed(["ok", 42 as unknown as string]);
    await expect(bad).rejects.toThrow(/array of strings/);
    expect((await good).tokens).toEqual([2]);
  });

  test("concurrent calls are coalesced and each gets its own result", async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `memory number ${i} about project ${i % 7} and topic ${i * 13}`);
    const alone: Float32Array[] = [];
    for (const t of texts) alone.push(await embedOne(t));

    const before = embedder.stats().batches;
    const results = await Promise.all(texts.map((t) => embedder.embed([t])));
    const batches = embedder.stats().batches - before;

    expect(batches).toBeLessThan(texts.length);
    expect(batches).toBeLessThanOrEqual(2); // the first goes at once, the other 49 wait and go together
    results.forEach((r, i) => expect(maxDiff(r.vectors[0]!, alone[i]!)).toBeLessThan(1e-6));
  });

  test("with a second worker (a core spare), a large request and concurrent calls run on both and get the same vectors", async () => {
    const two = await startWorkerEmbedder({ model: GLOVE_MODEL_ID, cacheDir: CACHE_DIR, threads: 2 }, () => true);
    try {
      const texts = Array.from({ length: 150 }, (_, i) => `memory ${i} about the release of project ${i % 9}`);
      const alone: Float32Array[] = [];
      for (const t of texts.slice(0, 20)) alone.push(await embedOne(t));
      expect(two.workers).toBe(1); // one call at a time: no second worker
      const [whole, ...single] = await Promise.all([two.embed(texts), ...texts.slice(0, 20).map((t) => two.embed([t]))]);
      // texts waited while the first worker was busy: a second one starts and takes texts once ready
      for (let i = 0; i < 20; i++) {
        expect(maxDiff(whole!.vectors[i]!, alone[i]!)).toBeLessThan(1e-6);
        expect(maxDiff(single[i]!.vectors[0]!, alone[i]!)).toBeLessThan(1e-6);
      }
      expect(whole!.vectors).toHaveLength(texts.length);
      for (let round = 0; round < 50 && two.workers < 2; round++) await Bun.sleep(100);
      expect(two.workers).toBe(2);
      const again = await two.embed(texts);
      texts.forEach((_, i) => expect(maxDiff(again.vectors[i]!, whole!.vectors[i]!)).toBeLessThan(1e-6));
    } finally {
      await two.close();
    }
  }, 60_000);

  test("fact signatures read in the worker are those read here, in order, alongside concurrent embeddings", async () => {
    const texts = ["User doesn't use Vim", "The user does not use vim.", "Postgres 15 runs the API", "User has two cats", "User had 2 cats", "", "???", "C++ over C#"];
    const [signatures, embedded] = await Promise.all([embedder.factSignatures(texts), embedder.embed(texts), embedder.factSignatures([])]);
    expect(signatures).toEqual(texts.map((t) => [...factSignature(t)]));
    expect(signatures[0]).toEqual(signatures[1]!);
    expect(embedded.vectors).toHaveLength(texts.length);
    expect(await embedder.factSignatures([])).toEqual([]);
  });

  test("a request larger than one batch is split and reassembled in order", async () => {
    const texts = Array.from({ length: MAX_BATCH_TEXTS * 2 + 5 }, (_, i) => `note ${i} on release ${i % 11}`);
    const before = embedder.stats().batches;
    const { vectors, tokens } = await embedder.embed(texts);
    expect(embedder.stats().batches - before).toBe(3);
    expect(vectors).toHaveLength(texts.length);
    for (const i of [0, 63, 64, 127, 128, texts.length - 1]) {
      expect(maxDiff(vectors[i]!, await embedOne(texts[i]!))).toBeLessThan(1e-6);
      expect(tokens[i]).toBe(texts[i]!.split(" ").length);
    }
  });

  test("a long text in a batch of short ones gives the same results as alone", async () => {
    const long = "the user prefers dark mode in every editor and terminal ".repeat(300); // > 2048 tokens
    const texts = ["dark theme", long, "which database", "x".repeat(300), "deploy on friday"];
    const { vectors, tokens } = await embedder.embed(texts);
    expect(tokens[1]).toBe(2048); // truncated at model_max_length
    for (let i = 0; i < texts.length; i++) expect(maxDiff(vectors[i]!, await embedOne(texts[i]!))).toBeLessThan(1e-6);
  });

  test("the model folder works in the standard transformers.js pipeline", async () => {
    env.allowRemoteModels = false;
    const extractor = await pipeline("feature-extraction", gloveModelDir(CACHE_DIR), { local_files_only: true });
    try {
      const texts = ["The user prefers dark mode in the editor", "Which database did the team choose?"];
      const output = await extractor(texts, { pooling: "mean", normalize: true });
      expect(output.dims).toEqual([2, 100]);
      const ours = (await embedder.embed(texts)).vectors;
      texts.forEach((_, i) => {
        const row = Float32Array.from(output.data.slice(i * 100, (i + 1) * 100) as Float32Array);
        expect(maxDiff(row, ours[i]!)).toBeLessThan(1e-5);
      });

      // Every vocabulary word must tokenize to itself (no unreachable entries).
      const { model } = JSON.parse(readFileSync(join(gloveModelDir(CACHE_DIR), "tokenizer.json"), "utf8"));
      const vocab = Object.entries(model.vocab as Record<string, number>).filter((_, i) => i % 997 === 2);
      for (const [word, id] of vocab) expect([word, extractor.tokenizer.encode(word)]).toEqual([word, [id]]);
    } finally {
      await extractor.dispose();
    }
  });

  test("a model given as a folder path loads the same model", async () => {
    const byPath = await startEmbedder({ model: gloveModelDir(CACHE_DIR), cacheDir: CACHE_DIR });
    try {
      expect(byPath.dimension).toBe(100);
      const text = "The user prefers dark mode in the editor";
      expect(maxDiff((await byPath.embed([text])).vectors[0]!, await embedOne(text))).toBe(0);
    } finally {
      await byPath.close();
    }
    await expect(byPath.embed(["after close"])).rejects.toThrow(/closed/);
  });

  test("an unknown model folder rejects with a clear message", async () => {
    const missing = join(tmpdir(), "engram-no-such-model");
    const attempt = startEmbedder({ model: missing, cacheDir: CACHE_DIR });
    await expect(attempt).rejects.toThrow(/could not load embedding model/);
    await expect(attempt).rejects.toThrow(/bun run build-model/);
    await expect(attempt).rejects.toThrow(/EMBEDDING_MODEL/);
  });
});

describe("length groups", () => {
  /** Σ (runCost + rows × longest) of a grouping. */
  const cost = (lengths: number[], groups: number[][], runCost: number) =>
    groups.reduce((sum, g) => sum + runCost + g.length * Math.max(...g.map((i) => lengths[i]!)), 0);

  test("similar lengths share one run; one long text among short ones runs alone", () => {
    expect(lengthGroups([60, 62, 58, 64])).toEqual([[2, 0, 1, 3]]);
    const groups = lengthGroups([20, 128, 22, 18, 21, 19, 24, 23]);
    expect(groups).toEqual([[3, 5, 0, 4, 2, 7, 6], [1]]);
    expect(lengthGroups([])).toEqual([]);
  });

  /** Whether a group fits in one run: at most `maxPositions` padded positions, or a single row. */
  const fits = (lengths: number[], group: number[], maxPositions: number) => group.length === 1 || group.length * Math.max(...group.map((i) => lengths[i]!)) <= maxPositions;

  test("a batch of long texts runs in parts of at most MAX_RUN_POSITIONS positions", () => {
    const groups = lengthGroups(Array.from({ length: 64 }, () => 128));
    expect(groups.map((g) => g.length)).toEqual(Array.from({ length: (64 * 128) / MAX_RUN_POSITIONS }, () => MAX_RUN_POSITIONS / 128));
    expect(lengthGroups([200, 10], RUN_COST, 100)).toEqual([[1], [0]]); // a row longer than the cap still runs
  });

  test("every row once, no run over the cap, and no cheaper split of the sorted rows exists (all splits of up to 10 rows)", () => {
    let seed = 11;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 300; trial++) {
      const n = 1 + Math.floor(rand() * 10);
      const lengths = Array.from({ length: n }, () => Math.floor(rand() * 130));
      const runCost = Math.floor(rand() * 40);
      const maxPositions = trial % 2 === 0 ? Infinity : 50 + Math.floor(rand() * 600);
      const groups = lengthGroups(lengths, runCost, maxPositions);
      expect(groups.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
      expect(groups.every((g) => fits(lengths, g, maxPositions))).toBe(true);
      const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
      let cheapest = Infinity;
      for (let mask = 0; mask < 1 << (n - 1); mask++) {
        const split: number[][] = [[order[0]!]];
        for (let i = 1; i < n; i++) (mask & (1 << (i - 1)) ? split.push([order[i]!]) : split.at(-1)!.push(order[i]!));
        if (split.every((g) => fits(lengths, g, maxPositions))) cheapest = Math.min(cheapest, cost(lengths, split, runCost));
      }
      expect(cost(lengths, groups, runCost)).toBe(cheapest);
    }
  });
});

describe("model builder", () => {
  /** A tiny wink-format vectors file, so building runs in milliseconds. */
  async function writeTinySource(dir: string): Promise<string> {
    const words = ["the", ",", "user", "u.s.", "dark", "mode", "editor", "theme", "invoice"];
    const vectors = Object.fromEntries(words.map((w, i) => [w, [i + 1, -i, i % 3, 0.5]]));
    const path = join(dir, "vectors.json");
    await Bun.write(path, JSON.stringify({ dimensions: 4, words, vectors }));
    return path;
  }

  const MODEL_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];

  test("same input gives byte-identical files, written atomically", async () => {
    const dir = mkdtempSync(join(tmpdir(), "engram-build-"));
    try {
      const sourcePath = await writeTinySource(dir);
      const read = (name: string) => MODEL_FILES.map((f) => readFileSync(join(dir, name, f)));
      const opts = { cacheDir: dir, sourcePath, vocabSize: 6, log: () => {} };
      await buildGloveModel({ ...opts, name: "a" });
      await buildGloveModel({ ...opts, name: "b" });
      expect(read("a")).toEqual(read("b"));
      await buildGloveModel({ ...opts, name: "a" }); // forced rebuild over an existing folder
      expect(read("a")).toEqual(read("b"));
      expect(readdirSync(dir).sort()).toEqual(["a", "b", "vectors.json"]); // no temp folders left

      const { model } = JSON.parse(readFileSync(join(dir, "a/tokenizer.json"), "utf8"));
      // u.s. is unreachable through the pre-tokenizer, so it is skipped.
      expect(Object.keys(model.vocab)).toEqual(["[PAD]", "[UNK]", "the", ",", "user", "dark", "mode", "editor"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
