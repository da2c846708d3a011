import { t, type Static } from "elysia";
import { LIMITS, MemoryType } from "../memory.ts";
import { surfaceKey } from "../fact-signature.ts";

/**
 * The extraction contract shared by the offline and LLM extractors.
 * Shapes that cross a boundary (HTTP input, LLM output cleanup, storage) are
 * TypeBox schemas so they are declared once and both validated and typed.
 */

export const ChatRole = t.Union([
  t.Literal("user"),
  t.Literal("assistant"),
  t.Literal("system"),
  t.Literal("tool"),
]);
export type ChatRole = Static<typeof ChatRole>;

export const ChatMessage = t.Object({ role: ChatRole, content: t.String() });
export type ChatMessage = Static<typeof ChatMessage>;

/** Either a conversation or a plain text (both may be given; messages come first). */
export const ExtractInput = t.Object({
  messages: t.Optional(t.Array(ChatMessage)),
  text: t.Optional(t.String()),
});
export type ExtractInput = Static<typeof ExtractInput>;

/** At most this many tags per extracted fact (a memory may hold LIMITS.tags). */
export const FACT_TAGS_MAX = 5;

export const FactSource = t.Object({
  /** Index into `messages`; null when the fact came from `text`. */
  message_index: t.Union([t.Integer({ minimum: 0 }), t.Null()]),
  role: t.Union([ChatRole, t.Null()]),
});
export type FactSource = Static<typeof FactSource>;

export const ExtractedFact = t.Object({
  /** Atomic, self-contained statement. */
  content: t.String({ minLength: 1, maxLength: LIMITS.content }),
  memory_type: MemoryType,
  importance: t.Number({ minimum: 0, maximum: 1 }),
  tags: t.Array(t.String({ minLength: 1, maxLength: LIMITS.tagChars }), {
    minItems: 1,
    maxItems: FACT_TAGS_MAX,
  }),
  source: FactSource,
  /** Normalized subject ("user", "team", "project", "api"…), used by auto-relate. */
  subject: t.String(),
  /** Normalized attribute the fact sets a value for ("editor", "database"), else null. */
  attribute: t.Union([t.String(), t.Null()]),
});
export type ExtractedFact = Static<typeof ExtractedFact>;

export interface ExtractionResult {
  facts: ExtractedFact[];
  /** Sum of LLM `usage.total_tokens`; 0 for the offline extractor. */
  tokens_used: number;
}

export interface Extractor {
  readonly name: string;
  extract(input: ExtractInput): Promise<ExtractionResult>;
}

/** Clamp to 0..1 and round to 2 decimals (stable values for tests and storage). */
export function clampImportance(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.round(Math.min(1, Math.max(0, value)) * 100) / 100;
}

/** Lower-case, trim, cap length and count, drop empties and duplicates. */
export function cleanTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim().toLowerCase().replace(/\s+/g, "-").slice(0, LIMITS.tagChars);
    if (tag && !out.includes(tag)) out.push(tag);
    if (out.length === FACT_TAGS_MAX) break;
  }
  return out;
}

/** Cut at a word boundary so stored content never exceeds LIMITS.content. */
export function clampContent(content: string): string {
  const text = content.trim();
  if (text.length <= LIMITS.content) return text;
  const cut = text.slice(0, LIMITS.content);
  const space = cut.lastIndexOf(" ");
  return (space > LIMITS.content * 0.8 ? cut.slice(0, space) : cut).trim();
}

/**
 * Key used to dedupe facts within one extraction: case, accents, punctuation and spacing ignored,
 * symbols kept ("uses C++" and "uses C#" are two facts). Near-duplicates are left to the store,
 * which applies the one dedup rule (dedup.ts) within the batch and against existing memories.
 */
export function factKey(content: string): string {
  return surfaceKey(content);
}
