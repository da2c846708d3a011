import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { StoreUnavailable, WriteNotReplicated } from "../src/domain/store-port";
import { RedisStore } from "../src/store/redis/redis-store";
import { WAIT_TIMEOUT_MS } from "../src/store/redis/replication";
import { FakeRedis, HANG_UP, RedisError, type Reply } from "./helpers/fake-redis";
import { Client, startService, type TestService } from "./helpers/harness";

/**
 * Redis Cluster under faults, without a Redis: a fake server on loopback (helpers/fake-redis.ts)
 * serves the engine's start-up and then answers a request's commands the way a failing server,
 * cluster or RediSearch coordinator does. Every such answer is a 503 `store_unavailable` with
 * Retry-After, never a 500; a bug's reply stays a 500; a server that never answers is a 503 within
 * the command bound; a pending WAIT holds up neither other wallets nor other WAITs.
 */

/** What a server, a cluster node or RediSearch's coordinator answers during a failover, a resharding or overload. */
const OUTAGE_REPLIES = [
  "CLUSTERDOWN The cluster is down",
  "CLUSTERDOWN Hash slot not served",
  "TRYAGAIN Multiple keys request during rehashing of slot",
  "LOADING Redis is loading the dataset in memory",
  "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
  "READONLY You can't write against a read only replica.",
  "NOREPLICAS Not enough good replicas to write.",
  "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)",
  "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.",
  "ERRCLUSTER Uninitialized cluster state, could not perform command",
  "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.",
];
/** The coordinator's, answered to FT.SEARCH / FT.AGGREGATE (RediSearch 2.x and 8.x wordings). */
const COORDINATOR_REPLIES = [
  "Could not send query to cluster",
  "Timeout calling command",
  "Failed to communicate with shards",
  "Could not distribute command",
  "SEARCH_DIST_FAILED Could not distribute the operation",
  "SEARCH_CLUSTER_NO_RESPONSES no responses received",
  "SEARCH_SLOTS_UNAVAIL Query requires unavailable slots",
  "SEARCH_TIMEOUT Timeout limit was reached",
  "Timeout limit was reached",
];
/** A bug or bad data: must stay visible as a 500. */
const BUG_REPLIES = ["WRONGTYPE Operation against a key holding the wrong kind of value", "ERR syntax error", "ERR unknown command 'FT.SERACH'"];

/** The bound the stores below run with (REDIS_COMMAND_TIMEOUT_MS). */
const BOUND_MS = 300;
const isSearch = (args: string[]) => args[0]!.toUpperCase().startsWith("FT.SEARCH") || args[0]!.toUpperCase().startsWith("FT.AGGREGATE");

/**
 * Replies the fake holds back: a server that does not answer (frozen, overloaded, cut off). Each
 * test answers them at its end, as such a server does once it is back: the connection is free again.
 */
class HeldReplies {
  private readonly pending: ((reply: Reply) => void)[] = [];
  hold = (): Promise<Reply> => new Promise((resolve) => this.pending.push(resolve));
  get count(): number {
    return this.pending.length;
  }
  answerNext(reply: Reply): void {
    this.pending.shift()!(reply);
  }
  answerAll(reply: Reply): void {
    for (const answer of this.pending.splice(0)) answer(reply);
  }
}

async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`still waiting after ${limitMs} ms for ${what}`);
    await Bun.sleep(5);
  }
}

