/**
 * WORKERS=2 as a user runs it (`bun scripts/start.ts`): two service processes on one port
 * (src/cluster.ts). What is written through any connection is read back through any other (each
 * process patches its per-wallet cache from the change log), a worker that dies is replaced, and
 * SIGTERM stops every process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { MODEL_CACHE_DIR, sendJson, TestWallet } from "./helpers/harness";
import { scrape, value } from "./helpers/scrape";

const ROOT = resolve(import.meta.dir, "..");
let dataDir: string;
let supervisor: Subprocess;
let url: string;
const wallet = new TestWallet();

/** A free port (SO_REUSEPORT would let two test runs share one, so pick and check it). */
function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", reusePort: false, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/** Each request on a new connection, so the kernel spreads them over the workers. */
async function call(method: string, path: string, body?: unknown) {
  const auth = await wallet.header(Math.floor(Date.now() / 1000));
  return sendJson(fetch, url + path, method, body, { "x-wallet-auth": auth, connection: "close" });
}

function workerPids(): number[] {
  const out = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(supervisor.pid)]).stdout.toString();
  return out.split("\n").map((s) => Number(s.trim())).filter((n) => n > 0);
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "engram-cluster-"));
  const port = freePort();
  url = `http://127.0.0.1:${port}`;
  supervisor = Bun.spawn(["bun", join(ROOT, "scripts/start.ts")], {
    env: { ...process.env, WORKERS: "2", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, MODEL_CACHE_DIR, FREE_TIER_CALLS: "100000" },
    stdout: "ignore",
    stderr: "inherit",
  });
  // both workers listening: two processes, and health answers
  await until("two workers", () => (workerPids().length === 2 ? true : undefined));
  await until("health", async () => ((await fetch(`${url}/health`).catch(() => null))?.ok ? true : undefined));
  await Bun.sleep(500); // the second worker may still be starting
});

afterAll(async () => {
  const workers = supervisor ? workerPids() : []; // before the supervisor goes: then they are no longer its children
  if (supervisor && supervisor.exitCode === null) supervisor.kill("SIGKILL");
  for (const pid of workers) process.kill(pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("WORKERS=2: two processes on one port", () => {
  test("writes through any connection are read through any other: get, list, search and recall", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await call("POST", "/v1/store", { content: `Cluster fact number ${i}: the codeword is quux${i}zz`, namespace: "cluster" });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
      // read back at once, on other connections: the writer's process or the other one
      for (let j = 0; j < 3; j++) {
        const search = await call("POST", "/v1/search", { query: `quux${i}zz`, namespace: "cluster" });
        expect(search.status).toBe(200);
        expect(search.body.memories.map((m: { id: string }) => m.id)).toEqual([ids[i]]);
      }
    }
    const list = await call("GET", "/v1/memories?namespace=cluster&limit=50");
    expect(list.body.total).toBe(12);
    const deleted = ids.slice(0, 4);
    for (const id of deleted) expect((await call("DELETE", `/v1/memories/${id}`)).status).toBe(200);
    for (let j = 0; j < 6; j++) {
      const after = await call("GET", "/v1/memories?namespace=cluster&limit=50");
      expect(after.body.total).toBe(8);
      const recall = await call("POST", "/v1/recall", { query: "cluster fact codeword", namespace: "cluster", limit: 20 });
      const recalled = recall.body.memories.map((m: { id: string }) => m.id);
      expect(recalled.length).toBe(8);
      for (const id of deleted) expect(recalled).not.toContain(id);
    }
  });

  test("concurrent batch stores that merge duplicates, through both workers, all succeed", async () => {
    // each batch merges into memories the others store too: both workers read, then write the same
    // rows; a write transaction that did not take the write lock first failed with SQLITE_BUSY (500)
    const shared = Array.from({ length: 60 }, (_, i) => `Shared cluster note ${i}: the deploy window is Tuesday at ${i}:00`);
    const batch = (n: number) => ({
      memories: [...shared.map((content) => ({ content, namespace: "merge", importance: (n % 10) / 10 })), ...Array.from({ length: 20 }, (_, i) => ({ content: `Batch ${n} note ${i}: ticket ${n * 100 + i} is open`, namespace: "merge" }))],
    });
    const answers = await Promise.all(Array.from({ length: 48 }, (_, n) => call("POST", "/v1/store/batch", batch(n))));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    // every batch's own notes once; a shared note at least once (two batches checking for it at the
    // same moment may both store it: dedup is not serialized across concurrent requests)
    const listed = await call("GET", "/v1/memories?namespace=merge&limit=100");
    expect(listed.body.total).toBeGreaterThanOrEqual(60 + 48 * 20);
    for (let n = 0; n < 48; n += 12) {
      const own = await call("GET", `/v1/memories/search?q=${encodeURIComponent(`ticket ${n * 100 + 7}`)}&namespace=merge`);
      expect(own.body.memories.filter((m: { content: string }) => m.content.includes(`ticket ${n * 100 + 7} `)).length).toBe(1);
    }
  });

  test("a session token from one worker is accepted by the other", async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await wallet.account.signMessage({ message: `service-auth:${timestamp}` });
    const session = await sendJson(fetch, `${url}/auth/session`, "POST", { address: wallet.address, timestamp, signature }, { connection: "close" });
    expect(session.status).toBe(200);
    for (let i = 0; i < 8; i++) {
      const res = await sendJson(fetch, `${url}/v1/free-tier/status`, "GET", undefined, { authorization: `Bearer ${session.body.token}`, connection: "close" });
      expect(res.status).toBe(200);
    }
  });

  test("/metrics sums both workers, whichever answers the scrape", async () => {
    const requests = 24;
    for (let i = 0; i < requests; i++) expect((await fetch(`${url}/v1/free-tier/info`, { headers: { connection: "close" } })).status).toBe(200);
    const counted: number[] = [];
    for (let i = 0; i < 6; i++) {
      const metrics = await scrape(url, { connection: "close" });
      counted.push(value(metrics, "engram_http_requests_total", { route: "/v1/free-tier/info", status: "200" }));
      expect(value(metrics, "engram_process_resident_memory_bytes")).toBeGreaterThan(0);
    }
    expect(counted).toEqual(counted.map(() => requests));
  });

  test("a worker that dies is replaced; the service keeps answering meanwhile", async () => {
    const [victim, survivor] = workerPids();
    process.kill(victim!, "SIGKILL");
    const res = await until("an answer from the surviving worker", async () => {
      const r = await call("GET", "/v1/memories?namespace=cluster&limit=1").catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    });
    expect(res.body.total).toBe(8);
    const replaced = await until("a replacement worker", () => {
      const pids = workerPids();
      return pids.length === 2 && !pids.includes(victim!) ? pids : undefined;
    });
    expect(replaced).toContain(survivor!);
  });

  test("SIGTERM stops the supervisor and every worker", async () => {
    const pids = workerPids();
    supervisor.kill("SIGTERM");
    expect(await supervisor.exited).toBe(0);
    for (const pid of pids) {
      await until(`worker ${pid} to exit`, () => (Bun.spawnSync(["kill", "-0", String(pid)]).exitCode !== 0 ? true : undefined), 10_000);
    }
  });
});
