import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { Client, MODEL_CACHE_DIR } from "./helpers/harness";
import { EmbeddingStub, REJECT_MARKER } from "./helpers/embedding-stub";

/** The service as an operator runs it with EMBEDDING_MODEL=openai:<model>, on a local stub server. */
const KEY = "sk-provider-test";

describe("the service on an OpenAI-compatible embedding server", () => {
  let stub: EmbeddingStub;
  let dataDir: string;
  let env: Record<string, string>;
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: Client;

  beforeAll(async () => {
    stub = new EmbeddingStub({ apiKey: KEY });
    dataDir = mkdtempSync(join(tmpdir(), "engram-openai-"));
    env = { DATA_DIR: dataDir, MODEL_CACHE_DIR, EMBEDDING_MODEL: "openai:stub", EMBEDDING_BASE_URL: stub.url, EMBEDDING_API_KEY: KEY, PORT: "0", HOST: "127.0.0.1" };
    server = await startServer(loadConfig(env));
    client = new Client({ url: server.url, now: Date.now });
  });
  afterAll(async () => {
    await server?.stop();
    stub.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("health names the provider's model; start-up probed it with the key", async () => {
    const health = await fetch(`${server.url}/health`).then((r) => r.json());
    expect(health).toMatchObject({ status: "ok", engine: "sqlite", embedding_model: "openai:stub" });
    expect(stub.requests[0]).toMatchObject({ authorization: `Bearer ${KEY}`, model: "stub" });
  });

  test("store, recall and search work, every embedding from the provider", async () => {
    const before = stub.texts.length;
    const stored = await client.post("/v1/store/batch", {
      memories: [{ content: "Rosa keeps a parrot named Kiwi" }, { content: "The staging cluster runs in Frankfurt" }, { content: "User prefers tabs over spaces" }],
    });
    expect(stored.status).toBe(201);
    expect(stored.body.count).toBe(3);
    expect(stored.body.tokens_used).toBe(6 + 6 + 5); // the stub's usage: words sent
    expect(stored.body.memories[0].embedding_model).toBe("openai:stub");

    const recall = await client.post("/v1/recall", { query: "which parrot does Rosa keep" });
    expect(recall.status).toBe(200);
    expect(recall.body.query_tokens).toBe(5);
    expect(recall.body.memories[0].content).toBe("Rosa keeps a parrot named Kiwi");
    expect(recall.body.memories[0]._signals.vector).toBeGreaterThan(0.3);

    const search = await client.post("/v1/search", { query: "Frankfurt" });
    expect(search.status).toBe(200);
    expect(search.body.memories.map((m: { content: string }) => m.content)).toEqual(["The staging cluster runs in Frankfurt"]);

    expect(stub.texts.slice(before)).toContain("which parrot does Rosa keep");
    expect(new Set(stub.requests.map((r) => r.authorization))).toEqual(new Set([`Bearer ${KEY}`]));
  });

  test("a provider failure is a 503 the client can retry, never a 500, and stores nothing", async () => {
    const recall = await client.post("/v1/recall", { query: `parrot ${REJECT_MARKER}` });
    expect(recall.status).toBe(503);
    expect(recall.body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { reason: "embedding_unavailable" } });
    expect(recall.body.error.details.request_id).toBeString();
    expect(recall.body.error.message).not.toContain(stub.url); // the server's address stays in the log

    const count = async () => (await client.get("/v1/memories/count")).body.count as number;
    const before = await count();
    const store = await client.post("/v1/store", { content: `never stored ${REJECT_MARKER}` });
    expect(store.status).toBe(503);
    expect(await count()).toBe(before);
  });

  test("the store is bound to openai:stub: another model refuses to start, naming both and the migration", async () => {
    await server.stop();
    const local = startServer(loadConfig({ ...env, EMBEDDING_MODEL: "glove-sif-100d" }));
    await expect(local).rejects.toThrow(/embedded with "openai:stub" \(64-d\) but EMBEDDING_MODEL is "glove-sif-100d" \(100-d\).*bun run reembed/);
    // same dimension, other model: still refused
    const other = startServer(loadConfig({ ...env, EMBEDDING_MODEL: "openai:other" }));
    await expect(other).rejects.toThrow(/embedded with "openai:stub" \(64-d\) but EMBEDDING_MODEL is "openai:other" \(64-d\)/);
    server = await startServer(loadConfig(env));
    client = new Client({ url: server.url, now: Date.now }, client.wallet);
    const recall = await client.post("/v1/recall", { query: "staging cluster" });
    expect(recall.body.memories[0].content).toBe("The staging cluster runs in Frankfurt");
  });
});