describe("every Redis fault is a 503 with Retry-After, over HTTP", () => {
  const fake = FakeRedis.start();
  const held = new HeldReplies();
  let service: TestService;
  afterEach(() => {
    fake.fault = null; // the commands queued behind a held one get their normal replies
    held.answerAll([0]);
  });

  beforeAll(async () => {
    const open = () => RedisStore.connect(fake.url, { keyPrefix: "engram-faults:", commandTimeoutMs: BOUND_MS });
    service = await startService({ name: "redis (fake)", open });
  });
  afterAll(async () => {
    fake.fault = null;
    await service?.stop();
    fake.stop();
  });

  /** A list request of a wallet never seen: its record is read first (HGET), then the list searched. */
  const list = () => new Client(service).get("/v1/memories");

  const expect503 = (reply: Awaited<ReturnType<typeof list>>, cause: string) => {
    expect({ cause, status: reply.status }).toEqual({ cause, status: 503 });
    expect(reply.headers.get("retry-after")).toBe("1");
    expect(reply.body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(reply.body.error.details.reason).toBe("store_unavailable");
    expect(typeof reply.body.error.details.request_id).toBe("string");
    expect(JSON.stringify(reply.body)).not.toContain(cause); // the cause is logged, not shown
  };

  test("the service answers over the fake server when nothing fails", async () => {
    fake.fault = null;
    const reply = await list();
    expect(reply.status).toBe(200);
    expect(reply.body.memories).toEqual([]);
  });

  test.each(OUTAGE_REPLIES)("every command answered %p: 503", async (message) => {
    fake.fault = () => new RedisError(message);
    expect503(await list(), message);
  });

  test.each(COORDINATOR_REPLIES)("FT.SEARCH answered %p by the coordinator: 503", async (message) => {
    fake.fault = (args) => (isSearch(args) ? new RedisError(message) : undefined);
    expect503(await list(), message);
  });

  test("a connection the server closes mid-request: 503, and served again once reconnected", async () => {
    fake.fault = (args) => (isSearch(args) ? HANG_UP : undefined);
    expect503(await list(), "Socket closed unexpectedly");
    fake.fault = null;
    // meanwhile a request is refused at once (nothing queued to run later); then the connection is back
    let reply = await list();
    for (const started = Date.now(); reply.status !== 200 && Date.now() - started < 10_000; reply = await list()) expect503(reply, "The client is offline");
    expect(reply.status).toBe(200);
  });

  test("a server that never answers: 503 once the command bound has passed, not a hang", async () => {
    fake.fault = (args) => (isSearch(args) ? held.hold() : undefined);
    const started = Date.now();
    const reply = await list();
    expect(held.count).toBeGreaterThan(0);
    const waited = Date.now() - started;
    expect503(reply, "no reply");
    expect(waited).toBeGreaterThanOrEqual(BOUND_MS);
    expect(waited).toBeLessThan(BOUND_MS + 5000);
  });

  test.each(BUG_REPLIES)("a bug's reply %p stays a 500 INTERNAL_ERROR", async (message) => {
    fake.fault = (args) => (isSearch(args) ? new RedisError(message) : undefined);
    const reply = await list();
    expect(reply.status).toBe(500);
    expect(reply.body.error.code).toBe("INTERNAL_ERROR");
    expect(reply.headers.get("retry-after")).toBeNull();
  });
});

describe("the engine maps each fault to StoreUnavailable", () => {
  const fake = FakeRedis.start();
  const held = new HeldReplies();
  let store: RedisStore;
  afterEach(() => {
    fake.fault = null;
    held.answerAll(null);
  });

  beforeAll(async () => {
    store = await RedisStore.connect(fake.url, { keyPrefix: "engram-faults:", commandTimeoutMs: BOUND_MS });
  });
  afterAll(async () => {
    fake.fault = null;
    await store?.close();
    fake.stop();
  });

  test.each([...OUTAGE_REPLIES, ...COORDINATOR_REPLIES])("%p in a command, a transaction and a pipeline", async (message) => {
    fake.fault = () => new RedisError(message);
    const wallet = `0x${crypto.randomUUID().replaceAll("-", "")}`;
    for (const call of [() => store.userIdForWallet(wallet), () => store.getMemories("user-1", ["m-1"], Date.now()), () => store.history("user-1", "m-1")]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailable);
      expect((error as Error).message).toContain(message);
    }
  });

  test("a bug's reply is not StoreUnavailable", async () => {
    fake.fault = () => new RedisError("WRONGTYPE Operation against a key holding the wrong kind of value");
    const error = await store.freeCallsUsed("0xabc").catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(StoreUnavailable);
    expect((error as Error).message).toStartWith("WRONGTYPE");
  });

  test("no reply: StoreUnavailable after the bound, for a command and for a transaction", async () => {
    fake.fault = held.hold;
    for (const call of [() => store.freeCallsUsed("0xabc"), () => store.history("user-1", "m-1")]) {
      const started = Date.now();
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailable);
      expect((error as Error).message).toMatch(/^no reply from Redis within \d+ ms$/); // a batch gets a little more per command
      expect(Date.now() - started).toBeGreaterThanOrEqual(BOUND_MS);
      expect(held.count).toBeGreaterThan(0);
      held.answerAll(null);
    }
  });

  test("a server gone: StoreUnavailable at once, and what was refused meanwhile does not run once it is back", async () => {
    fake.fault = null;
    const port = fake.port;
    fake.stop();
    // at once: the connection's close may still be on its way, then each command is refused
    let refused: unknown;
    for (const started = Date.now(); Date.now() - started < 10_000; await Bun.sleep(5)) {
      refused = await store.freeCallsUsed("0xabc").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StoreUnavailable);
      if ((refused as Error).message === "The client is offline") break;
    }
    expect((refused as Error).message).toBe("The client is offline");
    // a transaction and a pipeline sent while reconnecting, the server back right after
    const calls = [store.history("user-gone", "m-gone"), store.getMemories("user-gone", ["m-gone"], Date.now())].map((call) => call.catch((e: unknown) => e));
    const back = FakeRedis.start(port);
    try {
      for (const error of await Promise.all(calls)) expect(error).toBeInstanceOf(StoreUnavailable);
      let served = false;
      for (const started = Date.now(); !served && Date.now() - started < 10_000; await Bun.sleep(20)) served = await store.freeCallsUsed("0xabc").then(() => true, () => false);
      expect(served).toBe(true);
      // held for the reconnection, they would run now, after their requests were answered 503
      expect(back.received.filter((args) => args.some((arg) => arg.includes("user-gone")))).toEqual([]);
    } finally {
      back.stop();
    }
  });
});

