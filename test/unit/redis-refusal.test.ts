/**
 * A Redis server that refuses engram with an error reply and closes (protected mode, maxclients): the
 * start-up error and the logged error carry what it said, not only the closed socket
 * (src/store/redis/refusal.ts). No real Redis: a loopback TCP server plays the part.
 */
import { afterEach, expect, spyOn, test } from "bun:test";
import type { TCPSocketListener } from "bun";
import { connectRedis } from "../../src/store/redis/client";
import { refusalReason } from "../../src/store/redis/refusal";

const DENIED = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.\r\n";

let server: TCPSocketListener | undefined;
afterEach(() => server?.stop(true));

/** A server that answers the first bytes of any connection with `reply`, then closes it unless `keepOpen`. */
function fakeRedis(reply: string, keepOpen = false): string {
  server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        socket.write(reply);
        if (!keepOpen) socket.end();
      },
    },
  });
  return `redis://127.0.0.1:${server.port}`;
}

test("a server in protected mode: the start-up error and the log say so", async () => {
  const url = fakeRedis(DENIED);
  const logged = spyOn(console, "error").mockImplementation(() => {});
  try {
    const failure = await connectRedis(url, { firstConnectMs: 1000 }).then(
      () => new Error("connected"),
      (error: Error) => error,
    );
    expect(failure.message).toContain(`cannot reach Redis at ${url}`);
    expect(failure.message).toContain("Redis said: DENIED Redis is running in protected mode");
    expect(logged.mock.calls.map((call) => String(call[0])).some((line) => line.startsWith("[redis]") && line.includes("protected mode"))).toBe(true);
  } finally {
    logged.mockRestore();
  }
});

test("only an error followed by a close is a reason: not an answer, not an error on an open connection", async () => {
  expect(await refusalReason(fakeRedis(DENIED))).toStartWith("DENIED Redis is running in protected mode");
  server!.stop(true);
  expect(await refusalReason(fakeRedis("+PONG\r\n", true), 300)).toBeUndefined();
  server!.stop(true);
  expect(await refusalReason(fakeRedis("-NOAUTH Authentication required.\r\n", true), 300)).toBeUndefined();
  server!.stop(true);
  expect(await refusalReason("redis://127.0.0.1:1", 300)).toBeUndefined(); // nothing listening
});
