/**
 * Batch stores may have their fact signatures read elsewhere (a FactReader: the embedders' fact thread).
 * The dedup outcomes must be the same with the worker, without a reader, and with a reader that fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store";
import { Memories } from "../../src/domain/memories";
import type { FactReader } from "../../src/domain/ports";
import type { Embedder } from "../../src/embed/embedder";
import { embedder } from "../helpers/harness";
import { knowsFactSignature, rememberFactSignature } from "../../src/domain/fact-signature";

let dir: string;
let store: SqliteStore;
let emb: Embedder;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "engram-fact-reader-"));
  store = new SqliteStore(dir);
  emb = await embedder();
  await store.bindEmbeddingModel({ id: emb.modelId, dimension: emb.dimension });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Stores three memories about `name`, then a batch of paraphrases, an exact duplicate, near-misses
 * (another number, swapped roles, a moved single word) and a pair of the batch that are one fact.
 * A name per run keeps each run's texts new to the process-wide signature cache.
 */
async function run(name: string, reader?: FactReader) {
  const memories = new Memories(store, emb, Date.now, 0.95, reader);
  const userId = await store.userIdForWallet(`0x${name}`);
  const stored = async (content: string) => (await memories.storeMany(userId, [{ content }])).ids[0]!;
  const tabs = await stored(`${name} prefers tabs over spaces`);
  const spaces = await stored(`${name} prefers spaces over tabs`);
  const pg15 = await stored(`The API of ${name} runs on Postgres 15`);
  const batch = [
    `${name} prefers spaces over tabs.`,
    `The API of ${name} runs on Postgres 16`,
    `the API of ${name} runs on postgres 15!`,
    `${name} prefers tabs over spaces`,
    `${name} prefers dark mode in the editor`,
    `In the editor, ${name} prefers dark mode`,
  ];
  const out = await memories.storeMany(userId, batch.map((content) => ({ content })));
  const label = (id: string) => ({ [tabs]: "tabs", [spaces]: "spaces", [pg15]: "pg15" })[id] ?? `new ${out.ids.indexOf(id)}`;
  return { outcome: out.ids.map(label), stored: out.stored, deduplicated: out.deduplicated, batch };
}

describe("fact signatures read by a FactReader", () => {
  test("the same dedup outcomes with the worker reading them, without a reader, and with a failing reader", async () => {
    const asked: string[][] = [];
    const worker: FactReader = { factSignatures: (texts) => (asked.push(texts), emb.factSignatures(texts)) };
    const failing: FactReader = { factSignatures: async () => Promise.reject(new Error("worker gone")) };
    const want = { outcome: ["spaces", "new 1", "pg15", "tabs", "new 4", "new 4"], stored: 2, deduplicated: 4 };

    const withWorker = await run("Alice", worker);
    expect(withWorker).toMatchObject(want);
    expect(await run("Bruno")).toMatchObject(want);
    expect(await run("Chiara", failing)).toMatchObject(want);

    // the batch asked once, for its items with close neighbours (stored or in the batch) and those
    // neighbours not read before (the stored memories' were read when they were stored, also by the worker)
    const batchAsks = asked.filter((texts) => texts.includes(withWorker.batch[0]!));
    expect(batchAsks).toHaveLength(1);
    expect(batchAsks[0]).toEqual(expect.arrayContaining([withWorker.batch[0], withWorker.batch[1], withWorker.batch[4], withWorker.batch[5]]));
    expect(asked.flat()).toContain("Alice prefers spaces over tabs");
    expect(new Set(asked.flat()).size).toBe(asked.flat().length); // nothing read twice
  });
});

describe("the signature cache", () => {
  test("keeps what is used: signatures read ahead for a batch outlast the new ones kept meanwhile", () => {
    rememberFactSignature("cache test: used", ["used"]);
    rememberFactSignature("cache test: unused", ["unused"]);
    for (let i = 0; i < 10_000; i++) {
      if (i % 1000 === 0) expect(knowsFactSignature("cache test: used")).toBe(true);
      rememberFactSignature(`cache test: filler ${i}`, []);
    }
    expect(knowsFactSignature("cache test: used")).toBe(true);
    expect(knowsFactSignature("cache test: unused")).toBe(false);
  });
});
