import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { Value } from "@sinclair/typebox/value";
import type { AppDeps } from "../http/deps";
import type { HeaderSource } from "../billing/x402-server";
import { checked } from "../http/validation";
import { coreMemories, TOOLS, type Tool, type ToolContext } from "./tools";
import { toolError } from "./errors";

/** The authenticated caller of one MCP exchange, and where its paid calls read payment headers from. */
export interface McpCaller {
  wallet: string;
  userId: string;
  /** the HTTP request carrying the MCP message (payment headers), or a stand-in for stdio */
  request: { url: string; headers: HeaderSource };
  /** sets a header on the HTTP answer (free calls left, payment receipt); a no-op for stdio */
  setHeader(name: string, value: string): void;
}

const VERSION = "0.1.0";
const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped). */
const jsonSchema = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as { type: "object"; [key: string]: unknown };
const listedTools = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: `${tool.description} (REST: ${tool.rest})`,
  inputSchema: jsonSchema(tool.input),
  annotations: { title: tool.title, readOnlyHint: tool.readOnly ?? false, destructiveHint: tool.destructive ?? false, openWorldHint: false },
}));

const RESOURCES = [
  { uri: "memory://core", name: "core", title: "Core (pinned) memories", description: "The pinned memories (first 100), as GET /v1/memories/core answers them.", mimeType: "application/json" },
  { uri: "memory://stats", name: "stats", title: "Memory statistics", description: "GET /v1/stats: counts by type and namespace, pinned, accesses.", mimeType: "application/json" },
];

const PROMPT = {
  name: "recall_then_answer",
  title: "Recall, then answer",
  description: "Answer a question using what engram remembers: recall first, then answer from the recalled memories.",
  arguments: [
    { name: "question", description: "the question to answer", required: true },
    { name: "namespace", description: "recall only in this namespace", required: false },
  ],
};

/** Runs one tool call: arguments validated with the tool's schema, an error result (never a throw) on failure. */
export async function callTool(tool: Tool, args: unknown, ctx: ToolContext, setHeader: McpCaller["setHeader"]): Promise<CallToolResult> {
  try {
    // Unknown arguments are dropped before the check, where REST refuses unknown body fields: the
    // input schemas are the REST bodies' (closed, `additionalProperties: false`), and a model's
    // stray argument should not fail a tool call (docs/mcp.md).
    const valid = checked(tool.input, Value.Clean(tool.input, Value.Clone(args ?? {})), "arguments");
    const result = await tool.run(ctx, valid as never);
    const text = tool.text ? tool.text(result) : JSON.stringify(result, null, 2);
    return { content: [{ type: "text", text }], structuredContent: result };
  } catch (error) {
    const { body, headers } = toolError(error);
    for (const [name, value] of Object.entries(headers)) setHeader(name, value);
    return { content: [{ type: "text", text: `${body.error.code}: ${body.error.message}` }], structuredContent: body, isError: true };
  }
}

/**
 * An MCP server (low-level SDK `Server`, JSON Schema inputs) bound to one authenticated caller:
 * the tools of ./tools.ts, the resources memory://core and memory://stats, and a
 * recall-then-answer prompt. Transports: ./http-route.ts (one per request) and ./stdio.ts.
 */
export function createMcpServer(deps: AppDeps, caller: McpCaller): Server {
  const server = new Server(
    { name: "engram", title: "engram memory", version: VERSION },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        "Long-term memory for this wallet. Call `recall` (or `search` for exact words) before answering questions that may depend on earlier facts; `store` durable facts, preferences, decisions and corrections; `pin` the few that must never fade.",
    },
  );
  const ctx: ToolContext = {
    deps,
    wallet: caller.wallet,
    userId: caller.userId,
    charge: (route, work) => deps.paywall.charge(caller.wallet, route, caller.request, caller.setHeader, work),
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedTools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}; see tools/list`);
    return callTool(tool, request.params.arguments, ctx, caller.setHeader);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    let value: unknown;
    try {
      if (uri === "memory://core") value = await coreMemories(deps, caller.userId);
      else if (uri === "memory://stats") value = await deps.store.stats(caller.userId, deps.clock());
    } catch (error) {
      const { body } = toolError(error);
      throw new McpError(ErrorCode.InternalError, `${body.error.code}: ${body.error.message}`, body);
    }
    if (value === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown resource ${JSON.stringify(uri)}; see resources/list`);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value, null, 2) }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== PROMPT.name) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(request.params.name)}`);
    const question = request.params.arguments?.question;
    if (!question) throw new McpError(ErrorCode.InvalidParams, "argument `question` is required");
    const namespace = request.params.arguments?.namespace;
    const recallArgs = JSON.stringify({ query: question, limit: 10, ...(namespace && { namespace }) });
    return {
      description: PROMPT.description,
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text:
              `First call the \`recall\` tool with ${recallArgs}. Then answer the question below using only the recalled memories that are relevant; ` +
              `say which memories (by id) you relied on, and say so plainly when nothing relevant was recalled rather than guessing.\n\nQuestion: ${question}`,
          },
        },
      ],
    };
  });
  return server;
}
