import { t } from "elysia";
import type { MemoryStore } from "../store-port";
import type { Memories } from "../memories";
import type { Relations } from "../relations";
import type { Clock } from "../ports";
import type { Memory, RelationType, StoreFields } from "../memory";
import { DomainError, invalid } from "../errors";
import { ChatMessage, type ExtractedFact, type ExtractInput, type Extractor } from "./extractor";
import { inferRelation } from "./relate";

/** Input bounds for ingest and extract: large enough for a long session, bounded for the server. */
export const INGEST_LIMITS = { messages: 1000, messageChars: 32_768, textChars: 200_000 } as const;

export const IngestSource = {
  messages: t.Optional(t.Array(t.Composite([ChatMessage, t.Object({ content: t.String({ maxLength: INGEST_LIMITS.messageChars }) })]), { minItems: 1, maxItems: INGEST_LIMITS.messages })),
  text: t.Optional(t.String({ minLength: 1, maxLength: INGEST_LIMITS.textChars })),
};

/** Existing memories compared with each new fact for supersedes / contradicts / supports. */
const NEIGHBOURS_PER_FACT = 5;
/** Relations of existing memories only count with this much vector similarity (avoids pairing unrelated facts). */
const NEIGHBOUR_MIN_COSINE = 0.5;

export interface IngestRequest extends ExtractInput {
  namespace: string;
  session_id?: string;
  agent_id?: string;
  auto_relate: boolean;
}

export function requireOneSource(input: ExtractInput): void {
  if (input.messages === undefined && input.text === undefined) throw invalid("body: provide messages or text");
  if (input.messages !== undefined && input.text !== undefined) throw invalid("body: provide either messages or text, not both");
}

/**
 * Conversation → facts → memories: extract, store the new facts (duplicates of existing memories
 * are skipped, never merged), and optionally relate them to each other and to what was known.
 */
export class Ingest {
  constructor(
    private readonly extractor: Extractor,
    private readonly memories: Memories,
    private readonly relations: Relations,
    private readonly store: MemoryStore,
    private readonly clock: Clock,
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
    const relations_created = request.auto_relate ? await this.relate(userId, stored, request.namespace) : 0;
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

  /** related_to/supports/… among this ingest's facts, then supersedes/contradicts/supports against existing memories. */
  private async relate(userId: string, stored: { fact: ExtractedFact; id: string }[], namespace: string): Promise<number> {
    let created = 0;
    const link = async (sourceId: string, targetId: string, type: RelationType) => {
      try {
        await this.relations.create(userId, sourceId, { target_id: targetId, relation_type: type, metadata: { via: "auto_relate" } });
        created++;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error; // an existing identical relation is fine
      }
    };
    for (let j = 0; j < stored.length; j++) {
      for (let i = 0; i < j; i++) {
        const type = inferRelation(stored[j]!.fact, stored[i]!.fact);
        if (type) await link(stored[j]!.id, stored[i]!.id, type);
      }
    }
    const newIds = new Set(stored.map((s) => s.id));
    const vectors = await this.store.embeddings(userId, [...newIds]);
    for (const { fact, id } of stored) {
      for (const existing of await this.neighbours(userId, vectors.get(id), namespace, newIds)) {
        const type = inferRelation(fact, { content: existing.content, memory_type: existing.memory_type });
        if (type && type !== "related_to") await link(id, existing.id, type);
      }
    }
    return created;
  }

  private async neighbours(userId: string, vector: Float32Array | undefined, namespace: string, exclude: Set<string>): Promise<Memory[]> {
    if (!vector) return [];
    const hits = await this.store.nearest(userId, vector, { namespace }, NEIGHBOURS_PER_FACT + exclude.size, this.clock());
    const ids = hits.filter((h) => !exclude.has(h.memory.id) && h.similarity >= NEIGHBOUR_MIN_COSINE).slice(0, NEIGHBOURS_PER_FACT).map((h) => h.memory.id);
    return this.store.getMemories(userId, ids, this.clock());
  }
}
