import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startEmbedder } from "../src/embed/embedder";
import { OPENAI_BATCH_TEXTS, OpenAIEmbedder, apportion, startOpenAIEmbedder, type OpenAIEmbedderOptions } from "../src/embed/openai-embedder";
import { MAX_RETRY_AFTER_MS, retryAfterMs } from "../src/embed/openai-client";
import { EmbeddingUnavailable } from "../src/domain/ports";
import { factSignature } from "../src/domain/fact-signature";
import { EmbeddingStub, REJECT_MARKER, stubVector } from "./helpers/embedding-stub";

const KEY = "sk-test-key";
let stub: EmbeddingStub;
/** Waits the client asked for (instead of sleeping them). */
let waits: number[] = [];

beforeAll(() => {
  stub = new EmbeddingStub({ apiKey: KEY });
});
afterAll(() => stub.stop());

/** A fresh stub state (requests, failures, hooks) and an embedder on it that records its waits. */
async function fresh(opts: Partial<OpenAIEmbedderOptions> = {}): Promise<OpenAIEmbedder> {
  stub.requests.length = 0;
  stub.failures.length = 0;
  stub.onRequest = null;
  stub.dimension = 64;
  stub.maxInFlight = 0;
  waits = [];
  return startOpenAIEmbedder({
    model: "openai:stub-model",
    baseUrl: stub.url,
    apiKey: KEY,
    backoffMs: 10,
    sleep: async (ms) => void waits.push(ms),
    ...opts,
  });
}

const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));
const words = (n: number) => Array.from({ length: n }, (_, i) => `memory number ${i} about topic${i % 7}`);

