import { Elysia } from "elysia";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authPlugin } from "../http/auth-plugin";
import { errorBody } from "../http/errors";
import type { AppDeps } from "../http/deps";
import { createMcpServer } from "./server";

/** Not in the OpenAPI document: MCP is described by its own protocol (tools/list), not by REST paths. */
const hidden = { detail: { hide: true } };

/**
 * `/mcp`: MCP's Streamable HTTP transport, stateless, with JSON answers (no SSE). Authenticated
 * like every REST route (the auth plugin: 401 with the nested body before anything MCP happens,
 * rate limit, `x-free-tier-remaining`); each POST gets its own server bound to the caller, so a
 * tool can only reach the authenticated wallet's memories. Paid tools read x402 payment headers
 * from this request and set their receipt headers on its answer, as the REST endpoints do.
 * The body is parsed by the app's JSON parser (size, media type, nesting checks) and handed over.
 */
export const mcpRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ["mcp"] } })
    .use(authPlugin(deps))
    .post(
      "/mcp",
      async ({ request, body, wallet, userId, setHeader }) => {
        const server = createMcpServer(deps, { wallet, userId, request, setHeader });
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          return await transport.handleRequest(request, { parsedBody: body });
        } finally {
          await server.close();
        }
      },
      hidden,
    )
    // Stateless: no server-initiated stream to open (MCP allows 405 for GET), no session to end.
    .get(
      "/mcp",
      ({ set }) => {
        set.status = 405;
        set.headers["allow"] = "POST, DELETE";
        return errorBody(400, "GET /mcp: this server is stateless and opens no event stream; POST JSON-RPC messages to /mcp", { reason: "method_not_allowed" }, "METHOD_NOT_ALLOWED");
      },
      hidden,
    )
    .delete("/mcp", ({ set }) => {
      set.status = 200;
      return { terminated: true, note: "stateless: there was no session to end" };
    }, hidden);
