import { LIMITS } from "../domain/memory.ts";
import { clampContent } from "../domain/ingest/extractor.ts";
import type { ChatCompleter } from "./chat-client.ts";

/**
 * Merge a cluster of similar memories into one statement (context `summarize`
 * when an LLM is configured). Memories are given oldest first so the model can
 * let later statements win when they conflict. Errors propagate: the caller
 * keeps its non-LLM merge as the fallback.
 */

const SYSTEM_PROMPT = [
  "You merge related long-term memories about a user and their projects into ONE statement.",
  "Keep every distinct fact; drop repetition. When memories conflict, the later one (higher number) wins.",
  "Write in the third person (\"User prefers…\", \"The team decided…\"), as one or two plain sentences.",
  "Reply with the merged statement only: no preamble, no quotes, no list, no markdown.",
].join("\n");

export interface SummaryResult {
  content: string;
  tokens: number;
}

/** Strip what models add despite instructions: fences, quotes, "Summary:" labels. */
function cleanSummary(text: string): string {
  return text
    .replace(/^```[a-z]*\s*|\s*```$/g, "")
    .replace(/^\s*(?:merged (?:statement|memory)|summary)\s*:\s*/i, "")
    .replace(/^["'“]+|["'”]+$/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

export async function summarizeCluster(client: ChatCompleter, memories: string[]): Promise<SummaryResult> {
  const items = memories.map((m) => m.trim()).filter(Boolean);
  if (items.length === 0) throw new RangeError("summarizeCluster needs at least one memory");
  if (items.length === 1) return { content: clampContent(items[0] ?? ""), tokens: 0 }; // nothing to merge
  const list = items.map((m, i) => `${i + 1}. ${m.slice(0, LIMITS.content)}`).join("\n");
  const { content, usage } = await client.complete(
    [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: `Memories (oldest first):\n${list}` },
    ],
    { temperature: 0 },
  );
  const merged = clampContent(cleanSummary(content));
  if (!merged) throw new Error("summarizer returned an empty statement");
  return { content: merged, tokens: usage.total_tokens };
}