describe("REDIS_WAIT_REPLICAS: a pending WAIT holds up no other request", () => {
  const fake = FakeRedis.start();
  let store: RedisStore;
  /** WAITs the fake is holding, as a master does until its replicas answer; answered with the replicas that did. */
  const held = new HeldReplies();

  beforeAll(async () => {
    store = await RedisStore.connect(fake.url, { keyPrefix: "engram-faults:", waitReplicas: 1 });
    fake.fault = (args) => {
      if (args[0]!.toUpperCase() !== "WAIT") return undefined;
      expect(args).toEqual(["WAIT", "1", String(WAIT_TIMEOUT_MS)]);
      return held.hold();
    };
  });
  afterAll(async () => {
    held.answerAll(0);
    await store?.close();
    fake.stop();
  });

  test("other wallets' reads are answered while a write waits for its replica", async () => {
    const write = store.softDelete("user-a", ["m-1"], Date.now()).catch((e: unknown) => e);
    await until(() => held.count === 1, "the write's WAIT");
    // on the connection every request shares, this read would wait behind the WAIT
    expect(await store.freeCallsUsed("0xb0b")).toBe(0);
    expect(held.count).toBe(1); // the WAIT is still pending
    held.answerNext(1);
    expect(await write).toBeUndefined();
  });

  test("writes wait for their replicas side by side, and each not replicated is answered as such", async () => {
    const writes = ["user-a", "user-b", "user-c"].map((user) => store.softDelete(user, ["m-1"], Date.now()).catch((e: unknown) => e));
    // one connection would run the WAITs one after another: the second only once the first is answered
    await until(() => held.count === 3, "three WAITs pending at once");
    held.answerAll(0);
    for (const error of await Promise.all(writes)) {
      expect(error).toBeInstanceOf(WriteNotReplicated);
      expect((error as WriteNotReplicated).acknowledged).toBe(0);
    }
  });

  test("a new wallet's record and a relation are confirmed on a connection of their own too", async () => {
    const lookUp = store.userIdForWallet("0xc0ffee");
    await until(() => held.count === 1, "the new wallet's WAIT");
    expect(await store.freeCallsUsed("0xb0b")).toBe(0);
    held.answerNext(1);
    expect(typeof (await lookUp)).toBe("string");
    const relation = { id: "r-1", user_id: "user-a", source_id: "m-1", target_id: "m-2", relation_type: "related_to", metadata: {}, created_at: new Date().toISOString() };
    const created = store.createRelation("user-a", relation as never);
    await until(() => held.count === 1, "the relation's WAIT");
    expect(await store.freeCallsUsed("0xb0b")).toBe(0);
    held.answerNext(1);
    await created;
  });
});
