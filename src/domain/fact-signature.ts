import { englishTokens, type WordToken } from "./english";
import { normalizeText } from "./text";

/**
 * Dedup may merge two memories only when they state the same fact. Embedding cosine cannot tell:
 * pooled word vectors score "… about zebras" and "… about giraffes", or "Postgres 15" and
 * "Postgres 16", or "uses Vim" and "does not use Vim", near 1. A wrong merge silently loses a fact
 * while a missed duplicate only costs one extra memory, so this is deliberately strict: two texts
 * state the same fact only when their *fact signatures* — every word that can carry meaning, in
 * order, reduced to a canonical form — are the same.
 *
 * What is dropped or normalised (and so may differ between duplicates):
 * - case, accents, spacing and prose punctuation (. , ! ? ; : quotes, brackets);
 * - the articles a/an/the before a word ("grade A" keeps its letter) and the infinitive marker
 *   "to" ("likes to swim" / "likes swim");
 * - the auxiliaries be and do ("does not use" / "doesn't use" / "not use", "is using" / "uses"),
 *   but in the past (was/were/did) they leave a past marker behind: "was the lead" is not "is the
 *   lead". "have" stays: the model tags possession as an auxiliary too ("has two cats"), and
 *   "User has a dog" is not "User is a dog";
 * - inflection of nouns ("databases" / "database") and of present-tense verbs ("prefers" /
 *   "prefer" / "preferring"); a past-tense or participle verb keeps a past marker ("lived" / "lives");
 * - contractions ("n't" → not, "wo" → will, "ca" → can) and spelled-out numbers ("two" → 2).
 *
 * Everything else stays as it is, because it can carry the fact: nouns and names, numbers, dates,
 * symbols and currencies ("C++" / "C#", "$5" / "€5"), negations (not, never, no, longer), modals
 * (can / must / will), adjectives and adverbs in their own degree ("fast" / "faster"), prepositions
 * ("in Berlin" / "near Berlin"), pronouns, conjunctions, other determiners (all / some / no / this).
 */
export type FactSignature = readonly string[];

/**
 * Punctuation that only structures prose. Other marks stay: the model also reads "-" of "-v",
 * "/" of "A/B" and even a letter before an apostrophe ("U" of "User'd") as punctuation.
 */
const PROSE_PUNCTUATION = new Set([".", ",", "!", "?", ";", ":", "…", "...", '"', "(", ")", "[", "]", "{", "}", "«", "»", "“", "”", "‘", "’"]);

/** Spacing and prose punctuation: never part of a fact. */
function isLayout(t: WordToken): boolean {
  return t.pos === "SPACE" || t.type === "tabCRLF" || t.type === "spaces" || (t.type === "punctuation" && PROSE_PUNCTUATION.has(t.normal));
}

/** Parts of speech an article can stand before; "grade A in math" or "plan A." is a letter, not an article. */
const ARTICLE_HEADS = new Set(["NOUN", "PROPN", "ADJ", "ADV", "NUM", "VERB", "DET", "PRON", "X", "SYM"]);
const ARTICLES = new Set(["a", "an", "the"]);
/** be and do carry tense and agreement, not the fact; modals (can, must, will) and have (possession) do carry it. */
const LIGHT_AUXILIARIES = new Set(["be", "do"]);
const PAST_AUXILIARIES = new Set(["was", "were", "had", "did", "'d"]);
const PAST = "@past";

/** Single-word numbers only: "twenty-five" stays two tokens, so it will not merge with "25" (a missed duplicate, never a wrong merge). */
const NUMBER_WORDS: Record<string, string> = Object.fromEntries(
  ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty")
    .split(" ")
    .map((w, i) => [w, String(i)])
    .concat([["thirty", "30"], ["forty", "40"], ["fifty", "50"], ["sixty", "60"], ["seventy", "70"], ["eighty", "80"], ["ninety", "90"], ["hundred", "100"], ["thousand", "1000"], ["million", "1000000"], ["billion", "1000000000"]]),
);

/**
 * A verb in the present (or a present participle, whose tense sits on its auxiliary) is reduced
 * to its lemma; any other form of it (past, past participle) is not the same fact as the present.
 */
function isPresentForm(t: WordToken): boolean {
  const { normal: n, lemma: l } = t;
  return n === l || n === `${l}s` || n === `${l}es` || n.endsWith("ing") || (l.endsWith("y") && n === `${l.slice(0, -1)}ies`);
}

/**
 * The model leaves unknown and proper nouns unlemmatised ("Tuesdays", "TABS" read as a name), so
 * a plain plural "s" is removed when Porter2 agrees it is only that suffix.
 */
function nounKey(t: WordToken): string {
  if (t.lemma !== t.normal || !t.normal.endsWith("s") || t.normal.endsWith("ss")) return t.lemma;
  return t.stem === t.normal.slice(0, -1) ? t.stem : t.lemma;
}

