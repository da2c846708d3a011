/**
 * A local OpenAI-compatible embedding server for tests (no network): `POST /v1/embeddings` answers
 * hashed bag-of-words vectors, deterministic, not unit length, in reverse order with their `index`,
 * and `usage.prompt_tokens` = words sent. It records every request, can fail the next ones with
 * given statuses, checks a Bearer key when given one, and rejects (400) any input containing
 * REJECT_MARKER, so a test can make one call fail for good.
 */
export const REJECT_MARKER = "__reject__";

export interface StubRequest {
  authorization: string | null;
  model: string;
  input: string[];
}

export interface StubFailure {
  status: number;
  retryAfter?: string;
}

export class EmbeddingStub {
  readonly requests: StubRequest[] = [];
  /** Answers for the next requests, each used once, before any embedding is computed. */
  readonly failures: StubFailure[] = [];
  /** Runs before each answer with the request's number (1-based); may wait, to hold requests open. */
  onRequest: ((n: number) => Promise<void> | void) | null = null;
  dimension: number;
  inFlight = 0;
  maxInFlight = 0;
  private readonly server: ReturnType<typeof Bun.serve>;

  constructor(opts: { apiKey?: string; dimension?: number } = {}) {
    this.dimension = opts.dimension ?? 64;
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => this.handle(req, opts.apiKey) });
  }

  /** The base URL a client is configured with. */
  get url(): string {
    return `http://127.0.0.1:${this.server.port}/v1`;
  }

  /** Texts embedded so far, the start-up probes included. */
  get texts(): string[] {
    return this.requests.flatMap((r) => r.input);
  }

  stop(): void {
    this.server.stop(true);
  }

  private async handle(req: Request, apiKey: string | undefined): Promise<Response> {
    if (new URL(req.url).pathname !== "/v1/embeddings" || req.method !== "POST") return Response.json({ error: "not found" }, { status: 404 });
    const body = (await req.json()) as { model: string; input: string[] };
    const authorization = req.headers.get("authorization");
    this.requests.push({ authorization, model: body.model, input: body.input });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await this.onRequest?.(this.requests.length);
      if (apiKey !== undefined && authorization !== `Bearer ${apiKey}`) return Response.json({ error: { message: "invalid api key" } }, { status: 401 });
      const failure = this.failures.shift();
      if (failure) {
        const headers = failure.retryAfter === undefined ? undefined : { "retry-after": failure.retryAfter };
        return Response.json({ error: { message: `stub failure ${failure.status}` } }, { status: failure.status, headers });
      }
      if (body.input.some((text) => text.includes(REJECT_MARKER))) return Response.json({ error: { message: "input rejected by the stub" } }, { status: 400 });
      const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: stubVector(text, this.dimension) }));
      const words = body.input.reduce((n, text) => n + stubWords(text).length, 0);
      return Response.json({ object: "list", model: body.model, data: data.reverse(), usage: { prompt_tokens: words, total_tokens: words } });
    } finally {
      this.inFlight--;
    }
  }
}

export const stubWords = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The stub's embedding of `text`: each word adds ±3 at a hashed position (so never unit length). */
export function stubVector(text: string, dimension: number): number[] {
  const vector = new Array<number>(dimension).fill(0);
  for (const word of stubWords(text)) {
    const h = Number(BigInt.asUintN(32, BigInt(Bun.hash(word))));
    vector[h % dimension]! += h & 0x80000000 ? -3 : 3;
  }
  return vector;
}
