import { t, type Static } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { MemoryType } from "../memory.ts";
import type { ChatCompleter, ChatMessage } from "../chat-port.ts";
import type { ChatRole, ExtractInput, ExtractedFact, ExtractionResult, Extractor } from "./extractor.ts";
import { clampContent, clampImportance, cleanTags, factKey } from "./extractor.ts";
import { attributeOf, subjectOf } from "./facets.ts";
import { BASE_IMPORTANCE, classifyType, tagsFor } from "./offline/classify.ts";
import { noSignals } from "./offline/filters.ts";
import { subjectLength } from "./offline/grammar.ts";
import { chunkText } from "./offline/sentences.ts";
import type { WarnLog } from "../ports";

/**
 * Fact extraction through any OpenAI-compatible chat-completions endpoint.
 *
 * Per chunk of input (whole messages up to `maxChunkChars`; a longer message or
 * text is cut on sentence boundaries): one JSON-mode call; if the reply is not
 * valid JSON of the expected shape, one retry with the reply and a corrective
 * message; if that fails too, or on HTTP error / timeout / network failure, the
 * chunk goes to the `fallback` extractor (offline) with a logged warning. After
 * a transport failure the remaining chunks skip the LLM too, so a dead endpoint
 * costs one timeout, not one per chunk. Tool messages are not sent (the offline
 * rules ignore them too). tokens_used sums `usage.total_tokens` of every call.
 *
 * Cleaning of the model's facts (values are repaired rather than rejected,
 * because one bad field should not cost the whole fact):
 *   content        trimmed, whitespace collapsed, ≤ LIMITS.content; empty → fact dropped
 *   memory_type    unknown value → re-derived by the offline type rules
 *   importance     clamped to 0..1 (7 → 1); missing → the offline default for the type
 *   tags           lower-case, ≤ 64 chars, ≤ 5, deduped; none left → offline tags
 *   subject        lower-cased; missing/empty → derived from content
 *   attribute      lower-cased; missing → derived from content; "" → null
 *   message_index  kept only if it names a message of this chunk; else null
 * Wrong JSON types (e.g. importance "high", facts not an array) make the reply
 * malformed, which triggers the retry.
 */

export interface LlmExtractorOptions {
  /** The chat model (src/llm's OpenAI-compatible client, shared with the summarizer, or a test double). */
  client: ChatCompleter;
  /** The model's name, for log lines. */
  model: string;
  fallback: Extractor;
  log?: WarnLog;
  /** Transcript characters per LLM call. Default 24 000. */
  maxChunkChars?: number;
}

/** What the model must return; lenient on values, strict on JSON types. */
const LlmFact = t.Object({
  content: t.String(),
  memory_type: t.String(),
  importance: t.Optional(t.Number()),
  tags: t.Optional(t.Array(t.String())),
  subject: t.Optional(t.Union([t.String(), t.Null()])),
  attribute: t.Optional(t.Union([t.String(), t.Null()])),
  message_index: t.Optional(t.Union([t.Integer(), t.Null()])),
});
type LlmFact = Static<typeof LlmFact>;
const LlmOutput = t.Object({ facts: t.Array(LlmFact) });

export const EXTRACTION_PROMPT = `You extract durable long-term memories for a software assistant.
Return ONLY a JSON object: {"facts":[{"content":string,"memory_type":string,"importance":number,"tags":[string],"subject":string,"attribute":string|null,"message_index":integer|null}]}
Rules:
- content: one atomic, self-contained statement in the third person ("User prefers tabs", "The team decided to use Postgres"). Split compound statements.
- Keep preferences, decisions, corrections, project facts and lasting facts about the user or the world. Skip greetings, thanks, acknowledgements, questions, one-off requests, guesses and the assistant's suggestions.
- memory_type: one of correction, preference, decision, project, observation, general.
- importance: 0..1 (correction 0.8, decision 0.75, preference 0.7, project 0.6, observation 0.5, general 0.4; +0.1 if the user said to remember it or that it is important).
- tags: 1 to 5 lower-case keywords.
- subject: normalized lower-case subject, e.g. "user", "team", "project", "api".
- attribute: the property the fact sets a value for, e.g. "editor", "database", "name"; null if none.
- message_index: the [n] of the message the fact comes from; null for plain text.
If nothing is worth keeping, return {"facts":[]}.`;

interface ChunkMessage {
  index: number;
  role: ChatRole;
  content: string;
}

/** A unit of work: either some messages (with their original indices) or a piece of text. */
type Chunk = { kind: "messages"; messages: ChunkMessage[] } | { kind: "text"; text: string };

interface ChunkResult {
  facts: ExtractedFact[];
  tokens: number;
}

export class LlmExtractor implements Extractor {
  readonly name = "llm";
  private readonly client: ChatCompleter;
  private readonly fallback: Extractor;
  private readonly log: WarnLog;
  private readonly maxChunkChars: number;
  private readonly model: string;

  constructor(opts: LlmExtractorOptions) {
    this.client = opts.client;
    this.fallback = opts.fallback;
    this.log = opts.log ?? ((message, detail) => console.warn(message, detail ?? ""));
    this.maxChunkChars = Math.max(1000, opts.maxChunkChars ?? 24_000);
    this.model = opts.model;
  }

  async extract(input: ExtractInput): Promise<ExtractionResult> {
    const facts = new Map<string, ExtractedFact>();
    let tokens = 0;
    let llmDown = false;
    for (const chunk of planChunks(input, this.maxChunkChars)) {
      const result = llmDown ? await this.viaFallback(chunk, "LLM unavailable earlier in this request", 0) : await this.viaLlm(chunk);
      if ("down" in result) llmDown = true;
      tokens += result.tokens;
      for (const fact of result.facts) keep(facts, fact);
    }
    return { facts: [...facts.values()], tokens_used: tokens };
  }

