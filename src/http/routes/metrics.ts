import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import { registry } from "../../metrics/registry";
import { metricsText } from "../../metrics/cluster";
import "../../metrics/sources"; // the gauges read from the running parts register themselves
import { errorBody, ReplyError } from "../errors";

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
const isLoopback = (address: string | undefined) => address !== undefined && /^(?:::ffff:)?127\.|^::1$/.test(address);

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * `GET /metrics`, the Prometheus text format. The figures say how busy the service is and how
 * large its caches are, nothing about anyone's memories, but they are an operator's view: with
 * METRICS_TOKEN set the route needs `Authorization: Bearer <token>` from anywhere; without it, it
 * answers only clients on the machine itself (loopback), so a service published to the network
 * does not show them to the world by default.
 */
export function metricsRoutes(token: string | undefined) {
  return new Elysia().get(
    "/metrics",
    async ({ request, server, set }) => {
      if (token !== undefined) {
        const given = request.headers.get("authorization")?.match(/^Bearer (.+)$/i)?.[1];
        if (given === undefined || !sameToken(given, token)) {
          throw new ReplyError({
            status: 401,
            body: errorBody(401, "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>", { reason: "unauthorized" }),
            headers: { "www-authenticate": 'Bearer realm="metrics"' },
          });
        }
      } else if (!isLoopback(server?.requestIP(request)?.address)) {
        throw new ReplyError({
          status: 403,
          body: errorBody(403, "GET /metrics answers only on the loopback address while METRICS_TOKEN is unset; set METRICS_TOKEN to scrape it from another host", { reason: "metrics_loopback_only" }),
        });
      }
      set.headers["content-type"] = registry.contentType;
      return metricsText();
    },
    {
      detail: {
        tags: ["health"],
        summary: "Prometheus metrics",
        description: "Text format. Needs `Authorization: Bearer <METRICS_TOKEN>` when that is set; otherwise answers loopback clients only (403). docs/monitoring.md lists the metrics.",
      },
    },
  );
}
