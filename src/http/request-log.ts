import { Elysia } from "elysia";
import { log, logs } from "../log";
import { httpDuration, httpRequests } from "../metrics/registry";

/** Methods counted by name; anything else a client sends is `other` (labels stay a bounded set). */
const METHODS = new Set(["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"]);

/**
 * Every request once its answer is sent: counted and timed for the metrics by method, route
 * template (`unmatched` for unknown paths) and status; with LOG_LEVEL=debug, one log line (method,
 * path, status, ms, request id).
 */
export function requestLog() {
  const started = new WeakMap<Request, number>();
  return new Elysia({ name: "request-log" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, set, route }) => {
      const ms = performance.now() - (started.get(request) ?? performance.now());
      const method = METHODS.has(request.method) ? request.method : "other";
      const template = route || "unmatched";
      const status = set.status ?? 200;
      httpRequests.inc({ method, route: template, status: String(status) });
      httpDuration.observe({ method, route: template }, ms / 1000);
      if (logs("debug")) log.debug(`[engram] ${request.method} ${new URL(request.url).pathname} ${status} ${ms.toFixed(1)} ms (request ${set.headers["x-request-id"]})`);
    });
}
