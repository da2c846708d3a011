import { Elysia } from "elysia";
import { log } from "../log";

/** LOG_LEVEL=debug: one line per request once its answer is sent (method, path, status, ms, request id). */
export function requestLog() {
  const started = new WeakMap<Request, number>();
  return new Elysia({ name: "request-log" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      const ms = performance.now() - (started.get(request) ?? performance.now());
      log.debug(`[engram] ${request.method} ${new URL(request.url).pathname} ${set.status ?? 200} ${ms.toFixed(1)} ms (request ${set.headers["x-request-id"]})`);
    });
}
