import { createHash } from "node:crypto";

/** Lower-cased, accent-free, whitespace-collapsed: two contents with the same normal form are the same memory. */
export function normalizeText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();
}

/** Hash of the content's words: case, accents, spacing and punctuation do not make a memory new. */
export function contentHash(text: string): string {
  return createHash("sha256").update(words(text).join(" ")).digest("hex");
}

/** Words as the FTS tokenizers see them (unicode letters and digits). */
export function words(text: string): string[] {
  return normalizeText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

const STOPWORDS = new Set(
  ("a an and are as at be but by did do does for from had has have how i if in into is it its me my of on or our so than that the " +
    "their them then there these they this to was we were what when where which who whom why will with you your").split(" "),
);

/**
 * The distinct words of a query worth matching. Stopwords are dropped so "what is the…" does not
 * match every memory, unless the query has nothing else.
 */
export function queryTerms(query: string): string[] {
  const all = [...new Set(words(query))];
  const content = all.filter((w) => !STOPWORDS.has(w));
  return content.length > 0 ? content : all;
}

/** Share of the query terms present in a text (0..1). */
export function termCoverage(terms: string[], text: string): number {
  if (terms.length === 0) return 0;
  const present = new Set(words(text));
  return terms.filter((t) => present.has(t)).length / terms.length;
}

/**
 * Token estimate for budgets: ~4 characters per token (the usual figure for English with
 * BPE tokenizers), rounded up so the estimate errs towards staying under budget.
 */
export function estimateTokens(text: string): number {
  return tokensForChars(text.length);
}

export const tokensForChars = (chars: number) => Math.ceil(chars / 4);

export function cosine(a: Float32Array, b: Float32Array): number {
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
