import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { Value } from "@sinclair/typebox/value";
import { ExtractedFact, type ExtractInput } from "../src/domain/ingest/extractor.ts";
import { LlmExtractor } from "../src/domain/ingest/llm-extractor.ts";
import { OfflineExtractor } from "../src/domain/ingest/offline-extractor.ts";
import { ChatClient, ChatError } from "../src/llm/chat-client.ts";
import { summarizeCluster } from "../src/llm/summarizer.ts";

/**
 * A real OpenAI-compatible HTTP peer on loopback. Each test queues one scripted
 * behaviour per expected request; the server records every request it gets.
 */
type Behaviour =
  | { kind: "reply"; content: string; usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } }
  | { kind: "status"; status: number }
  | { kind: "raw"; body: string }
  | { kind: "hang" };

interface Recorded {
  path: string;
  authorization: string | null;
  body: { model: string; messages: { role: string; content: string }[]; response_format?: { type: string } };
}

class ScriptedLlm {
  readonly queue: Behaviour[] = [];
  readonly requests: Recorded[] = [];
  private readonly hanging: (() => void)[] = [];
  private server: Server<unknown> | null = null;

  start(): void {
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => this.handle(req) });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.server?.port}/v1`;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    for (const release of this.hanging.splice(0)) release();
  }

  async stop(): Promise<void> {
    this.reset();
    await this.server?.stop(true);
  }

  private async handle(req: Request): Promise<Response> {
    this.requests.push({
      path: new URL(req.url).pathname,
      authorization: req.headers.get("authorization"),
      body: (await req.json()) as Recorded["body"],
    });
    const next = this.queue.shift() ?? { kind: "status", status: 599 };
    if (next.kind === "status") return new Response("upstream error", { status: next.status });
    if (next.kind === "raw") return new Response(next.body, { headers: { "content-type": "application/json" } });
    if (next.kind === "hang") {
      return new Promise((resolve) => this.hanging.push(() => resolve(new Response("late", { status: 504 }))));
    }
    return Response.json({
      id: "chatcmpl-test",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: next.content }, finish_reason: "stop" }],
      ...(next.usage ? { usage: next.usage } : {}),
    });
  }
}

const llm = new ScriptedLlm();
beforeAll(() => llm.start());
afterEach(() => llm.reset());
afterAll(() => llm.stop());

const offline = new OfflineExtractor();
const conversation: ExtractInput = {
  messages: [
    { role: "user", content: "Hi! I use Bun and I prefer tabs." },
    { role: "tool", content: '{"secret": "tool output"}' },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "We decided to use Postgres." },
  ],
};
const facts = (list: unknown[]) => JSON.stringify({ facts: list });
const goodFacts = facts([
  { content: "User uses Bun", memory_type: "observation", importance: 0.5, tags: ["bun", "runtime"], subject: "user", attribute: "runtime", message_index: 0 },
  { content: "User prefers tabs", memory_type: "preference", importance: 0.7, tags: ["indentation"], subject: "user", attribute: "indentation", message_index: 0 },
  { content: "The team decided to use Postgres", memory_type: "decision", importance: 0.75, tags: ["database"], subject: "team", attribute: "database", message_index: 3 },
]);

function extractor(opts: { timeoutMs?: number; maxChunkChars?: number } = {}) {
  const warnings: string[] = [];
  const { timeoutMs, ...rest } = opts;
  const client = new ChatClient({ baseUrl: llm.baseUrl, apiKey: "test-key", model: "test-model", timeoutMs: timeoutMs ?? 20_000 });
  const ex = new LlmExtractor({ client, model: "test-model", fallback: offline, log: (message) => warnings.push(message), ...rest });
  return { ex, warnings };
}

describe("LlmExtractor against a scripted OpenAI-compatible server", () => {
  test("valid JSON: facts kept, usage counted, request well-formed", async () => {
    llm.queue.push({ kind: "reply", content: goodFacts, usage: { prompt_tokens: 100, completion_tokens: 23, total_tokens: 123 } });
    const { ex, warnings } = extractor();
    const result = await ex.extract(conversation);
    expect(result.tokens_used).toBe(123);
    expect(result.facts.map((f) => [f.content, f.memory_type, f.source.message_index, f.source.role])).toEqual([
      ["User uses Bun", "observation", 0, "user"],
      ["User prefers tabs", "preference", 0, "user"],
      ["The team decided to use Postgres", "decision", 3, "user"],
    ]);
    for (const f of result.facts) expect(Value.Check(ExtractedFact, f)).toBe(true);
    expect(warnings).toEqual([]);
    const [req] = llm.requests;
    expect(req?.path).toBe("/v1/chat/completions");
    expect(req?.authorization).toBe("Bearer test-key");
    expect(req?.body.model).toBe("test-model");
    expect(req?.body.response_format).toEqual({ type: "json_object" });
    const transcript = req?.body.messages[1]?.content ?? "";
    expect(transcript).toContain("[0] user: Hi! I use Bun and I prefer tabs.");
    expect(transcript).toContain("[3] user: We decided to use Postgres.");
    expect(transcript).not.toContain("tool output"); // tool messages are not sent
  });

  test("malformed then valid: one corrective retry, tokens summed", async () => {
    llm.queue.push(
      { kind: "reply", content: "Sure! Here are the facts: User uses Bun", usage: { total_tokens: 40 } },
      { kind: "reply", content: goodFacts, usage: { prompt_tokens: 60, completion_tokens: 20 } },
    );
    const { ex, warnings } = extractor();
    const result = await ex.extract(conversation);
    expect(result.facts).toHaveLength(3);
    expect(result.tokens_used).toBe(120); // 40 + (60 + 20) when total_tokens is absent
    expect(warnings).toEqual([]);
    expect(llm.requests).toHaveLength(2);
    const retry = llm.requests[1]?.body.messages ?? [];
    expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry[2]?.content).toContain("Here are the facts");
    expect(retry[3]?.content).toContain("not valid JSON");
  });

  test("malformed twice: falls back to offline with a warning, tokens of both calls counted", async () => {
    llm.queue.push(
      { kind: "reply", content: "{not json", usage: { total_tokens: 11 } },
      { kind: "reply", content: JSON.stringify({ memories: [] }), usage: { total_tokens: 13 } },
    );
    const { ex, warnings } = extractor();
    const result = await ex.extract(conversation);
    expect(llm.requests).toHaveLength(2);
    expect(result.tokens_used).toBe(24);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("malformed LLM output twice");
    expect(warnings[0]).toContain("offline");
    const expected = await offline.extract(conversation);
    expect(result.facts).toEqual(expected.facts);
  });

  test("HTTP 500: no retry, offline fallback, tokens 0", async () => {
    llm.queue.push({ kind: "status", status: 500 });
    const { ex, warnings } = extractor();
    const result = await ex.extract(conversation);
    expect(llm.requests).toHaveLength(1);
    expect(result.tokens_used).toBe(0);
    expect(result.facts.map((f) => f.content)).toEqual(["User uses Bun", "User prefers tabs", "The team decided to use Postgres"]);
    expect(result.facts[2]?.source).toEqual({ message_index: 3, role: "user" }); // indices survive the fallback
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("HTTP 500");
  });

  test("server hangs past the timeout: offline fallback", async () => {
    llm.queue.push({ kind: "hang" });
    const { ex, warnings } = extractor({ timeoutMs: 150 });
    const started = performance.now();
    const result = await ex.extract(conversation);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.facts).toHaveLength(3);
    expect(result.tokens_used).toBe(0);
    expect(warnings[0]).toContain("no response within 150 ms");
  });

  test("wrong-shaped values are repaired: type re-derived, importance clamped, tags cleaned, bad index nulled", async () => {
    const longTag = "x".repeat(100);
    llm.queue.push({
      kind: "reply",
      content: facts([
        { content: "  User prefers   tabs ", memory_type: "fact", importance: 7, tags: ["Tabs", "TABS", "Editor Settings", longTag, "a", "b", "c"], message_index: 0 },
        { content: "The repo deploys on Fridays", memory_type: "project", importance: -2, tags: [], subject: "", attribute: "", message_index: 42 },
        { content: "   ", memory_type: "general" },
      ]),
      usage: { total_tokens: 9 },
    });
    const { ex } = extractor();
    const result = await ex.extract(conversation);
    const [tabs, deploy] = result.facts;
    expect(result.facts).toHaveLength(2); // empty content dropped
    expect(tabs?.content).toBe("User prefers tabs");
    expect(tabs?.memory_type).toBe("preference"); // "fact" is not a memory type → offline rules
    expect(tabs?.importance).toBe(1); // 7 clamped
    expect(tabs?.tags).toEqual(["tabs", "editor-settings", "x".repeat(64), "a", "b"]);
    expect(tabs?.subject).toBe("user"); // derived
    expect(tabs?.attribute).toBe("indentation"); // derived
    expect(deploy?.importance).toBe(0);
    expect(deploy?.tags[0]).toBe("project"); // none given → offline tags
    expect(deploy?.attribute).toBeNull();
    expect(deploy?.subject).toBe("project");
    expect(deploy?.source).toEqual({ message_index: null, role: null }); // 42 is not a message of the input
    for (const f of result.facts) expect(Value.Check(ExtractedFact, f)).toBe(true);
  });

  test("wrong JSON types (importance as a string) count as malformed and are retried", async () => {
    llm.queue.push(
      { kind: "reply", content: facts([{ content: "User prefers tabs", memory_type: "preference", importance: "high" }]) },
      { kind: "reply", content: facts([{ content: "User prefers tabs", memory_type: "preference", importance: 0.9 }]) },
    );
    const { ex } = extractor();
    const result = await ex.extract({ messages: [{ role: "user", content: "I prefer tabs" }] });
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]?.body.messages[3]?.content).toContain("/facts/0/importance");
    expect(result.facts.map((f) => f.importance)).toEqual([0.9]);
  });

  test("long input is chunked: indices stay global, tokens summed, duplicates merged", async () => {
    const messages = Array.from({ length: 30 }, (_, i) => ({ role: "user" as const, content: `Service ${i} listens on port ${8000 + i}. ${"filler ".repeat(20)}` }));
    const { ex } = extractor({ maxChunkChars: 1000 });
    for (let i = 0; i < 10; i++) {
      llm.queue.push({ kind: "reply", content: facts([{ content: "User prefers tabs", memory_type: "preference", importance: 0.7, tags: ["tabs"], message_index: 29 }]), usage: { total_tokens: 5 } });
    }
    const result = await ex.extract({ messages });
    const calls = llm.requests.length;
    expect(calls).toBeGreaterThan(3);
    expect(result.tokens_used).toBe(5 * calls);
    expect(result.facts).toHaveLength(1);
    const seen = llm.requests.flatMap((r) => [...(r.body.messages[1]?.content ?? "").matchAll(/^\[(\d+)\]/gm)].map((m) => Number(m[1])));
    expect(seen).toEqual(messages.map((_, i) => i)); // every message sent once, in order
  });

  test("after a transport failure the remaining chunks skip the LLM", async () => {
    const messages = Array.from({ length: 30 }, (_, i) => ({ role: "user" as const, content: `I prefer tabs number ${i}. ${"filler ".repeat(20)}` }));
    llm.queue.push({ kind: "status", status: 503 });
    const { ex, warnings } = extractor({ maxChunkChars: 1000 });
    const result = await ex.extract({ messages });
    expect(llm.requests).toHaveLength(1);
    expect(result.facts.length).toBeGreaterThan(0);
    expect(result.facts.map((f) => f.source.message_index)).toContain(29);
    expect(warnings.length).toBeGreaterThan(1);
  });

  test("plain text input: message_index null", async () => {
    llm.queue.push({ kind: "reply", content: facts([{ content: "User is a nurse", memory_type: "observation", importance: 0.5, tags: ["nurse"], message_index: 0 }]) });
    const { ex } = extractor();
    const result = await ex.extract({ text: "I'm a nurse." });
    expect(result.facts[0]?.source).toEqual({ message_index: null, role: null });
    expect(result.tokens_used).toBe(0); // no usage reported
    expect(llm.requests[0]?.body.messages[1]?.content).toContain("Text (use message_index null)");
  });

  test("empty input makes no call", async () => {
    const { ex } = extractor();
    expect(await ex.extract({ messages: [{ role: "tool", content: "x" }] })).toEqual({ facts: [], tokens_used: 0 });
    expect(llm.requests).toHaveLength(0);
  });
});

describe("ChatClient", () => {
  const client = () => new ChatClient({ baseUrl: `${llm.baseUrl}/`, model: "m", timeoutMs: 500 });

  test("missing usage counts as zero; no auth header without a key", async () => {
    llm.queue.push({ kind: "reply", content: "hi" });
    expect(await client().complete([{ role: "user", content: "hello" }])).toEqual({
      content: "hi",
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
    expect(llm.requests[0]?.authorization).toBeNull();
    expect(llm.requests[0]?.body.response_format).toBeUndefined();
  });

  test("non-completion bodies and HTTP errors become typed ChatErrors", async () => {
    llm.queue.push({ kind: "raw", body: '{"error": "nope"}' }, { kind: "raw", body: "<html>" }, { kind: "status", status: 429 });
    const kinds: string[] = [];
    for (let i = 0; i < 3; i++) {
      try {
        await client().complete([{ role: "user", content: "x" }]);
      } catch (err) {
        expect(err).toBeInstanceOf(ChatError);
        kinds.push(`${(err as ChatError).kind}:${(err as ChatError).status ?? ""}`);
      }
    }
    expect(kinds).toEqual(["bad_response:", "bad_response:", "http:429"]);
  });
});

describe("summarizeCluster", () => {
  const client = () => new ChatClient({ baseUrl: llm.baseUrl, model: "m", timeoutMs: 500 });

  test("merges memories into one cleaned statement and reports tokens", async () => {
    llm.queue.push({ kind: "reply", content: 'Summary: "User prefers tabs (width 4) and uses Vim."', usage: { total_tokens: 77 } });
    const result = await summarizeCluster(client(), ["User prefers tabs", "User uses Vim", "User's tab width is 4"]);
    expect(result).toEqual({ content: "User prefers tabs (width 4) and uses Vim.", tokens: 77 });
    const sent = llm.requests[0]?.body.messages ?? [];
    expect(sent[0]?.role).toBe("system");
    expect(sent[1]?.content).toContain("1. User prefers tabs\n2. User uses Vim\n3. User's tab width is 4");
  });

  test("a single memory needs no call", async () => {
    expect(await summarizeCluster(client(), ["  User prefers tabs "])).toEqual({ content: "User prefers tabs", tokens: 0 });
    expect(llm.requests).toHaveLength(0);
  });

  test("errors propagate so the caller can fall back", async () => {
    llm.queue.push({ kind: "status", status: 500 }, { kind: "reply", content: "   " });
    await expect(summarizeCluster(client(), ["a b", "c d"])).rejects.toBeInstanceOf(ChatError);
    await expect(summarizeCluster(client(), ["a b", "c d"])).rejects.toThrow("empty");
    await expect(summarizeCluster(client(), [])).rejects.toBeInstanceOf(RangeError);
  });
});
