import { createHash } from "node:crypto";
import stemWord from "wink-porter2-stemmer";

/** Lower-cased, accent-free, whitespace-collapsed: two contents with the same normal form are the same memory. */
export function normalizeText(text: string): string {
  return foldText(text).replace(/\s+/g, " ").trim();
}

/** Case and accents folded (normalizeText without its whitespace steps). */
function foldText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * Hash of the content's words: case, accents, spacing and punctuation do not make a memory new.
 * A content with no words at all (emoji, symbols) hashes its normalized text instead, or every
 * such memory would be "the same" as every other.
 */
export function contentHash(text: string): string {
  const w = words(text);
  return createHash("sha256").update(w.length > 0 ? w.join(" ") : normalizeText(text)).digest("hex");
}

/**
 * Words as the FTS tokenizers see them (unicode letters and digits), of the folded text (the
 * whitespace steps of normalizeText move no word boundary: two copies of the text fewer for every
 * content indexed and every query).
 */
export function words(text: string): string[] {
  return foldText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A word's Porter2 stem ("prefers", "preferred" → "prefer"), so a query finds a memory that says
 * the same word in another inflection. Words with a digit (versions, ids, amounts) stay as they are.
 * Memoized: a store's vocabulary is small next to its token count. Words with a digit are not: most
 * are new with every memory (counters, ids, dates), so the memo grew with the memories stored.
 */
const stems = new Map<string, string>();
const MAX_MEMOIZED_STEMS = 200_000;
export function stem(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (hasDigit(word)) return word;
    const own = ownCopy(word);
    s = stemWord(own);
    if (stems.size >= MAX_MEMOIZED_STEMS) stems.clear();
    stems.set(own, s);
  }
  return s;
}

/** Does the word have a digit (so stem() leaves it as it is, unmemoized)? */
export function hasDigit(word: string): boolean {
  return /\p{N}/u.test(word);
}

/**
 * The string in memory of its own. A word cut out of a text (words()) is a view of the whole
 * folded text, which anything keeping the word keeps too: a word with a digit held in a wallet's
 * keyword index kept ~370 bytes of its memory's text; the tokenizer's word memo keeps words too.
 */
export function ownCopy(s: string): string {
  return Array.from(s).join("");
}

/**
 * The tokens a full-text engine indexes for a content: its words, stemmed, in order and with
 * repeats (term frequency counts). Every engine indexes exactly these, so BM25 sees the same
 * tokens on each; query terms (below) are stemmed the same way.
 */
export function indexTerms(text: string): string[] {
  return words(text).map(stem);
}

const STOPWORDS = new Set(
  ("a an and are as at be but by did do does for from had has have how i if in into is it its me my of on or our so than that the " +
    "their them then there these they this to was we were what when where which who whom why will with you your").split(" "),
);

/**
 * The distinct stemmed words of a query worth matching. Stopwords and single letters are dropped so
 * "what is the user's…" does not match every memory, unless the query has nothing else.
 */
export function queryTerms(query: string): string[] {
  const all = words(query);
  // Single letters ("s" of "user's", "t" of "don't") match nearly everything; digits carry meaning.
  const terms = distinctStems(all, (w) => !STOPWORDS.has(w) && (w.length > 1 || hasDigit(w)));
  return terms.length > 0 ? terms : distinctStems(all, () => true);
}

/** The distinct stems of the words `keep` takes, in order of first occurrence (one pass, one Set: recall runs it per query). */
function distinctStems(list: string[], keep: (word: string) => boolean): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const word of list) {
    if (!keep(word)) continue;
    const s = stem(word);
    if (seen.has(s)) continue;
    seen.add(s);
    out.push(s);
  }
  return out;
}

/**
 * Token estimate for budgets: ~4 characters per token (the usual figure for English with
 * BPE tokenizers), rounded up so the estimate errs towards staying under budget.
 */
export function estimateTokens(text: string): number {
  return tokensForChars(text.length);
}

export const tokensForChars = (chars: number) => Math.ceil(chars / 4);

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
