import { t } from "elysia";
import { Value } from "@sinclair/typebox/value";
import type { ChatCompleter } from "../chat-port.ts";
import type { ReplacementJudge, WarnLog } from "../ports";

/**
 * auto_relate's update step when an LLM is configured (as mem0's is): given a new fact and the
 * wallet's nearest existing facts, the model says which of them the new fact replaces, i.e. the
 * same subject and attribute with a new value ("User moved to Lisbon" replaces "User lives in
 * Berlin"; "User has a brother Luis" replaces nothing of "User has a sister Julia"). It catches the
 * changes told in other words than the old value, which the offline rules miss. Any failure (HTTP,
 * timeout, a reply not in the expected shape) answers "nothing": the rules' relations stand alone.
 */
export class LlmReplacementJudge implements ReplacementJudge {
  constructor(
    private readonly client: ChatCompleter,
    private readonly log?: WarnLog,
  ) {}

  /** Indexes into `existing` of the facts `fresh` replaces. */
  async replaced(fresh: string, existing: string[]): Promise<number[]> {
    if (existing.length === 0) return [];
    try {
      const { content } = await this.client.complete(
        [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: JSON.stringify({ existing: existing.map((text, id) => ({ id, text })), new: fresh }) },
        ],
        { json: true, temperature: 0, maxTokens: 200 },
      );
      const reply: unknown = JSON.parse(content);
      if (!Value.Check(Reply, reply)) throw new Error(`unexpected reply ${content.slice(0, 200)}`);
      return [...new Set(reply.replaces)].filter((i) => i >= 0 && i < existing.length);
    } catch (error) {
      this.log?.("auto_relate: the LLM's replacement check failed; the offline rules' relations stand alone", { error: error instanceof Error ? error.message : String(error) });
      return [];
    }
  }
}

const Reply = t.Object({ replaces: t.Array(t.Integer()) });

const INSTRUCTIONS = `You maintain a user's long-term memory. You get existing facts (each with an id) and one new fact.
A new fact REPLACES an existing fact only when both state the same attribute of the same subject and the new fact gives it a different, current value, so the existing fact is no longer true (a move, a new job, a new manager, a changed date, a new phone number, a switched tool, a changed plan).
It does NOT replace a fact about another attribute, another person or thing, or a fact it adds to (a second sibling, a second pet, another tool used as well, a mentor besides a manager, a work city besides a home city).
When unsure, do not replace: a wrong replacement hides a true fact.
Answer with JSON only: {"replaces": [ids of the replaced facts]}, or {"replaces": []}.`;
