import type { MemoryType } from "../../memory.ts";
import { cleanTags, clampImportance } from "../extractor.ts";
import type { Signals } from "./filters.ts";
import { isFiniteAt } from "./grammar.ts";
import { PRE_VERB_ADVERBS, PROJECT_WORDS, SHORT_TECH, STOPWORDS, VALUE_CATEGORIES, VERBS } from "./lexicon.ts";

/**
 * memory_type, importance and tags for a kept statement.
 *
 * Type — first rule that matches, in this order:
 *   correction  "actually", "correction:", "no longer", "not … anymore", "changed/switched/moved to|from",
 *               "instead of", "used to", "I meant"
 *   decision    "decided", "decision", "go/going/went with", "chose/choose", "agreed", "settled on",
 *               "opted", "picked", "will use", "let's go with"
 *   preference  "prefer", "like", "love", "hate", "dislike", "enjoy", "favorite", "can't stand",
 *               "rather", standing instructions ("User wants the assistant to always…")
 *   project     a project word: repo, service, deadline, stack, deploy, version, release, branch, CI, API…
 *   observation any other statement with a clear subject (the user, the team, a named thing)
 *   general     the rest (pronoun-led statements such as "It is spelled Anna")
 *
 * Importance — by type: correction 0.8, decision 0.75, preference 0.7, project 0.6,
 * observation 0.5, general 0.4; +0.1 when the speaker said "remember" / "important"
 * (or "don't forget", "keep in mind", "crucial", "critical"); clamped to 0..1.
 *
 * Tags — 1..5, lower-case: the memory type, then the attribute category when a
 * known term names one ("vim" → "editor"), then salient words in order of
 * preference: known terms and capitalised names first, then other content words;
 * stopwords, subject words (user/team) and verbs are skipped.
 */

const CORRECTION = /\b(?:actually|correction|no longer|anymore|(?:changed|switched|moved|migrated) (?:to|from)|instead of|used to|i meant|scratch that)\b/;
const DECISION = /\b(?:decided|decision|go with|going with|went with|chose|chosen|choose|agreed|agree on|settled on|opted|picked|will use|standardi[sz]ed? on)\b/;
const PREFERENCE = /\b(?:always uses?|never uses?|prefers?|preferred|likes?|liked|loves?|loved|hates?|hated|dislikes?|enjoys?|favou?rite|cannot stand|rather|wants the assistant)\b/;
const NOT_A_PREFERENCE = /\b(?:looks|sounds|seems|feels|something|just|is|are|was|were) like\b/g;
const IMPORTANT = /\b(?:remember|important|do not forget|keep in mind|crucial|critical)\b/;

export const mentionsCorrection = (text: string): boolean => CORRECTION.test(text.toLowerCase());

export const BASE_IMPORTANCE: Record<MemoryType, number> = {
  correction: 0.8,
  decision: 0.75,
  preference: 0.7,
  project: 0.6,
  observation: 0.5,
  general: 0.4,
};

/** `text` is the original clause and the rewritten content, lower-cased, contractions expanded. */
export function classifyType(text: string, signals: Signals, hasSubject: boolean): MemoryType {
  if (signals.correction || CORRECTION.test(text)) return "correction";
  if (signals.decision || DECISION.test(text)) return "decision";
  if (PREFERENCE.test(text.replace(NOT_A_PREFERENCE, ""))) return "preference";
  if (text.split(/[^\p{L}\p{N}.]+/u).some((w) => PROJECT_WORDS.has(w))) return "project";
  return hasSubject ? "observation" : "general";
}

export function importanceFor(type: MemoryType, text: string, signals: Signals): number {
  const bonus = signals.important || IMPORTANT.test(text) ? 0.1 : 0;
  return clampImportance(BASE_IMPORTANCE[type] + bonus);
}

const TAG_SKIP = new Set([
  ...PRE_VERB_ADVERBS,
  ...["user", "team", "assistant", "wants", "want", "everything", "anymore", "longer", "not", "never"],
  ...["after", "before", "during", "last", "next", "first", "long", "short", "good", "better", "best"],
]);

/** Known terms in the text, e.g. "vs code", "postgres". */
function knownTerms(lower: string): string[] {
  const padded = ` ${lower.replace(/[^\p{L}\p{N}.+#\s-]/gu, " ").replace(/\.(?=\s|$)/g, " ")} `;
  const found: { at: number; term: string }[] = [];
  for (const cat of VALUE_CATEGORIES) {
    for (const term of cat.terms) {
      const at = padded.indexOf(` ${term} `);
      if (at >= 0) found.push({ at, term });
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.term);
}

/** Candidate tag words from the content: names first, then other content words; main verbs skipped. */
function salientWords(content: string): string[] {
  const names: string[] = [];
  const others: string[] = [];
  const raw = content.split(/\s+/);
  const words = raw.map((w) => w.replace(/^[^\p{L}\p{N}.#]+|[^\p{L}\p{N}+#]+$/gu, "").replace(/'s$/i, ""));
  const lowered = words.map((w) => w.toLowerCase());
  words.forEach((word, i) => {
    const lower = lowered[i] ?? "";
    if (!lower || STOPWORDS.has(lower) || TAG_SKIP.has(lower) || /^\d+$/.test(lower)) return;
    if (lower.length < 3 && !SHORT_TECH.has(lower)) return;
    if (isFiniteAt(lowered, i) || (lowered[i - 1] === "to" && VERBS.has(lower))) return;
    (i > 0 && /^\p{Lu}/u.test(word) ? names : others).push(lower);
  });
  return [...names, ...others];
}

export function tagsFor(type: MemoryType, content: string, attribute: string | null): string[] {
  const lower = content.toLowerCase();
  const category = attribute && VALUE_CATEGORIES.some((c) => c.attribute === attribute) ? [attribute] : [];
  return cleanTags([type, ...category, ...knownTerms(lower), ...salientWords(content)]);
}
