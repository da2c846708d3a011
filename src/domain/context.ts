import { t, type Static } from "elysia";
import type { MemoryFilter, MemoryStore } from "./store-port";
import { tagsOf, type Memory } from "./memory";
import type { Clock, WarnLog } from "./ports";
import type { Recall } from "./recall";
import { score } from "./scoring";
import { cosine, estimateTokens, tokensForChars } from "./text";
import type { TextEmbedder } from "./ports";

export const ContextItem = t.Object({
  id: t.String(),
  content: t.String(),
  importance: t.Number(),
  memory_type: t.String(),
  tags: t.Array(t.String()),
  source: t.Union([t.Literal("core"), t.Literal("relevant"), t.Literal("summary")], {
    description: "core: pinned; relevant: ranked by recall score; summary: several similar memories merged",
  }),
});
export type ContextItem = Static<typeof ContextItem>;

export interface ContextRequest {
  query?: string;
  filter: MemoryFilter;
  max_memories: number;
  max_tokens: number;
  format: "text" | "structured";
  include_metadata: boolean;
  summarize: boolean;
}

/** Merges a cluster of similar memory texts into one (an LLM when configured). */
export type ClusterSummarizer = (contents: string[]) => Promise<{ content: string; tokens: number }>;

/** Memories at or above this cosine are "similar" for summarize; below the dedup threshold, above paraphrase noise. */
export const SUMMARY_SIMILARITY = 0.85;
/** Without a query, the most recent memories are the candidates. */
const RECENT_CANDIDATES = 200;

/**
 * Builds a prompt-ready block: pinned (core) memories first, then the rest by recall score,
 * greedily adding each item whose rendering keeps the whole output within `max_tokens`
 * (estimated; see estimateTokens) and stopping at `max_memories`.
 */
export class ContextAssembler {
  constructor(
    private readonly store: MemoryStore,
    private readonly embedder: TextEmbedder,
    private readonly recall: Recall,
    private readonly clock: Clock,
    private readonly summarizer: ClusterSummarizer | null,
    private readonly warn: WarnLog = console.warn,
  ) {}

  async assemble(userId: string, request: ContextRequest) {
    const now = this.clock();
    const core = await this.store.listMemories(userId, { ...request.filter, pinned: true }, { limit: request.max_memories, offset: 0 }, now);
    const pinned = core.memories.sort((a, b) => b.importance - a.importance);
    const ranked = (await this.ranked(userId, request, now)).filter((m) => !m.pinned);
    let items: ContextItem[] = [...pinned.map((m) => item(m, "core")), ...ranked.map((m) => item(m, "relevant"))];
    let tokensUsed = 0;
    if (request.summarize) ({ items, tokensUsed } = await this.summarize(userId, items));
    const chosen = fitBudget(items, request);
    const context = request.format === "text" ? renderText(chosen, request.include_metadata) : { memories: chosen };
    const tokens = estimateTokens(typeof context === "string" ? context : JSON.stringify(context));
    return { context, memories_used: chosen.length, tokens: chosen.length ? tokens : 0, llm_tokens: tokensUsed, items: chosen };
  }

  private async ranked(userId: string, request: ContextRequest, now: number): Promise<Memory[]> {
    if (request.query) {
      const { vectors } = await this.embedder.embed([request.query]);
      const ranked = await this.recall.rank(userId, { query: request.query, limit: request.max_memories * 2, filter: request.filter }, vectors[0]!, now);
      return (await this.recall.materialize(userId, ranked, ranked.length, now)).map((r) => r.memory);
    }
    const recent = await this.store.listMemories(userId, request.filter, { limit: RECENT_CANDIDATES, offset: 0 }, now);
    const scored = recent.memories.map((memory) => ({ memory, s: score({ memory, vector: 0, keyword: 0, relevance: 1, relationCount: 0 }, now).similarity }));
    return scored.sort((a, b) => b.s - a.s).map((x) => x.memory);
  }

  /** Greedy clustering by embedding similarity; each cluster keeps its best-ranked member, or an LLM merge of all. */
  private async summarize(userId: string, items: ContextItem[]): Promise<{ items: ContextItem[]; tokensUsed: number }> {
    const vectors = await this.store.embeddings(userId, items.map((i) => i.id));
    const clusters: ContextItem[][] = [];
    for (const candidate of items) {
      const v = vectors.get(candidate.id);
      const home = v && clusters.find((c) => c[0]!.source === candidate.source && cosine(vectors.get(c[0]!.id)!, v) >= SUMMARY_SIMILARITY);
      if (home) home.push(candidate);
      else clusters.push([candidate]);
    }
    let tokensUsed = 0;
    const merged: ContextItem[] = [];
    for (const cluster of clusters) {
      const head = cluster[0]!;
      if (cluster.length === 1 || !this.summarizer) {
        merged.push(head);
        continue;
      }
      const summary = await this.summarizer(cluster.map((c) => c.content)).catch((error: unknown) => {
        this.warn(`[engram] context summarize: LLM merge failed, keeping the best-ranked memory (${error instanceof Error ? error.message : error})`);
        return null;
      });
      if (!summary) {
        merged.push(head);
        continue;
      }
      tokensUsed += summary.tokens;
      merged.push({ ...head, content: summary.content, source: "summary", tags: [...new Set(cluster.flatMap((c) => c.tags))] });
    }
    return { items: merged, tokensUsed };
  }
}

function item(m: Memory, source: ContextItem["source"]): ContextItem {
  return { id: m.id, content: m.content, importance: m.importance, memory_type: m.memory_type, tags: tagsOf(m), source };
}

const HEADER = "Relevant memories about the user and their work (most important first):";

function line(i: ContextItem, includeMetadata: boolean): string {
  const text = i.content.replace(/\s+/g, " ").trim();
  if (!includeMetadata) return `- ${text}`;
  const tags = i.tags.length ? ` · tags: ${i.tags.join(", ")}` : "";
  return `- [${i.memory_type} · importance ${i.importance}${tags}${i.source === "core" ? " · core" : ""}] ${text}`;
}

export function renderText(items: ContextItem[], includeMetadata: boolean): string {
  if (items.length === 0) return "";
  return [HEADER, ...items.map((i) => line(i, includeMetadata))].join("\n");
}

/** Characters one item adds to the output: a text line plus its newline, or a JSON element plus its comma. */
function itemChars(i: ContextItem, request: Pick<ContextRequest, "format" | "include_metadata">): number {
  return request.format === "text" ? line(i, request.include_metadata).length + 1 : JSON.stringify(i).length + 1;
}

/** What the output costs before any item: the text header, or `{"memories":[]}`. */
const frameChars = (format: ContextRequest["format"]) => (format === "text" ? HEADER.length : JSON.stringify({ memories: [] }).length);

/**
 * Adds items in order while the rendered output stays within budget; an item too big to fit is
 * skipped, never cut. Counting characters incrementally gives exactly the length of the final render.
 */
export function fitBudget(items: ContextItem[], request: Pick<ContextRequest, "format" | "include_metadata" | "max_memories" | "max_tokens">): ContextItem[] {
  const chosen: ContextItem[] = [];
  let chars = frameChars(request.format);
  for (const candidate of items) {
    if (chosen.length >= request.max_memories) break;
    const added = itemChars(candidate, request) - (request.format === "structured" && chosen.length === 0 ? 1 : 0);
    if (tokensForChars(chars + added) > request.max_tokens) continue;
    chosen.push(candidate);
    chars += added;
  }
  return chosen;
}
