import { describe, expect, test } from "bun:test";
import { ErrorReply, MultiErrorReply, SocketClosedUnexpectedlyError, ClientClosedError, TimeoutError } from "redis";
import { asStoreError, roundTrip } from "../../src/store/redis/round-trips";
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
    expect(unexpected).toBe(true);
    expect(toErrorReply("UNKNOWN", new Error("boom")).reply.status).toBe(500);
  });
});
