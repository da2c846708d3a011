/** LOG_LEVEL (src/log.ts): lines below the level are dropped; debug adds one line per request. */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { log, setLogLevel } from "../src/log";
import { loadConfig } from "../src/config";
import { startService } from "./helpers/harness";

afterEach(() => setLogLevel("info"));

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
