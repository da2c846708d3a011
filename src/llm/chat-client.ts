import { t, type Static } from "elysia";
import { Value } from "@sinclair/typebox/value";
import type { ChatCompleter, ChatMessage, ChatOptions, ChatResult, ChatUsage } from "../domain/chat-port";

/**
 * Minimal client for OpenAI-compatible `POST {baseUrl}/chat/completions`
 * (OpenAI, Ollama, llama.cpp, vLLM…). One request per call, no retries: the
 * callers decide what a failure means (the extractor falls back offline).
 */

export interface ChatClientOptions {
  /** e.g. "http://127.0.0.1:11434/v1" — "/chat/completions" is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Whole-request deadline, headers and body included. Default 30 s. */
  timeoutMs?: number;
}

export type { ChatCompleter, ChatMessage, ChatOptions, ChatResult, ChatUsage };

export type ChatErrorKind = "http" | "timeout" | "network" | "bad_response";

export class ChatError extends Error {
  override readonly name = "ChatError";
  constructor(
    readonly kind: ChatErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The part of the response we rely on; anything else may be present. */
const ChatResponse = t.Object({
  choices: t.Array(t.Object({ message: t.Object({ content: t.Union([t.String(), t.Null()]) }) }), { minItems: 1 }),
  usage: t.Optional(
    t.Object({
      prompt_tokens: t.Optional(t.Number()),
      completion_tokens: t.Optional(t.Number()),
      total_tokens: t.Optional(t.Number()),
    }),
  ),
});
type ChatResponse = Static<typeof ChatResponse>;

function usageOf(body: ChatResponse): ChatUsage {
  const prompt = body.usage?.prompt_tokens ?? 0;
  const completion = body.usage?.completion_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: body.usage?.total_tokens ?? prompt + completion };
}

export class ChatClient implements ChatCompleter {
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: ChatClientOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
  }

  get model(): string {
    return this.opts.model;
  }

  async complete(messages: ChatMessage[], opts: ChatOptions = {}): Promise<ChatResult> {
    const body = await this.post({
      model: this.opts.model,
      messages,
      temperature: opts.temperature ?? 0,
      ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
      ...(opts.json ? { response_format: { type: "json_object" } } : {}),
    });
    if (!Value.Check(ChatResponse, body)) throw new ChatError("bad_response", "response is not a chat completion");
    return { content: body.choices[0]?.message.content ?? "", usage: usageOf(body) };
  }

  /** POST and parse JSON under one deadline; every failure becomes a ChatError. */
  private async post(payload: unknown): Promise<unknown> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new ChatError("http", `HTTP ${res.status}`, res.status);
      }
      return await res.json();
    } catch (err) {
      throw toChatError(err, this.timeoutMs);
    }
  }
}

function toChatError(err: unknown, timeoutMs: number): ChatError {
  if (err instanceof ChatError) return err;
  const name = err instanceof Error ? err.name : "";
  if (name === "TimeoutError" || name === "AbortError") return new ChatError("timeout", `no response within ${timeoutMs} ms`);
  if (err instanceof SyntaxError) return new ChatError("bad_response", "response body is not JSON");
  return new ChatError("network", err instanceof Error ? err.message : String(err));
}
