/**
 * A memo of a Unigram tokenizer's pieces per word. transformers.js cuts the text into words
 * (Metaspace pre-tokenizer) and runs a fresh Viterbi lattice for each, with an object per candidate
 * piece: about 0.25 ms per RealMem question (~77 pieces), a tenth of its embedding, most of it on
 * words seen before. The pieces of a word depend on the word alone, so the memo changes nothing in
 * the output.
 */

/** Words remembered at most; the memo starts over past this (a few MB of short strings). */
export const MAX_WORDS = 50_000;

interface WordTokenizer {
  tokenize(word: string): string[];
}

/**
 * Memoizes `tokenize` on the tokenizer's Unigram model when it has one (the library keeps the
 * model in an internal field); any other tokenizer is left as it is. Returns whether it did.
 */
export function memoizeWordPieces(tokenizer: unknown): boolean {
  const model = (tokenizer as { _tokenizer?: { model?: unknown } })._tokenizer?.model as Partial<WordTokenizer> | undefined;
  if (!model || model.constructor?.name !== "Unigram" || typeof model.tokenize !== "function") return false;
  const tokenize = model.tokenize.bind(model);
  const memo = new Map<string, string[]>();
  model.tokenize = (word: string) => {
    let pieces = memo.get(word);
    if (pieces === undefined) {
      if (memo.size >= MAX_WORDS) memo.clear();
      pieces = tokenize(word);
      memo.set(word, pieces);
    }
    return pieces;
  };
  return true;
}