  /** One call, one corrective retry on malformed output, then fallback. */
  private async viaLlm(chunk: Chunk): Promise<ChunkResult & { down?: true }> {
    const conversation: ChatMessage[] = [
      { role: "system", content: EXTRACTION_PROMPT },
      { role: "user", content: transcriptOf(chunk) },
    ];
    let tokens = 0;
    for (let attempt = 1; ; attempt++) {
      let reply;
      try {
        reply = await this.client.complete(conversation, { json: true });
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return { ...(await this.viaFallback(chunk, `LLM request failed: ${reason}`, tokens)), down: true };
      }
      tokens += reply.usage.total_tokens;
      const parsed = parseOutput(reply.content);
      if ("facts" in parsed) return { facts: cleanFacts(parsed.facts, chunk), tokens };
      if (attempt === 2) return this.viaFallback(chunk, `malformed LLM output twice: ${parsed.error}`, tokens);
      conversation.push(
        { role: "assistant", content: reply.content },
        { role: "user", content: `That reply was invalid (${parsed.error}). Reply again with ONLY the JSON object {"facts":[...]} described above.` },
      );
    }
  }

  private async viaFallback(chunk: Chunk, reason: string, tokens: number): Promise<ChunkResult> {
    this.log(`llm-extractor: ${reason}; using the ${this.fallback.name} extractor`, { model: this.model, reason });
    if (chunk.kind === "text") {
      const result = await this.fallback.extract({ text: chunk.text });
      return { facts: result.facts, tokens: tokens + result.tokens_used };
    }
    const result = await this.fallback.extract({ messages: chunk.messages.map(({ role, content }) => ({ role, content })) });
    const facts = result.facts.map((f) => {
      const original = f.source.message_index === null ? undefined : chunk.messages[f.source.message_index];
      return { ...f, source: { message_index: original?.index ?? null, role: original?.role ?? f.source.role } };
    });
    return { facts, tokens: tokens + result.tokens_used };
  }
}

function keep(facts: Map<string, ExtractedFact>, fact: ExtractedFact): void {
  const key = factKey(fact.content);
  const seen = facts.get(key);
  if (!seen) facts.set(key, fact);
  else seen.importance = Math.max(seen.importance, fact.importance);
}

// ── chunk planning ───────────────────────────────────────────────────────────

const lineOf = (m: ChunkMessage) => `[${m.index}] ${m.role}: ${m.content}`;

/** Whole messages per chunk while they fit; an oversized message is cut on sentence boundaries. */
function planChunks(input: ExtractInput, max: number): Chunk[] {
  const chunks: Chunk[] = [];
  let current: ChunkMessage[] = [];
  let size = 0;
  const flush = () => {
    if (current.length) chunks.push({ kind: "messages", messages: current });
    current = [];
    size = 0;
  };
  (input.messages ?? []).forEach((m, index) => {
    if (m.role === "tool" || !m.content.trim()) return;
    for (const part of chunkText(m.content, max - 40)) {
      const cm = { index, role: m.role, content: part.trim() };
      const length = lineOf(cm).length + 1;
      if (size + length > max) flush();
      current.push(cm);
      size += length;
    }
  });
  flush();
  if (input.text?.trim()) for (const text of chunkText(input.text, max)) chunks.push({ kind: "text", text });
  return chunks;
}

function transcriptOf(chunk: Chunk): string {
  if (chunk.kind === "text") return `Text (use message_index null):\n${chunk.text}`;
  return `Conversation (message index in brackets):\n${chunk.messages.map(lineOf).join("\n")}`;
}

// ── output parsing and cleaning ──────────────────────────────────────────────

function parseOutput(content: string): { facts: LlmFact[] } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ""));
  } catch {
    return { error: "not valid JSON" };
  }
  if (Value.Check(LlmOutput, json)) return { facts: json.facts };
  const errors = [...Value.Errors(LlmOutput, json)].slice(0, 3).map((e) => `${e.path || "/"}: ${e.message}`);
  return { error: errors.join("; ") };
}

function cleanFacts(raw: LlmFact[], chunk: Chunk): ExtractedFact[] {
  return raw.map((f) => cleanFact(f, chunk)).filter((f): f is ExtractedFact => f !== null);
}

function typeOf(f: LlmFact, content: string): MemoryType {
  if (Value.Check(MemoryType, f.memory_type)) return f.memory_type;
  return classifyType(content.toLowerCase(), noSignals(), subjectLength(content) > 0);
}

function sourceOf(index: number | null | undefined, chunk: Chunk): ExtractedFact["source"] {
  const message = chunk.kind === "messages" ? chunk.messages.find((m) => m.index === index) : undefined;
  return message ? { message_index: message.index, role: message.role } : { message_index: null, role: null };
}

function cleanFact(f: LlmFact, chunk: Chunk): ExtractedFact | null {
  const content = clampContent(f.content.replace(/\s+/g, " "));
  if (!content) return null;
  const memoryType = typeOf(f, content);
  const attribute = f.attribute === undefined ? attributeOf(content) : f.attribute?.trim().toLowerCase() || null;
  const tags = cleanTags(f.tags ?? []);
  return {
    content,
    memory_type: memoryType,
    importance: clampImportance(f.importance ?? BASE_IMPORTANCE[memoryType]),
    tags: tags.length ? tags : tagsFor(memoryType, content, attribute),
    source: sourceOf(f.message_index, chunk),
    subject: f.subject?.trim().toLowerCase() || subjectOf(content),
    attribute,
  };
}
