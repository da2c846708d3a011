/**
 * A memo of a Unigram tokenizer's pieces per word. transformers.js hands the whole normalized text
 * (every space already ▁) to one Viterbi lattice, with an object per candidate piece. When no piece
 * of the vocabulary holds ▁ past its first character (USE-lite's do not), no piece crosses a word
 * boundary, so the best segmentation of the text is the best segmentation of each word in turn: the
 * words are segmented apart and remembered, and common words are then looked up instead of
 * segmented. The ids are the same (test/use-model.test.ts checks them against the plain tokenizer).
 */

import { ownCopy } from "../domain/text";

const SEPARATOR = "\u2581";
/** Words remembered at most; the memo starts over past this (~100 bytes a word). */
export const MAX_WORDS = 20_000;

interface UnigramModel {
  vocab: string[];
  tokenize(normalized: string): string[];
}

/**
 * Memoizes the tokenizer's Unigram model per word (the library keeps the model in an internal
 * field) when its pieces allow it; any other tokenizer is left as it is. Returns whether it did.
 */
export function memoizeWordPieces(tokenizer: unknown): boolean {
  const model = (tokenizer as { _tokenizer?: { model?: unknown } })._tokenizer?.model as Partial<UnigramModel> | undefined;
  if (!model || model.constructor?.name !== "Unigram" || typeof model.tokenize !== "function" || !Array.isArray(model.vocab)) return false;
  if (model.vocab.some((piece) => typeof piece !== "string" || piece.indexOf(SEPARATOR, 1) !== -1)) return false;
  const segment = model.tokenize.bind(model);
  const memo = new Map<string, string[]>();
  const word = (w: string): string[] => {
    let pieces = memo.get(w);
    if (pieces === undefined) {
      if (memo.size >= MAX_WORDS) memo.clear();
      pieces = segment(w).map(ownCopy);
      memo.set(ownCopy(w), pieces);
    }
    return pieces;
  };
  model.tokenize = (normalized: string) => {
    const pieces: string[] = [];
    let start = 0;
    for (let at = normalized.indexOf(SEPARATOR, 1); at !== -1; at = normalized.indexOf(SEPARATOR, at + 1)) {
      pieces.push(...word(normalized.slice(start, at)));
      start = at;
    }
    if (start < normalized.length) pieces.push(...word(normalized.slice(start)));
    return pieces;
  };
  return true;
}
