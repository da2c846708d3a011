import { expandContractions } from "./offline/rewrite.ts";
import { isFiniteAt, skipAdverbs } from "./offline/grammar.ts";
import {
  PROJECT_SUBJECTS,
  STOPWORDS,
  VALUE_CATEGORIES,
  VALUE_VERBS,
  lemma,
  verbLemma,
} from "./offline/lexicon.ts";

/**
 * Facets of a fact derived from its text alone, so they can be computed for
 * stored memories too (which keep only content):
 *   subject   — who/what the fact is about: "user", "team", "project", else the
 *               subject noun phrase ("billing service", "ci", "dana").
 *   attribute — what property it sets, when it sets one:
 *               1. possessive + copula: "User's name is Ana" → "name";
 *               2. a value verb (use/prefer/switch/choose/run on/…) followed by a
 *                  known term: "uses Vim" → "editor", "Postgres" → "database"
 *                  (only for categories that hold one value at a time, or for
 *                  "prefer"/"written in");
 *               3. "lives in"/"moved to" → "location", "works at/for" → "employer";
 *               4. a non-person noun phrase with "is"/"changed to":
 *                  "The launch deadline is June 14" → "launch deadline".
 *               Otherwise null: liking cats does not set a value that liking
 *               dogs would replace.
 */

const DETERMINERS = /^(?:the|a|an|this|that|our|my|your|its|their)\s+/;

/** Lower-cased words aligned with whitespace tokens ("" for pure punctuation). */
function tokens(text: string): string[] {
  return expandContractions(text)
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}.#]+|[^\p{L}\p{N}+#]+$/gu, ""));
}

/** Words before the first finite verb: "The billing service runs…" → "the billing service". */
export function subjectPhrase(content: string): string {
  const words = tokens(content);
  for (let i = 1; i < words.length; i++) {
    if (isFiniteAt(words, i)) return words.slice(0, i).filter(Boolean).join(" ");
  }
  return "";
}

function normalizeSubject(phrase: string): string {
  const words = phrase.split(" ");
  if (words.some((w) => w === "user" || w === "user's")) return "user";
  if (words.some((w) => w === "team" || w === "team's")) return "team";
  const owner = /^(.+?)'s\b/.exec(phrase)?.[1] ?? phrase;
  const np = owner.replace(DETERMINERS, "").split(" ").filter((w) => !STOPWORDS.has(w)).slice(-3);
  if (np.length === 0) return "unknown";
  return PROJECT_SUBJECTS.has(np.at(-1) ?? "") ? "project" : np.join(" ");
}

export function subjectOf(content: string): string {
  return normalizeSubject(subjectPhrase(stripMarkers(content)));
}

/** Drop correction markers so "Actually, the deadline…" has the deadline as subject. */
function stripMarkers(content: string): string {
  return content.replace(/^(?:actually|correction|update|in fact)\b[\s,:]*/i, "");
}

const POSSESSIVE_COPULA =
  /\b(?:user|team|[\p{L}\p{N}.-]+)'s\s+(.+?)\s+(?:is|are|was|were|has been|have been|changed to|moved to|will be)\b/u;

function cleanAttribute(phrase: string): string | null {
  const words = phrase.split(/\s+/).filter((w) => w && !STOPWORDS.has(w));
  return words.length ? words.slice(0, 4).join(" ") : null;
}

/** First category term after position `from` ("vs code" needs two words). */
function categoryAfter(words: string[], from: number, anyCategory: boolean): string | null {
  const rest = ` ${words.slice(from).join(" ")} `;
  let best: { at: number; attribute: string } | null = null;
  for (const cat of VALUE_CATEGORIES) {
    for (const term of cat.terms) {
      const at = rest.indexOf(` ${term} `);
      if (at < 0 || (best && best.at <= at)) continue;
      if (cat.exclusive || anyCategory) best = { at, attribute: cat.attribute };
    }
  }
  return best?.attribute ?? null;
}

/** Attribute via a value verb followed by a known term (rule 2). */
function categoryAttribute(words: string[], text: string): string | null {
  for (let i = 1; i < words.length; i++) {
    const verb = verbLemma(words[i] ?? "");
    if (!verb || !VALUE_VERBS.has(verb)) continue;
    const loose = verb === "prefer" || /\bwritten in\b/.test(text) || /\bfavou?rite\b/.test(text);
    const found = categoryAfter(words, i + 1, loose);
    if (found) return found;
  }
  return null;
}

export function attributeOf(content: string): string | null {
  const text = expandContractions(stripMarkers(content)).toLowerCase();
  const words = tokens(text).filter(Boolean);
  const possessive = POSSESSIVE_COPULA.exec(text);
  if (possessive?.[1]) return cleanAttribute(possessive[1]);
  const category = categoryAttribute(words, text);
  if (category) return category;
  if (/\b(?:lives|lived|living|live|moved|relocated) (?:in|to)\b/.test(text)) return "location";
  if (/\bworks? (?:at|for)\b/.test(text)) return "employer";
  return nounPhraseAttribute(text);
}

/** Rule 4: "The launch deadline is June 14" → "launch deadline" (not for people or the project itself). */
function nounPhraseAttribute(text: string): string | null {
  const phrase = subjectPhrase(text);
  const subject = normalizeSubject(phrase);
  if (!phrase || ["user", "team", "project", "unknown"].includes(subject)) return null;
  const words = tokens(text);
  const verbAt = phrase.split(" ").length;
  const verb = words[skipAdverbs(words, verbAt)] ?? "";
  return /^(?:is|are|was|were|changed|moved)$/.test(verb) ? subject : null;
}

/** Content words, lemmatised, without stopwords — the basis for comparing facts. */
export function contentTokens(content: string): string[] {
  return tokens(content)
    .filter((w) => w && !STOPWORDS.has(w))
    .map((w) => lemma(w.replace(/'s$/, "")));
}

const NEGATION_PATTERN = /\b(?:not|no longer|never|stopped|quit|anymore|cannot)\b/;

/** True for statements that deny or end something ("no longer uses Vim", "does not like Java"). */
export function isNegated(content: string): boolean {
  const text = expandContractions(content).toLowerCase().replace(/,\s*not\b[^,]*$/, "");
  return NEGATION_PATTERN.test(text);
}
