import { IRREGULAR_PAST, MODALS, NEGATIONS, PRE_VERB_ADVERBS, STOPWORDS, VERBS, isPastOrParticiple, verbLemma } from "./lexicon.ts";

/**
 * Just enough shallow grammar to find a clause's subject and finite verb
 * without a POS tagger. Rules favour "not a clause" when unsure, because a
 * missed split costs less than a broken fact.
 */

const AUXILIARIES = new Set([
  "is", "are", "was", "were", "am", "has", "have", "had", "does", "do", "did", ...MODALS,
]);

/** Words after which a verb-looking word is really a noun ("the build", "for the help"). */
const NOUN_CONTEXT = new Set([
  "a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "its",
  "of", "for", "to", "in", "on", "at", "with", "by", "from", "some", "any", "no", "every", "each",
  "user's", "team's", "weekly", "daily", "monthly", "main", "public", "new", "old",
]);

export const SUBJECT_PRONOUNS = new Set(["i", "we", "you", "he", "she", "they", "it"]);
const DETERMINERS = new Set([
  "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "its",
]);
/** Words that cannot sit inside a subject noun phrase before its verb. */
const PHRASE_BREAKERS = new Set([
  "a", "an", "the", "that", "which", "who", "and", "or", "but", "to", "for", "with", "if", "when",
]);

/** Words of a clause, lower-cased, punctuation trimmed (keeps inner "." "'" "#" "+"). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}.#]+|[^\p{L}\p{N}+#]+$/gu, ""))
    .filter(Boolean);
}

/** Is words[i] a finite verb in context? (auxiliary, or an inflected/base verb not used as a noun) */
export function isFiniteAt(words: readonly string[], i: number): boolean {
  const w = words[i];
  if (!w) return false;
  if (w === "may" && !/^[a-z]/.test(words[i + 1] ?? "")) return false; // "3 May" is a date
  if (AUXILIARIES.has(w)) return true;
  if (w.endsWith("ing") || !verbLemma(w)) return false;
  const prev = words[i - 1];
  if (prev !== undefined && NOUN_CONTEXT.has(prev)) return false;
  if (VERBS.has(w) && !isPastOrParticiple(w)) {
    // A bare base form is finite only after a subject ("we target", "the tests pass").
    return prev !== undefined && !isFunctionWord(prev);
  }
  return true;
}

function isFunctionWord(w: string): boolean {
  return DETERMINERS.has(w) || PHRASE_BREAKERS.has(w) || NOUN_CONTEXT.has(w);
}

/** Index of the first finite verb, or -1. */
export function firstFiniteIndex(words: readonly string[]): number {
  for (let i = 0; i < words.length; i++) if (isFiniteAt(words, i)) return i;
  return -1;
}

/** Skip adverbs ("really", "no longer", "-ly") starting at i; returns the next index. */
export function skipAdverbs(words: readonly string[], i: number): number {
  let j = i;
  while (j < words.length) {
    const w = words[j] ?? "";
    if (w === "no" && words[j + 1] === "longer") j += 2;
    else if (PRE_VERB_ADVERBS.has(w) || (w.length > 4 && w.endsWith("ly"))) j += 1;
    else break;
  }
  return j;
}

/**
 * After "I/we/you/they…" the next word (past adverbs) is almost always the verb,
 * so unknown words count too ("we removed", "I vibe-code"); function words do not.
 */
function pronounTakesVerb(words: readonly string[]): boolean {
  const next = words[skipAdverbs(words, 1)] ?? "";
  if (isFiniteAt(["i", next], 1)) return true;
  return /^[a-z][a-z-]+$/.test(next) && !STOPWORDS.has(next) && !NEGATIONS.has(next);
}

const PAST_FOLLOWERS = new Set(["up", "down", "to", "from", "by", "in", "on", "off", "over", "out", "again"]);

/**
 * "Rent went up…", "Standup moved to…": a verb-looking first word followed by a simple past is a
 * noun subject (an imperative is never followed by one); a past in "-ed" must be followed by a
 * preposition, as "Check updated docs" reads the other way.
 */
function nounBeforePast(words: readonly string[]): boolean {
  const next = words[1] ?? "";
  if (IRREGULAR_PAST.has(next)) return true;
  return next.endsWith("ed") && isPastOrParticiple(next) && PAST_FOLLOWERS.has(words[2] ?? "");
}

/**
 * Number of leading words forming the subject when the clause opens with
 * "subject + finite verb" ("I use…", "the billing service runs…", "Dana says…"),
 * else 0. `original` keeps case so a capitalised first word can count as a name.
 */
export function subjectLength(original: string): number {
  const raw = original.trim().split(/\s+/);
  const words = wordsOf(original);
  const first = words[0];
  if (!first) return 0;
  if (SUBJECT_PRONOUNS.has(first)) return pronounTakesVerb(words) ? 1 : 0;
  const isName = /^\p{Lu}/u.test(raw[0] ?? "") && (!VERBS.has(first) || nounBeforePast(words));
  if (!DETERMINERS.has(first) && !isName) return 0;
  for (let i = 1; i <= 4 && i < words.length; i++) {
    const w = words[i] ?? "";
    if (i > 1 || isName) {
      const at = skipAdverbs(words, i);
      if (isFiniteAt(words, at) && !PHRASE_BREAKERS.has(words[at - 1] ?? "")) return i;
    }
    if (PHRASE_BREAKERS.has(w) || AUXILIARIES.has(w)) return 0;
  }
  return 0;
}
