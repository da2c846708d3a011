#!/usr/bin/env bun
/**
 * `engram-mcp` / `bun run mcp`: engram as an MCP server on stdin/stdout, for local agent hosts.
 *
 *   ENGRAM_PRIVATE_KEY  the wallet key (0x + 64 hex) whose memories this server reaches (required)
 *   ENGRAM_URL          a running engram (e.g. http://localhost:8787): every MCP request is relayed
 *                       to its /mcp endpoint, signed with the key (x-wallet-auth, fresh each minute)
 *   (no ENGRAM_URL)     embedded: the store and embedding model run in this process, configured
 *                       like the service (DATA_DIR, STORE, MODEL_CACHE_DIR…; see docs/configuration.md)
 *
 * Either way the tools are those of src/mcp/tools.ts: remotely through the service's /mcp, or here
 * through the same server factory. stdout carries only the protocol: logs go to stderr.
 */
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { loadConfig, withSessionSecret } from "../config";
import { openStore } from "../store/open-store";
import { embedderOptions, startEmbedder } from "../embed/embedder";
import { buildDeps } from "../http/deps";
import { authMessage } from "../auth/wallet-signature";
import { createMcpServer } from "./server";

const log = (message: string) => console.error(`[engram-mcp] ${message}`);

function walletKey(): PrivateKeyAccount {
  const key = process.env.ENGRAM_PRIVATE_KEY?.trim();
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error("ENGRAM_PRIVATE_KEY must be set to the wallet's private key (0x followed by 64 hex digits)");
  return privateKeyToAccount(key as `0x${string}`);
}

/** `x-wallet-auth` for now: `{address}:{ts}:{EIP-191 signature of prefix:ts}`. */
async function walletHeader(account: PrivateKeyAccount, prefix: string, nowMs = Date.now()): Promise<string> {
  const ts = Math.floor(nowMs / 1000);
  return `${account.address}:${ts}:${await account.signMessage({ message: authMessage(prefix, ts) })}`;
}

/** Embedded: the service's own wiring (as src/server.ts, without the HTTP listener) and one caller. */
async function embedded(account: PrivateKeyAccount) {
  const settings = loadConfig(process.env);
  const store = await openStore(settings);
  const config = await withSessionSecret(settings, store);
  const embedder = await startEmbedder(embedderOptions(config));
  await store.bindEmbeddingModel({ id: embedder.modelId, dimension: embedder.dimension });
  const deps = buildDeps(config, store, embedder);
  // The wallet is resolved by the same authenticator the HTTP service uses, from a signed header.
  const wallet = await deps.authenticator.authenticate({ "x-wallet-auth": await walletHeader(account, config.AUTH_MESSAGE_PREFIX) }, deps.clock());
  const userId = await deps.store.userIdForWallet(wallet);
  const server = createMcpServer(deps, { wallet, userId, request: { url: "stdio://engram/mcp", headers: {} }, setHeader: () => {} });
  log(`embedded ${config.STORE} engine in ${config.DATA_DIR}, wallet ${wallet}`);
  return {
    server,
    close: async () => {
      await embedder.close();
      await store.close();
    },
  };
}

/** Remote: a relay to `${url}/mcp`; each HTTP request carries a signature at most a minute old. */
async function remote(account: PrivateKeyAccount, url: string) {
  const base = url.replace(/\/+$/, "");
  const info = (await (await fetch(`${base}/v1/free-tier/info`)).json().catch(() => ({}))) as { auth?: { message_to_sign?: string } };
  const prefix = info.auth?.message_to_sign?.replace(/:\{unix_timestamp\}$/, "") ?? "service-auth";
  let signed: { header: string; at: number } | null = null;
  const signedFetch = async (input: string | URL | Request, init?: RequestInit) => {
    if (!signed || Date.now() - signed.at > 60_000) signed = { header: await walletHeader(account, prefix), at: Date.now() };
    const headers = new Headers(init?.headers);
    headers.set("x-wallet-auth", signed.header);
    return fetch(input, { ...init, headers });
  };
  const client = new Client({ name: "engram-mcp-stdio", version: "0.1.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: signedFetch }));
  const server = new Server(client.getServerVersion() ?? { name: "engram", version: "0.1.0" }, {
    capabilities: client.getServerCapabilities() ?? { tools: {}, resources: {}, prompts: {} },
    instructions: client.getInstructions(),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => client.callTool(request.params));
  server.setRequestHandler(ListResourcesRequestSchema, (request) => client.listResources(request.params));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => client.readResource(request.params));
  server.setRequestHandler(ListPromptsRequestSchema, (request) => client.listPrompts(request.params));
  server.setRequestHandler(GetPromptRequestSchema, (request) => client.getPrompt(request.params));
  log(`relaying to ${base}/mcp as ${account.address}`);
  return { server, close: () => client.close() };
}

export async function main(): Promise<void> {
  // stdout belongs to the protocol: anything a module logs goes to stderr.
  console.log = console.error;
  console.info = console.error;
  try {
    const account = walletKey();
    const url = process.env.ENGRAM_URL?.trim();
    const { server, close } = url ? await remote(account, url) : await embedded(account);
    let closing = false;
    const shutdown = async () => {
      if (closing) return;
      closing = true;
      await server.close().catch(() => {});
      await close().catch(() => {});
      process.exit(0);
    };
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, shutdown);
    process.stdin.on("end", shutdown);
    process.stdin.on("close", shutdown);
    await server.connect(new StdioServerTransport());
  } catch (error) {
    log(`cannot start: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}

if (import.meta.main) await main();