/** The canonical form of one token in the signature, or null when the token carries no fact. */
function key(t: WordToken, next: WordToken | undefined): string | null {
  if (isLayout(t)) return null;
  switch (t.pos) {
    case "DET":
      return ARTICLES.has(t.normal) && next && ARTICLE_HEADS.has(next.pos) ? null : t.normal;
    case "AUX":
      if (LIGHT_AUXILIARIES.has(t.lemma)) return PAST_AUXILIARIES.has(t.normal) ? PAST : null;
      if (t.lemma === "have") return PAST_AUXILIARIES.has(t.normal) ? `have${PAST}` : "have";
      return t.lemma; // modals, and "wo"/"ca" of won't/can't as will/can
    case "PART":
      return t.normal === "to" ? null : t.lemma; // "n't" → not
    case "NUM":
      return NUMBER_WORDS[t.normal] ?? t.lemma; // lemma: "1,000" → 1000
    case "VERB":
      return isPresentForm(t) ? t.lemma : `${t.lemma}${PAST}`;
    case "NOUN":
    case "PROPN":
      return nounKey(t);
    default:
      // adjectives and adverbs keep their degree ("fast" / "faster"); the rest is the word itself
      return t.normal;
  }
}

/**
 * Recently used texts, least recently used first: a batch compares each item with every other, and
 * a store re-reads its neighbours. Least recently *used*, not first read: the signatures a batch's
 * checks will compare, read ahead (Memories.readFacts), must outlast the new ones kept meanwhile.
 */
const CACHE_SIZE = 4096;
const cache = new Map<string, FactSignature>();

function cached(text: string): FactSignature | undefined {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
  }
  return hit;
}

export function factSignature(text: string): FactSignature {
  const hit = cached(text);
  if (hit) return hit;
  const tokens = englishTokens(text);
  const signature = tokens.flatMap((t, i) => key(t, tokens[i + 1]) ?? []);
  rememberFactSignature(text, signature);
  return signature;
}

/** Is the text's signature at hand (no tokenizing needed)? */
export function knowsFactSignature(text: string): boolean {
  return cached(text) !== undefined;
}

/** Keeps a signature read elsewhere (a FactReader: the fact thread, src/embed/fact-thread.ts), as factSignature would have. */
export function rememberFactSignature(text: string, signature: FactSignature): void {
  if (cache.has(text)) return;
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(text, signature);
}

/** Smallest phrase that may move as a whole; a single word moving is what swaps roles ("tabs over spaces" / "spaces over tabs"). */
const MIN_MOVED_PHRASE = 2;

/**
 * Same fact signature, word for word, in the same order, or with one phrase of at least two
 * signature words moved from the end to the front ("In the editor, the user prefers dark mode" /
 * "The user prefers dark mode in the editor"): moving a phrase keeps who does what, moving single
 * words ("Alice manages Bob" / "Bob manages Alice", "tabs over spaces" / "spaces over tabs",
 * "the editor in dark mode" / "dark mode in the editor") does not.
 */
export function sameFacts(a: string, b: string): boolean {
  const sa = factSignature(a);
  const sb = factSignature(b);
  // No word at all (only punctuation, say): nothing to compare but the text itself.
  if (sa.length === 0 || sb.length === 0) return sa.length === sb.length && normalizeText(a) === normalizeText(b);
  if (sa.length !== sb.length) return false;
  const n = sa.length;
  for (let cut = 0; cut <= n - MIN_MOVED_PHRASE; cut = cut === 0 ? MIN_MOVED_PHRASE : cut + 1) {
    if (sa.every((word, i) => word === sb[(i + n - cut) % n])) return true;
  }
  return false;
}

/** Prose punctuation as characters, for the surface key below (which does not tokenise). */
const PROSE_MARKS = String.raw`.,!?;:…"()\[\]{}«»“”‘’`;
/** A run of prose marks not inside a word: "Tuesdays!" and "(note)" lose theirs, "Node.js", "3.5" and "2,000" keep theirs. */
const LOOSE_MARKS = new RegExp(String.raw`(?<![\p{L}\p{N}])[${PROSE_MARKS}]+|[${PROSE_MARKS}]+(?![\p{L}\p{N}])`, "gu");

/**
 * The text as written, lower-cased, without accents, spacing or prose punctuation, but with every
 * symbol: the key of exact duplicates. The content hash reads words as runs of letters and digits,
 * so it makes "C++" and "C#", or "$5" and "€5", the same; this does not. A text with nothing left
 * (only punctuation) is its own normal form, so "???" and "!!!" stay apart. No tokeniser, so it is
 * cheap enough for every extracted fact.
 */
export function surfaceKey(text: string): string {
  const normal = normalizeText(text.replace(/[‘’]/g, "'"));
  const key = normal.replace(LOOSE_MARKS, " ").replace(/\s+/g, " ").trim();
  return key === "" ? `\u0000${normal}` : key;
}

export function sameSurface(a: string, b: string): boolean {
  return a === b || surfaceKey(a) === surfaceKey(b);
}
