import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildGloveModel } from "../src/embed/glove-model";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { EmbeddingModelMismatch } from "../src/store/model-binding";
import { Memories } from "../src/domain/memories";
import { MODEL_CACHE_DIR, embedder } from "./helpers/harness";

const ROOT = resolve(import.meta.dir, "..");

describe("the store is bound to one embedding model", () => {
  let dataDir: string;
  let otherModelDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "engram-binding-"));
    const cache = mkdtempSync(join(tmpdir(), "engram-model-"));
    // A second, different local model: same construction, smaller vocabulary, loaded as a folder.
    otherModelDir = (await buildGloveModel({ cacheDir: cache, vocabSize: 20_000, name: "glove-small" }, false)).dir;
    const store = new SqliteStore(dataDir);
    const emb = await embedder();
    await store.bindEmbeddingModel({ id: emb.modelId, dimension: emb.dimension });
    const memories = new Memories(store, emb, Date.now, 0.95);
    await memories.storeMany(await store.userIdForWallet("0xabc"), [
      { content: "The staging cluster runs in Frankfurt" },
      { content: "User prefers tabs over spaces" },
    ]);
    await store.close();
  }, 120_000); // builds a second model: seconds, more on a loaded machine
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test("binding another model fails with a message that says how to migrate; force rebinds", async () => {
    const store = new SqliteStore(dataDir);
    const attempt = store.bindEmbeddingModel({ id: "other-model", dimension: 384 });
    expect(attempt).rejects.toBeInstanceOf(EmbeddingModelMismatch);
    expect(attempt).rejects.toThrow(/embedded with "glove-sif-100d" \(100-d\).*bun run reembed/);
    await store.close();
  });

  test("the service refuses to start with another model, and starts after `reembed`", async () => {
    const env = { DATA_DIR: dataDir, MODEL_CACHE_DIR, EMBEDDING_MODEL: otherModelDir, PORT: "0", HOST: "127.0.0.1" };
    expect(startServer(loadConfig(env))).rejects.toThrow(/bun run reembed/);

    const reembed = Bun.spawnSync(["bun", "scripts/reembed.ts"], { cwd: ROOT, env: { ...process.env, ...env }, stderr: "pipe" });
    const log = reembed.stderr.toString();
    expect(reembed.exitCode).toBe(0);
    expect(log).toContain("2/2 (100%)");
    expect(log).toContain(`now embedded with ${otherModelDir}`);

    const server = await startServer(loadConfig(env));
    try {
      const health = await fetch(`${server.url.replace("0.0.0.0", "127.0.0.1")}/health`).then((r) => r.json());
      expect(health).toMatchObject({ status: "ok", engine: "sqlite", embedding_model: otherModelDir });
    } finally {
      await server.stop();
    }
  });
});
