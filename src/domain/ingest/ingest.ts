import { t } from "elysia";
import type { Memories } from "../memories";
import type { StoreFields } from "../memory";
import type { AutoRelate } from "../auto-relate";
import { invalid } from "../errors";
import { ChatMessage, type ExtractedFact, type ExtractInput, type Extractor } from "./extractor";

/** Input bounds for ingest and extract: large enough for a long session, bounded for the server. */
export const INGEST_LIMITS = { messages: 1000, messageChars: 32_768, textChars: 200_000 } as const;

/**
 * A message is open where every other body part is closed (memory.ts CLOSED): agents pass their
 * conversation through as their chat API holds it, and a message there carries more keys than these
 * two (`name`, `tool_calls`, `tool_call_id`…); refusing them would make every such agent strip its
 * messages first. They are accepted and not read (docs/api.md).
 */
const CHAT_FORMAT = {
  additionalProperties: true,
  description: "a chat message: role and content are read; other keys of the chat format (name, tool_calls, …) are accepted and not read",
} as const;

export const IngestSource = {
  messages: t.Optional(t.Array(t.Composite([ChatMessage, t.Object({ content: t.String({ maxLength: INGEST_LIMITS.messageChars }) })], CHAT_FORMAT), { minItems: 1, maxItems: INGEST_LIMITS.messages })),
  text: t.Optional(t.String({ minLength: 1, maxLength: INGEST_LIMITS.textChars })),
};

export interface IngestRequest extends ExtractInput {
  namespace: string;
  session_id?: string;
  agent_id?: string;
  auto_relate: boolean;
}

export function requireOneSource(input: ExtractInput): void {
  if (input.messages === undefined && input.text === undefined) throw invalid("body: provide messages or text", { field: "body/messages", rule: "required", alternative: "body/text" });
  if (input.messages !== undefined && input.text !== undefined) throw invalid("body: provide either messages or text, not both", { field: "body/text", rule: "conflict", conflicts_with: "body/messages" });
}

/**
 * Conversation → facts → memories: extract, store the new facts (duplicates of existing memories
 * are skipped, never merged), and optionally relate them to each other and to what was known.
 */
export class Ingest {
  constructor(
    private readonly extractor: Extractor,
    private readonly memories: Memories,
    private readonly autoRelate: AutoRelate,
  ) {}

  async extract(input: ExtractInput) {
    requireOneSource(input);
    return this.extractor.extract(input);
  }

  async run(userId: string, request: IngestRequest) {
    const { facts, tokens_used } = await this.extract(request);
    const empty = { memory_ids: [], facts_extracted: 0, facts_stored: 0, facts_deduplicated: 0, relations_created: 0, tokens_used };
    if (facts.length === 0) return empty;
    const items = facts.map((fact) => this.toStoreFields(fact, request));
    const outcome = await this.memories.storeMany(userId, items, { merge: false });
    const fresh = new Set(outcome.fresh_ids);
    const stored = facts.flatMap((fact, i) => (fresh.has(outcome.ids[i]!) ? [{ fact, id: outcome.ids[i]! }] : []));
    const relations_created = request.auto_relate ? await this.autoRelate.link(userId, stored, request.namespace, { sameCall: true }) : 0;
    return {
      memory_ids: outcome.fresh_ids,
      facts_extracted: facts.length,
      facts_stored: outcome.stored,
      facts_deduplicated: outcome.deduplicated,
      relations_created,
      tokens_used,
    };
  }

  private toStoreFields(fact: ExtractedFact, request: IngestRequest): StoreFields {
    // Provenance: which message of which session the fact came from.
    const metadata = { tags: fact.tags, source: { via: "ingest", message_index: fact.source.message_index, role: fact.source.role, session_id: request.session_id ?? null } };
    return {
      content: fact.content,
      memory_type: fact.memory_type,
      importance: fact.importance,
      namespace: request.namespace,
      session_id: request.session_id,
      agent_id: request.agent_id,
      metadata,
    };
  }
}
