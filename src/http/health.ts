import { Elysia } from "elysia";
import type { MemoryStore } from "../domain/store-port";
import { log } from "../log";

/** How long /health waits for the store before calling it unreachable (Redis queues commands while reconnecting). */
export const STORE_CHECK_MS = 2000;
/** A wallet no one can own: reading its free-call counter is a cheap read on every engine and changes nothing. */
const PROBE_WALLET = "0x0000000000000000000000000000000000000000";

/** null when the store answered a read within `timeoutMs`, else why not. */
export async function storeProblem(store: MemoryStore, timeoutMs = STORE_CHECK_MS): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([store.freeCallsUsed(PROBE_WALLET).then(() => null), timeout]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /health`: 200 `{status: "ok", store: "ok", …}` when the store answers a read, else 503
 * `{status: "degraded", store: "unreachable", …}` (the cause is logged), so a container health check, a
 * load balancer or a readiness probe takes the instance out while its store is away. The
 * process itself is alive either way (a liveness probe should use the port, not this route).
 */
export function healthRoutes(store: MemoryStore, modelId: () => string, timeoutMs = STORE_CHECK_MS) {
  let lastLogged = 0;
  return new Elysia().get(
    "/health",
    async ({ set }) => {
      const problem = await storeProblem(store, timeoutMs);
      const about = { engine: store.engine, embedding_model: modelId() };
      if (problem === null) return { status: "ok" as const, store: "ok" as const, ...about };
      // The answer is public: the cause (addresses, server errors) goes to the log, at most every 10 s.
      if (Date.now() - lastLogged > 10_000) {
        lastLogged = Date.now();
        log.warn(`[engram] /health: the ${store.engine} store is unreachable: ${problem}`);
      }
      set.status = 503;
      return { status: "degraded" as const, store: "unreachable" as const, ...about };
    },
    { detail: { tags: ["health"], description: "200 when the service and its store answer; 503 `degraded` when the store does not (within 2 s)." } },
  );
}
