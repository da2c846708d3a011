import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { EmbeddingUnavailable } from "../domain/ports.ts";

/**
 * Client for `POST {baseUrl}/embeddings` of an OpenAI-compatible server (OpenAI, Ollama,
 * text-embeddings-inference, vLLM…): one batch of texts per call, each request under its own
 * deadline, retried with backoff while the failure may pass (network errors, timeouts, 408, 429,
 * 5xx; a Retry-After header sets the wait). Anything else fails at once with what to check.
 */
export interface OpenAIClientOptions {
  /** e.g. "http://127.0.0.1:11434/v1": "/embeddings" is appended. */
  baseUrl: string;
  /** The server's model name (EMBEDDING_MODEL without "openai:"). */
  model: string;
  apiKey?: string;
  /** Deadline of one request, body included. Default 30 s. */
  timeoutMs?: number;
  /** Tries per batch, the first included. Default 4. */
  attempts?: number;
  /** Wait before the first retry, doubled before each next one (unless Retry-After says). Default 500 ms. */
  backoffMs?: number;
  /** How waiting is done (tests record the waits instead). */
  sleep?: (ms: number) => Promise<void>;
}

/** The longest Retry-After honoured: a server asking for more gets this, then the next try. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** What we rely on in the answer; anything else may be present. */
const EmbeddingsAnswer = Type.Object({
  data: Type.Array(Type.Object({ index: Type.Integer({ minimum: 0 }), embedding: Type.Array(Type.Number(), { minItems: 1 }) })),
  usage: Type.Optional(Type.Object({ prompt_tokens: Type.Optional(Type.Number()), total_tokens: Type.Optional(Type.Number()) })),
});
type EmbeddingsAnswer = Static<typeof EmbeddingsAnswer>;
// Compiled: an answer of 64 texts × 1,536 dimensions is ~100k numbers to check.
const answerCheck = TypeCompiler.Compile(EmbeddingsAnswer);

export interface EmbeddingsBatch {
  /** One per input text, in input order (as the server sent them: not normalised). */
  vectors: number[][];
  /** The tokens the server counted for the whole batch, when it says. */
  tokens?: number;
}

type Attempt = { ok: true; batch: EmbeddingsBatch } | { ok: false; retry: boolean; retryAfterMs?: number; message: string };

export class OpenAIClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: OpenAIClientOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, "")}/embeddings`;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.attempts = Math.max(1, opts.attempts ?? 4);
    this.backoffMs = opts.backoffMs ?? 500;
    this.sleep = opts.sleep ?? Bun.sleep;
  }

  /** Embeds `input` (non-empty texts) in one request, retried as above; fails with EmbeddingUnavailable. */
  async embed(input: string[]): Promise<EmbeddingsBatch> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(input);
      if (outcome.ok) return outcome.batch;
      if (!outcome.retry || attempt >= this.attempts) {
        const tries = attempt > 1 ? ` (${attempt} attempts)` : "";
        throw new EmbeddingUnavailable(`embedding request to ${this.url} failed${tries}: ${outcome.message}`);
      }
      await this.sleep(outcome.retryAfterMs ?? this.backoffMs * 2 ** (attempt - 1));
    }
  }

  private async attempt(input: string[]): Promise<Attempt> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.opts.model, input }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) return await this.refused(res);
      const body: unknown = await res.json();
      const parsed = parseAnswer(body, input.length);
      return typeof parsed === "string" ? { ok: false, retry: false, message: `${parsed}. ${this.checkModel()}` } : { ok: true, batch: parsed };
    } catch (err) {
      return this.unreachable(err);
    }
  }

  /** A non-2xx answer: its status, the start of its body, and what to check. */
  private async refused(res: Response): Promise<Attempt> {
    const excerpt = (await res.text().catch(() => "")).replace(/\s+/g, " ").trim().slice(0, 300);
    const retry = res.status === 408 || res.status === 429 || res.status >= 500;
    const message = `HTTP ${res.status}${excerpt ? ` ${excerpt}` : ""}. ${this.advice(res.status)}`;
    return { ok: false, retry, retryAfterMs: retryAfterMs(res.headers.get("retry-after")), message };
  }

  private unreachable(err: unknown): Attempt {
    const name = err instanceof Error ? err.name : "";
    if (err instanceof SyntaxError) return { ok: false, retry: false, message: `the answer is not JSON. ${this.checkModel()}` };
    if (name === "TimeoutError" || name === "AbortError") {
      return { ok: false, retry: true, message: `no answer within ${this.timeoutMs} ms. Check that the embedding server is running and not overloaded.` };
    }
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, retry: true, message: `${reason.replace(/[^.?!]$/, "$&.")} Check EMBEDDING_BASE_URL and that the embedding server is running.` };
  }

  private advice(status: number): string {
    if (status === 401 || status === 403) return "Check EMBEDDING_API_KEY.";
    if (status === 404) return `Check EMBEDDING_BASE_URL (it usually ends in /v1) and ${this.checkModel().replace(/^Check /, "")}`;
    if (status === 429) return "The server is rate-limiting this service: lower the load or raise its limit.";
    if (status >= 500) return "Check the embedding server's log.";
    return this.checkModel();
  }

  private checkModel(): string {
    return `Check that EMBEDDING_MODEL=openai:${this.opts.model} names an embedding model the server serves.`;
  }
}

/** The batch in input order, or why the answer cannot be one. */
function parseAnswer(body: unknown, expected: number): EmbeddingsBatch | string {
  if (!answerCheck.Check(body)) return "the answer is not an embeddings list ({data: [{index, embedding}]})";
  const answer = body as EmbeddingsAnswer;
  if (answer.data.length !== expected) return `the answer has ${answer.data.length} embeddings for ${expected} texts`;
  const vectors: number[][] = new Array(expected);
  const dimension = answer.data[0]?.embedding.length;
  for (const { index, embedding } of answer.data) {
    if (index >= expected || vectors[index]) return `the answer's indexes are not 0…${expected - 1}, each once`;
    if (embedding.length !== dimension) return `the answer mixes ${dimension}-d and ${embedding.length}-d embeddings`;
    vectors[index] = embedding;
  }
  const tokens = answer.usage?.prompt_tokens ?? answer.usage?.total_tokens;
  return tokens === undefined ? { vectors } : { vectors, tokens };
}

/** Retry-After in ms (delta-seconds or an HTTP date), capped; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
