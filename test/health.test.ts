import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { STORE_CHECK_MS } from "../src/http/health";
import { startService, type TestService } from "./helpers/harness";

/** A sqlite store whose reads can be made to fail or hang, like a Redis that went away. */
class FlakyStore extends SqliteStore {
  mode: "up" | "error" | "hang" = "up";
  override async freeCallsUsed(wallet: string): Promise<number> {
    if (this.mode === "error") throw new Error("connect ECONNREFUSED 10.0.0.7:6379");
    if (this.mode === "hang") return new Promise(() => {});
    return super.freeCallsUsed(wallet);
  }
}

describe("GET /health reports the store", () => {
  let service: TestService;
  let store: FlakyStore;
  beforeAll(async () => {
    service = await startService({
      name: "flaky",
      open: async (dir) => {
        store = new FlakyStore(dir);
        return store;
      },
    });
  });
  afterAll(() => service.stop());

  const health = async () => {
    const response = await fetch(`${service.url}/health`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  test("200 ok while the store answers", async () => {
    store.mode = "up";
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "ok", store: "ok", engine: "sqlite", embedding_model: "glove-sif-100d" });
  });

  test("503 degraded when the store errors, without the cause in the answer; ok again once it is back", async () => {
    store.mode = "error";
    const { status, body } = await health();
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: "degraded", store: "unreachable", engine: "sqlite" });
    expect(JSON.stringify(body)).not.toContain("10.0.0.7");
    store.mode = "up";
    expect((await health()).status).toBe(200);
  });

  test("503 degraded when the store does not answer in time (a reconnecting client queues commands)", async () => {
    store.mode = "hang";
    const started = performance.now();
    const { status, body } = await health();
    const ms = performance.now() - started;
    expect(status).toBe(503);
    expect(body.status).toBe("degraded");
    expect(ms).toBeGreaterThanOrEqual(STORE_CHECK_MS - 50);
    expect(ms).toBeLessThan(STORE_CHECK_MS + 3000);
    store.mode = "up";
  });
});
