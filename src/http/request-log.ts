import { Elysia } from "elysia";
import { createHmac } from "node:crypto";
import { log, logFormat } from "../log";
import { httpDuration, httpRequests } from "../metrics/registry";

/** Methods counted by name; anything else a client sends is `other` (labels stay a bounded set). */
const METHODS = new Set(["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"]);

/**
 * A wallet as the log names it: a keyed hash (HMAC-SHA256 under a key derived from the session
 * key, 16 hex digits), the same for every request of one wallet and on every process sharing the
 * store, so its requests can be followed; an address is public, so a plain hash of it could be
 * reversed by hashing known addresses.
 */
export function walletTag(sessionKey: string): (wallet: string) => string {
  const key = createHmac("sha256", sessionKey).update("engram log wallet tag").digest();
  return (wallet) => createHmac("sha256", key).update(wallet.toLowerCase()).digest("hex").slice(0, 16);
}

/**
 * Every request once its answer is sent: counted and timed for the metrics by method, route
 * template (`unmatched` for unknown paths) and status, and logged: with LOG_FORMAT=json one JSON
 * line per request (request id, hashed wallet, route, status, duration_ms) at info; in text, one
 * line at debug (method, path, status, ms, request id).
 */
export function requestLog(sessionKey: string) {
  const started = new WeakMap<Request, number>();
  const tag = walletTag(sessionKey);
  return new Elysia({ name: "request-log" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, (context) => {
      const { request, set, route } = context;
      const ms = performance.now() - (started.get(request) ?? performance.now());
      const method = METHODS.has(request.method) ? request.method : "other";
      const template = route || "unmatched";
      const status = set.status ?? 200;
      httpRequests.inc({ method, route: template, status: String(status) });
      httpDuration.observe({ method, route: template }, ms / 1000);
      const requestId = set.headers["x-request-id"];
      if (logFormat() === "json") {
        // the auth plugin put the caller's wallet on the context, when the request got that far
        const wallet = (context as { wallet?: unknown }).wallet;
        const fields = { msg: "request", request_id: requestId, method, route: template, status, duration_ms: Math.round(ms * 100) / 100 };
        log.entry("info", typeof wallet === "string" ? { ...fields, wallet: tag(wallet) } : fields, () => "");
      } else {
        log.debug(`[engram] ${request.method} ${new URL(request.url).pathname} ${status} ${ms.toFixed(1)} ms (request ${requestId})`);
      }
    });
}
