import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { Client, MODEL_CACHE_DIR, TestWallet } from "./helpers/harness";
import { EmbeddingStub } from "./helpers/embedding-stub";

const ROOT = resolve(import.meta.dir, "..");
const MEMORIES = 150;
const CITIES = ["Lisbon", "Osaka", "Denver", "Nairobi", "Tallinn", "Quito", "Perth", "Bergen", "Hanoi", "Cusco"];
const TOOLS = ["Postgres", "Redis", "Kafka", "Terraform", "Grafana"];
/** Distinct facts (no two merge on store): project i, a tool and a city. */
const contents = Array.from({ length: MEMORIES }, (_, i) => `Project orbit${i} runs ${TOOLS[i % 5]} in ${CITIES[Math.floor(i / 15)]}`);

/** `bun run reembed` as a child process; stderr collected. Async: the stub answers from this process. */
function reembed(env: Record<string, string>) {
  const child = Bun.spawn(["bun", "scripts/reembed.ts"], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "ignore", stderr: "pipe" });
  const log = new Response(child.stderr).text();
  return { child, done: child.exited.then(async (code) => ({ code, log: await log })) };
}

describe("bun run reembed moves a store between a local model and an OpenAI-compatible server", () => {
  let dataDir: string;
  let stub: EmbeddingStub;
  const wallets = [new TestWallet(), new TestWallet()];
  const base = () => ({ DATA_DIR: dataDir, MODEL_CACHE_DIR, PORT: "0", HOST: "127.0.0.1" });
  const remote = () => ({ ...base(), EMBEDDING_MODEL: "openai:stub", EMBEDDING_BASE_URL: stub.url });
  const local = () => ({ ...base(), EMBEDDING_MODEL: "glove-sif-100d" });

  /** The service on `env`; `check` runs against it with each wallet's client, then it stops. */
  async function withService(env: Record<string, string>, check: (clients: Client[]) => Promise<void>): Promise<void> {
    const server = await startServer(loadConfig(env));
    try {
      await check(wallets.map((w) => new Client({ url: server.url, now: Date.now }, w)));
    } finally {
      await server.stop();
    }
  }

  /** Each wallet recalls one of its own memories by its words, and counts its own memories. */
  async function recallWorks(clients: Client[]): Promise<void> {
    for (const [w, client] of clients.entries()) {
      const own = contents.filter((_, i) => i % 2 === w);
      const recall = await client.post("/v1/recall", { query: `which tool does project orbit${w + 100} run` });
      expect(recall.status).toBe(200);
      expect(recall.body.memories[0].content).toBe(contents[w + 100]);
      expect((await client.get("/v1/memories/count")).body.count).toBe(own.length);
    }
  }

  /**
   * Runs reembed towards the stub and kills it (SIGKILL) as it sends its second batch: the run's
   * first request is the start-up probe, the next the first batch. Returns that batch's texts.
   */
  async function killedAfterFirstBatch(env: Record<string, string>): Promise<string[]> {
    const sent = stub.requests.length;
    const run = reembed(env);
    stub.onRequest = (n) => {
      if (n === sent + 3) run.child.kill("SIGKILL");
    };
    const killed = await run.done;
    stub.onRequest = null;
    expect(killed.code).not.toBe(0);
    expect(stub.requests).toHaveLength(sent + 3);
    const firstBatch = stub.requests[sent + 1]!.input;
    expect(firstBatch).toHaveLength(64);
    return firstBatch;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "engram-reembed-"));
    stub = new EmbeddingStub();
    // Filled over HTTP with the local default model, memories alternating between two wallets.
    await withService(local(), async (clients) => {
      for (const [w, client] of clients.entries()) {
        const res = await client.post("/v1/store/batch", { memories: contents.filter((_, i) => i % 2 === w).map((content) => ({ content })) });
        expect(res.status).toBe(201);
        expect(res.body.count).toBe(MEMORIES / 2);
      }
    });
  }, 120_000);
  afterAll(() => {
    stub.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("local → openai: a run killed midway, then a rerun that embeds only the rest", async () => {
    await withService(remote(), async () => {}).then(
      () => expect.unreachable("the store is bound to glove-sif-100d"),
      (error: Error) => expect(error.message).toMatch(/embedded with "glove-sif-100d" \(100-d\) but EMBEDDING_MODEL is "openai:stub" \(64-d\)/),
    );

    const firstBatch = await killedAfterFirstBatch(remote());
    const progress = readdirSync(dataDir).filter((f) => f.startsWith("reembed-"));
    expect(progress).toHaveLength(1);
    expect(readFileSync(join(dataDir, progress[0]!), "utf8").trim().split("\n")).toHaveLength(1 + 64); // header + the batch's ids

    const sentBefore = stub.requests.length;
    const rerun = await reembed(remote()).done;
    expect(rerun.code).toBe(0);
    expect(rerun.log).toContain("resuming: 64 memories were already re-embedded with openai:stub");
    expect(rerun.log).toContain(`${MEMORIES}/${MEMORIES} (100%)`);
    expect(rerun.log).toContain(`now embedded with openai:stub (64-d), ${MEMORIES - 64} in this run`);
    const resent = stub.requests.slice(sentBefore + 1).flatMap((r) => r.input); // after the probe
    expect(resent.sort()).toEqual(contents.filter((c) => !firstBatch.includes(c)).sort());
    expect(readdirSync(dataDir).filter((f) => f.startsWith("reembed-"))).toEqual([]); // done: nothing to resume

    await withService(remote(), recallWorks);
  }, 120_000);

  test("openai → local and back; an interrupted run's progress is dropped once the store moved to another model", async () => {
    const back = await reembed(local()).done;
    expect(back.code).toBe(0);
    expect(back.log).not.toContain("resuming");
    expect(back.log).toContain(`now embedded with glove-sif-100d (100-d), ${MEMORIES} in this run`);
    await withService(local(), recallWorks);

    await killedAfterFirstBatch(remote()); // leaves progress towards openai:stub…
    expect((await reembed(local()).done).code).toBe(0); // …which is stale once the store is back on glove
    const again = await reembed(remote()).done;
    expect(again.code).toBe(0);
    expect(again.log).not.toContain("resuming");
    expect(again.log).toContain(`now embedded with openai:stub (64-d), ${MEMORIES} in this run`);
    await withService(remote(), recallWorks);
  }, 120_000);

  test("a provider that stops answering stops the run with what to do next", async () => {
    const sent = stub.requests.length;
    stub.onRequest = (n) => {
      if (n > sent + 1) stub.failures.push({ status: 400 }); // the probe passes, the first batch is refused
    };
    const failed = await reembed(remote()).done;
    stub.onRequest = null;
    expect(failed.code).toBe(1);
    expect(failed.log).toMatch(/stopped after 0 of 150 memories: embedding request to .* failed: HTTP 400/);
    expect(failed.log).toContain("run it again to continue where it stopped");
  }, 120_000);
});
