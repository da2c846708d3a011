import type { ItsFunction, ItsHelpers, PartOfSpeech, WinkMethods } from "wink-nlp";

/** One word (or symbol, number, punctuation mark) of an English text, as wink-nlp reads it. */
export interface WordToken {
  /** lower-cased surface form ("prefers", "n't", "c", "+") */
  normal: string;
  /** dictionary form ("prefer", "not"); the surface form where the model has none (most proper nouns) */
  lemma: string;
  /** Porter2 stem of the surface form */
  stem: string;
  /** Universal POS tag (NOUN, PROPN, VERB, AUX, DET, …) */
  pos: PartOfSpeech;
  /** wink's token type: word, number, punctuation, symbol, currency, email, url, emoji, tabCRLF, … */
  type: string;
}

/**
 * Only what the tokens need: sentence boundaries, then POS tags (lemmas depend on them).
 * The default pipe also runs negation, sentiment and named-entity recognition, which the
 * callers do not use and which cost time on the store path.
 */
const PIPE = ["sbd", "pos"];

let nlp: { readDoc: WinkMethods["readDoc"]; its: ItsHelpers } | null = null;

/**
 * The model is ~0.4 s to import and instantiate and tens of MB in memory, so it is loaded on the
 * first call, not at import: processes and tests that never analyse text never pay for it.
 * `require` keeps the first call synchronous (the callers sit inside synchronous comparisons).
 */
function reader(): NonNullable<typeof nlp> {
  if (!nlp) {
    const winkNLP = commonJs<typeof import("wink-nlp").default>(require("wink-nlp"));
    const model = commonJs<typeof import("wink-eng-lite-web-model").default>(require("wink-eng-lite-web-model"));
    const instance = winkNLP(model, PIPE);
    nlp = { readDoc: instance.readDoc.bind(instance), its: instance.its };
  }
  return nlp;
}

/** Both packages are CommonJS: `require` gives module.exports itself, the typings describe it as a default export. */
function commonJs<T>(exports: { default?: T } | T): T {
  return ((exports as { default?: T }).default ?? exports) as T;
}

/** Loads the model now (at start-up, say) so that the first store does not pay for it. */
export function loadEnglishModel(): void {
  reader();
}

/**
 * The tokens of `text` with their POS tag, lemma and stem. Accents are removed first, as for the
 * content hash, so "café" and "cafe" read the same.
 */
export function englishTokens(text: string): WordToken[] {
  const { readDoc, its } = reader();
  const tokens = readDoc(text.normalize("NFKD").replace(/\p{M}/gu, "")).tokens();
  // lemma and stem take the model's addons as a third argument, which the typings do not line up with `out`.
  const out = <T>(f: unknown) => tokens.out(f as ItsFunction<T>) as T[];
  const normal = out<string>(its.normal);
  const lemma = out<string>(its.lemma);
  const pos = out<PartOfSpeech>(its.pos);
  const type = out<string>(its.type);
  // The stem is read for a few tokens only (fact-signature.ts: plural nouns the model left
  // unlemmatised), and Porter2 on every token was a tenth of a store's signature time: on demand.
  const stemAt = (i: number) => tokens.itemAt(i).out(its.stem as ItsFunction<string>) as string;
  return normal.map((n, i) => ({
    normal: n,
    lemma: lemma[i]!,
    pos: pos[i]!,
    type: type[i]!,
    get stem() {
      return stemAt(i);
    },
  }));
}
