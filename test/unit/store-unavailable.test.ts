import { describe, expect, test } from "bun:test";
import { ErrorReply, MultiErrorReply, SocketClosedUnexpectedlyError, ClientClosedError, TimeoutError, MaxCommandRedirectionsError, ConnectionTimeoutError, SocketTimeoutError } from "redis";
import { asStoreError, batchBound, commandBound, roundTrip } from "../../src/store/redis/round-trips";
import { StoreUnavailable } from "../../src/domain/store-port";
import { toErrorReply } from "../../src/http/errors";

describe("Redis out of reach is a 503, never a 500", () => {
  test("transport errors and not-serving replies become StoreUnavailable, keeping the driver's message", () => {
    for (const error of [new SocketClosedUnexpectedlyError(), new ClientClosedError(), new ErrorReply("CLUSTERDOWN The cluster is down"), new ErrorReply("TRYAGAIN Multiple keys request during rehashing of slot"), new ErrorReply("LOADING Redis is loading the dataset in memory")]) {
      const mapped = asStoreError(error);
      expect(mapped).toBeInstanceOf(StoreUnavailable);
      expect((mapped as Error).message).toBe(error.message);
      expect((mapped as Error).cause).toBe(error);
    }
  });

  test("a command timeout (a master killed and not replaced yet) is StoreUnavailable, named since it has no message", () => {
    const mapped = asStoreError(new TimeoutError());
    expect(mapped).toBeInstanceOf(StoreUnavailable);
    expect((mapped as Error).message).toBe("TimeoutError");
  });

  test("a socket error the connection rejects its commands with (read ECONNRESET) is StoreUnavailable", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" });
    expect(asStoreError(reset)).toBeInstanceOf(StoreUnavailable);
    const other = Object.assign(new Error("EACCES"), { code: "EACCES" });
    expect(asStoreError(other)).toBe(other);
  });

  test("a pipeline with a not-serving reply among its failures is StoreUnavailable, with that reply's message", () => {
    const ok = "OK";
    const down = new ErrorReply("CLUSTERDOWN The cluster is down");
    const mapped = asStoreError(new MultiErrorReply([ok, down, down] as never, [1, 2]));
    expect(mapped).toBeInstanceOf(StoreUnavailable);
    expect((mapped as Error).message).toBe(down.message);
    const wrongType = new MultiErrorReply([ok, new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value")] as never, [1]);
    expect(asStoreError(wrongType)).toBe(wrongType);
  });

  test("other replies (a bug or bad data) stay what they are", () => {
    const wrongType = new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value");
    expect(asStoreError(wrongType)).toBe(wrongType);
    const plain = new Error("boom");
    expect(asStoreError(plain)).toBe(plain);
  });

  test("a failed round trip rejects with StoreUnavailable, and the HTTP layer answers 503 store_unavailable", async () => {
    const error = await roundTrip("command", Promise.reject(new SocketClosedUnexpectedlyError())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    const { reply, unexpected } = toErrorReply("UNKNOWN", error);
    expect(reply.status).toBe(503);
    expect(JSON.stringify(reply.body)).toContain("store_unavailable");
    expect(reply.headers).toEqual({ "retry-after": "1" });
    expect(unexpected).toBe(true);
    expect(toErrorReply("UNKNOWN", new Error("boom")).reply.status).toBe(500);
  });

  test("the driver's own outage errors: redirections run out, connect and socket timeouts, ASK to a node it does not know yet", () => {
    const moved = new ErrorReply("MOVED 3999 127.0.0.1:7002");
    for (const error of [new MaxCommandRedirectionsError(moved), new ConnectionTimeoutError(), new SocketTimeoutError(2000), new Error("Cannot find node 127.0.0.1:7004")]) {
      expect(asStoreError(error)).toBeInstanceOf(StoreUnavailable);
    }
    expect((asStoreError(new MaxCommandRedirectionsError(moved)) as Error).message).toBe("Too many Cluster redirections");
    // a name that does not resolve while a node's container restarts
    expect(asStoreError(Object.assign(new Error("getaddrinfo EAI_AGAIN redis-3"), { code: "EAI_AGAIN" }))).toBeInstanceOf(StoreUnavailable);
  });

  test("RediSearch 8's codes of an unavailable cluster, whatever the text after them", () => {
    for (const message of ["SEARCH_TIMEOUT (shard 2)", "SEARCH_CLUSTER_NO_RESPONSES", "SEARCH_SLOTS_UNAVAIL slots 0-5460", "SEARCH_DIST_FAILED", "SEARCH_GENERIC LOADING Redis is loading"]) {
      expect(asStoreError(new ErrorReply(message))).toBeInstanceOf(StoreUnavailable);
    }
    for (const message of ["SEARCH_SYNTAX Syntax error at offset 3", "SEARCH_INDEX_NOT_FOUND Index not found", "SEARCH_TIMEOUTS"]) {
      const reply = new ErrorReply(message);
      expect(asStoreError(reply)).toBe(reply);
    }
  });

  test("a code is matched as a code: BUSYKEY and BUSYGROUP are data errors, not BUSY", () => {
    for (const message of ["BUSYKEY Target key name already exists.", "BUSYGROUP Consumer Group name already exists", "ERR LOADING is not a command"]) {
      const reply = new ErrorReply(message);
      expect(asStoreError(reply)).toBe(reply);
    }
  });

  test("a round trip without a reply fails as StoreUnavailable once its bound has passed", async () => {
    const started = Date.now();
    const error = await roundTrip("command", new Promise(() => {}), 50).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as Error).message).toBe("no reply from Redis within 50 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(await roundTrip("command", Promise.resolve("OK"), 50)).toBe("OK");
  });

  test("WAIT gets its own timeout on top of the bound, and a batch a little per command", () => {
    expect(commandBound(["WAIT", "1", "1000"], 2000)).toBe(3000);
    expect(commandBound(["HGET", "k", "f"], 2000)).toBe(2000);
    expect(batchBound(1000, 2000)).toBeGreaterThan(batchBound(2, 2000));
    expect(batchBound(0, 2000)).toBe(2000);
  });
});
