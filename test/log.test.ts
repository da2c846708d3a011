/** LOG_LEVEL (src/log.ts): lines below the level are dropped; debug adds one line per request. */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { log, setLogFormat, setLogLevel } from "../src/log";
import { loadConfig } from "../src/config";
import { sendJson, startService, TestWallet } from "./helpers/harness";
import { walletTag } from "../src/http/request-log";

afterEach(() => {
  setLogLevel("info");
  setLogFormat("text");
});

function captured(run: () => void | Promise<void>) {
  const lines: string[] = [];
  const spies = (["log", "warn", "error"] as const).map((method) =>
    spyOn(console, method).mockImplementation((...parts: unknown[]) => void lines.push(`${method}: ${parts.join(" ")}`)),
  );
  return Promise.resolve(run()).then(
    () => (spies.forEach((s) => s.mockRestore()), lines),
    (error) => {
      spies.forEach((s) => s.mockRestore());
      throw error;
    },
  );
}

describe("LOG_LEVEL", () => {
  test("each level keeps its own lines and the more severe ones", async () => {
    const all = () => {
      log.error("e");
      log.warn("w");
      log.info("i");
      log.debug("d");
    };
    const at = async (level: "error" | "warn" | "info" | "debug") => {
      setLogLevel(level);
      return captured(all);
    };
    expect(await at("error")).toEqual(["error: e"]);
    expect(await at("warn")).toEqual(["error: e", "warn: w"]);
    expect(await at("info")).toEqual(["error: e", "warn: w", "log: i"]);
    expect(await at("debug")).toEqual(["error: e", "warn: w", "log: i", "log: d"]);
  });

  test("the setting defaults to info and refuses an unknown level, naming the variable", () => {
    expect(loadConfig({ DATA_DIR: "/tmp/engram-log-test" }).LOG_LEVEL).toBe("info");
    expect(loadConfig({ DATA_DIR: "/tmp/engram-log-test", LOG_LEVEL: "debug" }).LOG_LEVEL).toBe("debug");
    expect(() => loadConfig({ DATA_DIR: "/tmp/engram-log-test", LOG_LEVEL: "verbose" })).toThrow(/LOG_LEVEL="verbose"/);
  });

  test("debug logs one line per HTTP request with method, path, status and request id; info logs none", async () => {
    for (const level of ["debug", "info"] as const) {
      setLogLevel(level);
      const service = await startService();
      try {
        let id: string | null = null;
        const lines = await captured(async () => {
          const res = await fetch(`${service.url}/v1/memories`); // no credentials: 401
          expect(res.status).toBe(401);
          id = res.headers.get("x-request-id");
          await Bun.sleep(50); // the line is written after the answer is sent
        });
        const logged = lines.filter((l) => l.includes("/v1/memories"));
        if (level === "info") expect(logged).toEqual([]);
        else expect(logged).toEqual([expect.stringMatching(new RegExp(`^log: \\[engram\\] GET /v1/memories 401 [0-9.]+ ms \\(request ${id}\\)$`))]);
      } finally {
        await service.stop();
      }
    }
  });
});

