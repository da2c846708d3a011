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
  terminated = false;
  terminate() {
    this.terminated = true;
  }
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

const READY = { type: "ready", modelId: "fake", dimension: DIM, buildMs: 0, loadMs: 0 } as const;

function fakeEmbedder() {
  const worker = new FakeWorker();
  const embedder = new WorkerEmbedder(worker as unknown as Worker, READY, 0);
  return { worker, embedder };
}

/**
 * An embedder that may start a second fake worker: `lanes.started` counts the starts, `ready()` /
 * `refuse()` settle the last one, `second()` is the last one started.
 */
function twoLaneEmbedder(idleMs?: number, spare?: () => boolean) {
  const first = new FakeWorker();
  const started: FakeWorker[] = [];
  let settle: { ready: () => void; refuse: (error: Error) => void } | null = null;
  const lanes = { started: 0 };
  const start = () => {
    lanes.started++;
    const worker = new FakeWorker();
    started.push(worker);
    return new Promise<Worker>((resolve, reject) => (settle = { ready: () => resolve(worker as unknown as Worker), refuse: reject }));
  };
  const embedder = new WorkerEmbedder(first as unknown as Worker, READY, 0, { lanes: 2, start, ...(idleMs !== undefined && { idleMs }), ...(spare && { spare }) });
  return { first, second: () => started.at(-1)!, embedder, lanes, ready: () => settle!.ready(), refuse: (error: Error) => settle!.refuse(error) };
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

describe("a second embedding worker", () => {
  test("one call at a time never starts it", async () => {
    const { first, embedder, lanes } = twoLaneEmbedder();
    for (const text of ["a", "bb", "ccc"]) {
      const call = embedder.embed([text]);
      first.answer([0], true);
      expect(Array.from((await call).vectors[0]!)).toEqual([0, text.length]);
    }
    expect(lanes.started).toBe(0);
    expect(embedder.workers).toBe(1);
  });

  test("starts once texts wait while the first is busy, then takes the waiting texts", async () => {
    const { first, second: started, embedder, lanes, ready } = twoLaneEmbedder();
    const a = embedder.embed(["a"]);
    const b = embedder.embed(["bb"]);
    const c = embedder.embed(["ccc"]);
    expect(lanes.started).toBe(1); // one start for both waiting calls
    ready();
    await Bun.sleep(0);
    const second = started();
    expect(embedder.workers).toBe(2);
    // the two waiting calls are shared between the idle second worker and nothing else: the first is still busy
    expect(second.lastRequest().texts).toEqual(["bb", "ccc"]);
    second.answer([1], false);
    expect(await stateOf(c)).toBe("resolved");
    second.answer([0], true);
    first.answer([0], true);
    expect(Array.from((await a).vectors[0]!)).toEqual([0, 1]);
    expect(Array.from((await b).vectors[0]!)).toEqual([0, 2]);
    expect(Array.from((await c).vectors[0]!)).toEqual([1, 3]);
  });

  test("texts waiting when both workers are idle are shared between them, each back in its place", async () => {
    const { first, second: started, embedder, ready } = twoLaneEmbedder();
    const warm = embedder.embed(["w"]);
    const waiting = embedder.embed(["x"]);
    ready();
    await Bun.sleep(0);
    const second = started();
    second.answer([0], true);
    first.answer([0], true);
    await Promise.all([warm, waiting]);
    const texts = ["t0", "t1", "t22", "t333", "t4"];
    const call = embedder.embed(texts);
    expect(first.lastRequest().texts).toEqual(["t0", "t1", "t22"]);
    expect(second.lastRequest().texts).toEqual(["t333", "t4"]);
    second.answer([0, 1], true);
    first.answer([2, 0, 1], true);
    const { vectors } = await call;
    expect(vectors.map((v) => Array.from(v))).toEqual([[0, 2], [1, 2], [2, 3], [0, 4], [1, 2]]);
  });

  test("a second worker that cannot start is not retried; the first goes on alone", async () => {
    const { first, embedder, lanes, refuse } = twoLaneEmbedder();
    const a = embedder.embed(["a"]);
    const b = embedder.embed(["b"]);
    refuse(new Error("no memory"));
    await Bun.sleep(0);
    first.answer([0], true);
    await a;
    const c = embedder.embed(["c"]);
    expect(first.lastRequest().texts).toEqual(["b"]);
    first.answer([0], true);
    await b;
    first.answer([0], true);
    await c;
    expect(lanes.started).toBe(1);
    expect(embedder.workers).toBe(1);
  });

  test("is started and sent batches only while a core is spare", async () => {
    let spare = false;
    const { first, second, embedder, lanes, ready } = twoLaneEmbedder(undefined, () => spare);
    const a = embedder.embed(["a"]);
    const b = embedder.embed(["b"]);
    expect(lanes.started).toBe(0); // texts wait, but no core is spare
    first.answer([0], true);
    await a;
    first.answer([0], true);
    await b;
    spare = true;
    const c = embedder.embed(["c"]);
    const d = embedder.embed(["d"]);
    expect(lanes.started).toBe(1);
    ready();
    await Bun.sleep(0);
    second().answer([0], true);
    await d;
    first.answer([0], true);
    await c;
    spare = false;
    const e = embedder.embed(["e"]);
    const f = embedder.embed(["f"]); // waits for the first worker although the second is idle
    expect(second().sent).toHaveLength(1);
    first.answer([0], true);
    await e;
    expect(first.lastRequest().texts).toEqual(["f"]);
    first.answer([0], true);
    await f;
    expect(lanes.started).toBe(1);
  });

  test("ends after staying idle, without failing the embedder; the next wait starts one again", async () => {
    const { first, second, embedder, lanes, ready } = twoLaneEmbedder(20);
    const a = embedder.embed(["a"]);
    const b = embedder.embed(["b"]);
    ready();
    await Bun.sleep(0);
    const extra = second();
    extra.answer([0], true);
    await b;
    first.answer([0], true);
    await a;
    expect(embedder.workers).toBe(2);
    await Bun.sleep(60);
    expect(extra.terminated).toBe(true);
    expect(embedder.workers).toBe(1);
    const c = embedder.embed(["c"]); // the first worker takes it: nothing waits
    const d = embedder.embed(["d"]);
    expect(lanes.started).toBe(2);
    first.answer([0], true);
    await c;
    first.answer([0], true); // the waiting call went to the first worker while the new one was starting
    expect(Array.from((await d).vectors[0]!)).toEqual([0, 1]);
    expect(first.terminated).toBe(false);
  });

  test("close ends both workers, one that was still starting too", async () => {
    const { first, second, embedder, ready } = twoLaneEmbedder();
    const a = embedder.embed(["a"]);
    const b = embedder.embed(["b"]);
    const closed = embedder.close();
    first.answer([0], true);
    await a;
    first.answer([0], true);
    await b;
    ready(); // the second worker comes up after close began
    await closed;
    expect(first.terminated).toBe(true);
    expect(second().terminated).toBe(true);
    await expect(embedder.embed(["c"])).rejects.toThrow(/closed/);
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
