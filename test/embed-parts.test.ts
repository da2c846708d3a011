import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { WorkerEmbedder } from "../src/embed/embedder.ts";
import { loadEngine, type Engine } from "../src/embed/engine.ts";
import { ensureBuiltInModel } from "../src/embed/built-in-models.ts";
import { resolveModelSpec } from "../src/embed/model-spec.ts";
import { GLOVE_MODEL_ID } from "../src/embed/glove-model.ts";
import type { EmbedReply, EmbedRequest, FromWorker, ToWorker } from "../src/embed/protocol.ts";

const CACHE_DIR = resolve(import.meta.dir, "../.cache/models");
const DIM = 2;

/** A stand-in for the embedding worker: records what it is sent, answers when the test says. */
class FakeWorker {
  sent: ToWorker[] = [];
  onmessage: ((event: MessageEvent<FromWorker>) => void) | null = null;
  onerror: unknown = null;
  postMessage(message: ToWorker) {
    this.sent.push(message);
  }
  addEventListener() {}
  ref() {}
  unref() {}
  terminate() {}
  lastRequest(): EmbedRequest {
    return this.sent.at(-1) as EmbedRequest;
  }
  /** Answers `rows` of the last request; each text's vector is [its index in the batch, its length]. */
  answer(rows: number[], done: boolean) {
    const request = this.lastRequest();
    const vectors = new Float32Array(rows.flatMap((row) => [row, request.texts[row]!.length]));
    const reply: EmbedReply = { type: "embedded", id: request.id, rows: Int32Array.from(rows), vectors, tokens: Int32Array.from(rows, () => 1), done };
    this.onmessage!({ data: reply } as MessageEvent<FromWorker>);
  }
  fail(message: string) {
    this.onmessage!({ data: { type: "error", id: this.lastRequest().id, message } } as MessageEvent<FromWorker>);
  }
}

function fakeEmbedder() {
  const worker = new FakeWorker();
  const embedder = new WorkerEmbedder(worker as unknown as Worker, { type: "ready", modelId: "fake", dimension: DIM, buildMs: 0, loadMs: 0 }, 0);
  return { worker, embedder };
}

/** The promise's state once every pending reaction has run: "pending", "resolved" or "rejected". */
async function stateOf(promise: Promise<unknown>): Promise<string> {
  let state = "pending";
  promise.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await Bun.sleep(0);
  return state;
}

describe("an embedding batch answered in parts", () => {
  test("a call resolves as soon as its own texts are in, with each vector in its place", async () => {
    const { worker, embedder } = fakeEmbedder();
    const first = embedder.embed(["x"]); // occupies the worker; the next two calls share the next batch
    const a = embedder.embed(["a1", "a22"]);
    const b = embedder.embed(["b333"]);
    worker.answer([0], true);
    await first;
    expect(worker.lastRequest().texts).toEqual(["a1", "a22", "b333"]);

    worker.answer([2], false);
    expect(await stateOf(b)).toBe("resolved");
    expect(await stateOf(a)).toBe("pending");
    expect(Array.from((await b).vectors[0]!)).toEqual([2, 4]);
    expect(worker.sent.length).toBe(2); // the batch is not done: nothing new is sent meanwhile

    worker.answer([1], false);
    expect(await stateOf(a)).toBe("pending");
    worker.answer([0], true);
    const { vectors, tokens } = await a;
    expect(vectors.map((v) => Array.from(v))).toEqual([[0, 2], [1, 3]]);
    expect(tokens).toEqual([1, 1]);
  });

  test("the next batch goes out only once the worker has sent every text of the last one", async () => {
    const { worker, embedder } = fakeEmbedder();
    const first = embedder.embed(["x", "y"]);
    const later = embedder.embed(["z"]);
    worker.answer([1], false);
    expect(worker.sent.length).toBe(1);
    worker.answer([0], true);
    await first;
    expect(worker.sent.length).toBe(2);
    expect(worker.lastRequest().texts).toEqual(["z"]);
    worker.answer([0], true);
    expect(Array.from((await later).vectors[0]!)).toEqual([0, 1]);
  });

  test("an error after a part rejects the calls still waiting; those answered keep their vectors; the embedder goes on", async () => {
    const { worker, embedder } = fakeEmbedder();
    const first = embedder.embed(["x"]);
    const a = embedder.embed(["a1", "a2"]);
    const b = embedder.embed(["b1"]);
    worker.answer([0], true);
    await first;
    worker.answer([2], false);
    worker.fail("model run failed");
    expect(Array.from((await b).vectors[0]!)).toEqual([2, 2]);
    await expect(a).rejects.toThrow(/embedding failed: model run failed/);
    const after = embedder.embed(["c"]);
    worker.answer([0], true);
    expect(Array.from((await after).vectors[0]!)).toEqual([0, 1]);
  });
});

describe("the engine hands each run's texts on as the run ends", () => {
  let engine: Engine;
  beforeAll(async () => {
    await ensureBuiltInModel(GLOVE_MODEL_ID, CACHE_DIR);
    engine = await loadEngine(resolveModelSpec(GLOVE_MODEL_ID, CACHE_DIR), GLOVE_MODEL_ID, CACHE_DIR);
  }, 180_000);
  afterAll(async () => {
    await engine?.dispose();
  });

  test("texts of very different lengths come in several parts; every text once, with the batch's own vectors", async () => {
    const long = "the quick brown fox jumps over the lazy dog while it rains ".repeat(8);
    const texts = ["hello", long, "good morning", `${long} and more`, "thanks"];
    const parts: { rows: number[]; vectors: Float32Array }[] = [];
    const whole = await engine.embed(texts, (rows, part) => parts.push({ rows: [...rows], vectors: part.vectors.slice() }));
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.flatMap((p) => p.rows).sort()).toEqual([0, 1, 2, 3, 4]);
    const dim = engine.dimension;
    for (const { rows, vectors } of parts) {
      rows.forEach((row, k) => expect(Array.from(vectors.subarray(k * dim, (k + 1) * dim))).toEqual(Array.from(whole.vectors.subarray(row * dim, (row + 1) * dim))));
    }
  });

  test("texts of one length come in one part, in their order", async () => {
    const parts: number[][] = [];
    await engine.embed(["one two", "three four", "five six"], (rows) => parts.push([...rows]));
    expect(parts).toEqual([[0, 1, 2]]);
  });
});