describe("LOG_FORMAT=json", () => {
  const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line.slice(line.indexOf(": ") + 2)) as Record<string, unknown>);

  test("one JSON object per line: level, source and msg from the prefix, error and stack from an Error", async () => {
    setLogFormat("json");
    const lines = await captured(() => {
      log.info("[engram] ready in 12 ms");
      log.error("[redis] connection lost:", new Error("ECONNRESET"));
    });
    const [info, error] = parsed(lines);
    expect(info).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: "info", source: "engram", msg: "ready in 12 ms" });
    expect(error).toMatchObject({ level: "error", source: "redis", msg: "connection lost:", error: "ECONNRESET", stack: expect.stringContaining("ECONNRESET") });
    expect(lines[1]).toStartWith("error: ");
  });

  test("the setting defaults to text and refuses another format, naming the variable", () => {
    expect(loadConfig({ DATA_DIR: "/tmp/engram-log-test" }).LOG_FORMAT).toBe("text");
    expect(loadConfig({ DATA_DIR: "/tmp/engram-log-test", LOG_FORMAT: "json" }).LOG_FORMAT).toBe("json");
    expect(() => loadConfig({ DATA_DIR: "/tmp/engram-log-test", LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT="xml"/);
  });

  test("one line per request at info: request id, hashed wallet, route template, status, duration_ms", async () => {
    setLogFormat("json");
    const service = await startService();
    const [alice, bob] = [new TestWallet(), new TestWallet()];
    const as = async (wallet: TestWallet) => ({ "x-wallet-auth": await wallet.header(Math.floor(Date.now() / 1000)) });
    try {
      const ids: string[] = [];
      const lines = await captured(async () => {
        const stored = await sendJson(fetch, `${service.url}/v1/store`, "POST", { content: "JSON logs name the route" }, await as(alice));
        for (const [path, wallet] of [[`/v1/memories/${stored.body.id}`, alice], [`/v1/memories/${stored.body.id}`, bob], ["/v1/memories", null]] as const) {
          const res = await fetch(service.url + path, { headers: wallet ? await as(wallet) : {} });
          ids.push(res.headers.get("x-request-id")!);
        }
        await Bun.sleep(50); // the lines are written after the answers are sent
      });
      const requests = parsed(lines).filter((line) => line.msg === "request");
      expect(requests).toHaveLength(4);
      const [store, own, other, anonymous] = requests;
      const tag = walletTag(service.config.JWT_SECRET);
      expect(own).toEqual({ time: expect.any(String), level: "info", msg: "request", request_id: ids[0], method: "GET", route: "/v1/memories/:id", status: 200, duration_ms: expect.any(Number), wallet: tag(alice.address) });
      expect(store).toMatchObject({ method: "POST", route: "/v1/store", status: 201, wallet: tag(alice.address) });
      expect(other).toMatchObject({ request_id: ids[1], route: "/v1/memories/:id", status: 404, wallet: tag(bob.address) });
      expect(anonymous).toMatchObject({ request_id: ids[2], route: "/v1/memories", status: 401 });
      expect(anonymous).not.toHaveProperty("wallet");
      // the same wallet gets the same tag; the address itself is never written
      expect(tag(alice.address)).toMatch(/^[0-9a-f]{16}$/);
      expect(tag(alice.address)).not.toBe(tag(bob.address));
      expect(lines.join("\n").toLowerCase()).not.toContain(alice.address.toLowerCase().slice(2));
    } finally {
      await service.stop();
    }
  });

  test("an unexpected error: 500 with the request id and no cause for the client; the log has the stack", async () => {
    setLogFormat("json");
    const service = await startService();
    const wallet = new TestWallet();
    service.deps.memories.get = async () => {
      throw new Error("disk on fire at /var/lib/secret-path");
    };
    try {
      let res!: Response;
      let body = "";
      const lines = await captured(async () => {
        res = await fetch(`${service.url}/v1/memories/${crypto.randomUUID()}`, { headers: { "x-wallet-auth": await wallet.header(Math.floor(Date.now() / 1000)) } });
        body = await res.text();
        await Bun.sleep(50);
      });
      const requestId = res.headers.get("x-request-id");
      expect(res.status).toBe(500);
      expect(JSON.parse(body)).toEqual({ error: { code: "INTERNAL_ERROR", message: expect.any(String), details: { request_id: requestId } } });
      expect(body).not.toContain("disk on fire");
      expect(body).not.toContain("secret-path");
      const failed = parsed(lines).find((line) => line.msg === "request failed");
      expect(failed).toMatchObject({ level: "error", source: "engram", request_id: requestId, route: "/v1/memories/:id", error: "disk on fire at /var/lib/secret-path", stack: expect.stringContaining("log.test.ts") });
      expect(parsed(lines).find((line) => line.msg === "request")).toMatchObject({ request_id: requestId, status: 500 });
    } finally {
      await service.stop();
    }
  });
});