describe("OpenAI-compatible embedder", () => {
  test("start probes the server: the dimension is the answer's, the model id the full spec", async () => {
    const embedder = await fresh();
    expect(embedder.modelId).toBe("openai:stub-model");
    expect(embedder.dimension).toBe(64);
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]!.model).toBe("stub-model");
    stub.dimension = 48;
    const other = await startOpenAIEmbedder({ model: "openai:other", baseUrl: stub.url, apiKey: KEY });
    expect(other.dimension).toBe(48);
  });

  test("vectors are unit length, in input order (the stub answers in reverse), each the server's direction", async () => {
    const embedder = await fresh();
    const texts = ["The user prefers dark mode", "Deploy on Fridays", "tabs over spaces please"];
    const { vectors, tokens } = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    texts.forEach((text, i) => {
      const raw = stubVector(text, 64);
      const v = vectors[i]!;
      expect(v).toBeInstanceOf(Float32Array);
      expect(norm(v)).toBeCloseTo(1, 5);
      for (let d = 0; d < 64; d++) expect(v[d]!).toBeCloseTo(raw[d]! / norm(raw), 5);
    });
    // usage.prompt_tokens = 5 + 3 + 4 words, split in proportion to length: the sum is the server's
    expect(tokens.reduce((a, b) => a + b, 0)).toBe(12);
  });

  test("blank texts get the zero vector and 0 tokens without being sent", async () => {
    const embedder = await fresh();
    const { vectors, tokens } = await embedder.embed(["", "   ", "hello world"]);
    expect(Array.from(vectors[0]!)).toEqual(new Array(64).fill(0));
    expect(Array.from(vectors[1]!)).toEqual(new Array(64).fill(0));
    expect(norm(vectors[2]!)).toBeCloseTo(1, 5);
    expect(tokens).toEqual([0, 0, 2]);
    expect(stub.requests.at(-1)!.input).toEqual(["hello world"]);
    expect(await embedder.embed([])).toEqual({ vectors: [], tokens: [] });
    expect(await embedder.embed([""])).toMatchObject({ tokens: [0] });
    expect(stub.requests).toHaveLength(2); // the probe and "hello world"
  });

  test(`large calls are split into requests of at most ${OPENAI_BATCH_TEXTS} texts, every one with the Bearer key`, async () => {
    const embedder = await fresh();
    const texts = words(150);
    const { vectors } = await embedder.embed(texts);
    const sizes = stub.requests.slice(1).map((r) => r.input.length);
    expect(sizes.sort((a, b) => b - a)).toEqual([64, 64, 22]);
    expect(new Set(stub.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${KEY}`]));
    expect(stub.texts.slice(1).sort()).toEqual([...texts].sort());
    // each vector is its own text's, whatever request carried it
    texts.forEach((text, i) => expect(vectors[i]![0]!).toBeCloseTo(stubVector(text, 64)[0]! / norm(stubVector(text, 64)), 5));
  });

  test("at most 4 requests are in flight; the others wait their turn", async () => {
    const embedder = await fresh();
    stub.onRequest = () => Bun.sleep(20);
    await Promise.all(Array.from({ length: 10 }, (_, i) => embedder.embed([`call ${i}`])));
    expect(stub.requests).toHaveLength(11);
    expect(stub.maxInFlight).toBe(4);
  });

  test("500 and 429 are retried, with backoff, and a Retry-After is honoured", async () => {
    const embedder = await fresh();
    stub.failures.push({ status: 500 }, { status: 429, retryAfter: "2" }, { status: 503 });
    const { vectors } = await embedder.embed(["retry me"]);
    expect(norm(vectors[0]!)).toBeCloseTo(1, 5);
    expect(stub.requests).toHaveLength(5); // probe + 3 failures + the answer
    expect(waits).toEqual([10, 2000, 40]);
  });

  test("a server that keeps failing gives up after 4 tries with the status, the body and what to check", async () => {
    const embedder = await fresh();
    stub.failures.push(...Array.from({ length: 4 }, () => ({ status: 502 })));
    const attempt = embedder.embed(["never"]);
    await expect(attempt).rejects.toBeInstanceOf(EmbeddingUnavailable);
    await expect(attempt).rejects.toThrow(/embeddings failed \(4 attempts\): HTTP 502 .*stub failure 502.*Check the embedding server's log/);
    await attempt.catch(() => {});
    expect(waits).toEqual([10, 20, 40]);
  });

  test("client errors are not retried: a wrong key names EMBEDDING_API_KEY, a rejected input the model", async () => {
    const wrongKey = await fresh().then(() => new OpenAIEmbedder({ model: "openai:stub-model", baseUrl: stub.url, apiKey: "wrong", sleep: async () => {} }));
    const before = stub.requests.length;
    await expect(wrongKey.embed(["x"])).rejects.toThrow(/HTTP 401 .*invalid api key.*Check EMBEDDING_API_KEY/);
    await wrongKey.embed(["x"]).catch(() => {});
    expect(stub.requests.length - before).toBe(2); // one request per call

    const embedder = await fresh();
    await expect(embedder.embed([`bad ${REJECT_MARKER}`])).rejects.toThrow(/HTTP 400 .*input rejected.*EMBEDDING_MODEL=openai:stub-model/);
    await embedder.embed([REJECT_MARKER]).catch(() => {});
    expect(waits).toEqual([]);
  });

  test("a request that takes too long is abandoned and retried", async () => {
    const embedder = await fresh({ timeoutMs: 200 });
    stub.onRequest = (n) => (n === 2 ? Bun.sleep(1_000) : undefined);
    const { vectors } = await embedder.embed(["slow then fast"]);
    expect(norm(vectors[0]!)).toBeCloseTo(1, 5);
    expect(stub.requests).toHaveLength(3);
    expect(waits).toEqual([10]);
  });

  test("an unreachable server is retried, then the error says to check EMBEDDING_BASE_URL", async () => {
    const closed = new EmbeddingStub();
    const url = closed.url;
    closed.stop();
    waits = [];
    const attempt = startOpenAIEmbedder({ model: "openai:m", baseUrl: url, backoffMs: 1, sleep: async (ms) => void waits.push(ms) });
    await expect(attempt).rejects.toThrow(/could not start embedding model "openai:m": .*\(4 attempts\).*Check EMBEDDING_BASE_URL/);
    await attempt.catch(() => {});
    expect(waits).toEqual([1, 2, 4]);
  });

  test("a wrong base URL (no /v1) stops the start with a hint", async () => {
    const attempt = startOpenAIEmbedder({ model: "openai:m", baseUrl: stub.url.replace(/\/v1$/, ""), apiKey: KEY });
    await expect(attempt).rejects.toThrow(/HTTP 404.*Check EMBEDDING_BASE_URL \(it usually ends in \/v1\)/);
  });

  test("an answer that is not one embedding per text, or changes dimension, fails without retry", async () => {
    const embedder = await fresh();
    stub.onRequest = (n) => {
      if (n === 2) stub.dimension = 32;
    };
    await expect(embedder.embed(["other dimension"])).rejects.toThrow(/answered 32-d embeddings for openai:stub-model, 64-d at start/);
    await embedder.embed(["x"]).catch(() => {});
    expect(stub.requests).toHaveLength(3);

    // a server answering one embedding whatever it is sent
    const short = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ data: [{ index: 0, embedding: [1, 0] }] }) });
    try {
      const attempt = startOpenAIEmbedder({ model: "openai:m", baseUrl: `http://127.0.0.1:${short.port}/v1`, sleep: async () => {} }).then((e) => e.embed(["a", "b"]));
      await expect(attempt).rejects.toThrow(/the answer has 1 embeddings for 2 texts/);
      await attempt.catch(() => {});
    } finally {
      short.stop(true);
    }
  });

  test("startEmbedder picks this embedder for openai:<model>, and needs a base URL for it", async () => {
    await fresh();
    const embedder = await startEmbedder({ model: "openai:stub-model", cacheDir: "/nonexistent", baseUrl: stub.url, apiKey: KEY });
    expect(embedder).toBeInstanceOf(OpenAIEmbedder);
    expect(embedder.dimension).toBe(64);
    await embedder.close();
    await expect(embedder.embed(["after close"])).rejects.toThrow(/closed/);
    await expect(startEmbedder({ model: "openai:stub-model", cacheDir: "/nonexistent" })).rejects.toThrow(/needs EMBEDDING_BASE_URL/);
  });

  test("fact signatures are the domain's own", async () => {
    const embedder = await fresh();
    const texts = ["User prefers dark mode", "The user doesn't use Vim anymore"];
    expect(await embedder.factSignatures(texts)).toEqual(texts.map((t) => [...factSignature(t)]));
  });
});

describe("token counts and Retry-After", () => {
  test("the server's count is split in proportion to each text's estimate; the sum is exact", () => {
    const texts = ["a".repeat(40), "b".repeat(4), "c".repeat(400)];
    expect(apportion(undefined, texts)).toEqual([10, 1, 100]);
    const split = apportion(37, texts);
    expect(split.reduce((a, b) => a + b, 0)).toBe(37);
    expect(split[2]!).toBeGreaterThan(split[0]!);
    expect(split[0]!).toBeGreaterThanOrEqual(split[1]!);
    expect(apportion(5, ["x"])).toEqual([5]);
  });

  test("Retry-After in seconds or as a date, capped; garbage is ignored", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("86400", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs("-5", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
