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

/**
 * Documents one wink instance reads before it is replaced. wink adds every word its lexicon lacks
 * (ids, numbers, names, typos) to the instance's own lexicon for good: a long-running process grew
 * by ~200 B per text of ids and numbers read, without bound. A fresh instance costs ~180 ms (the
 * packed model is unpacked again), so at this count the replacement costs a few µs per text and
 * what one instance can add stays in the tens of MB even for text made of unknown words.
 */
export const DOCS_PER_INSTANCE = 50_000;

type Wink = { readDoc: WinkMethods["readDoc"]; its: ItsHelpers };

/** Reads English with wink-nlp, a fresh wink instance every `docsPerInstance` documents. */
export class EnglishReader {
  private wink: Wink | null = null;
  private docs = 0;
  /** wink instances made so far */
  instances = 0;

  constructor(private readonly docsPerInstance = DOCS_PER_INSTANCE) {}

  /**
   * The model is ~0.4 s to import and instantiate and tens of MB in memory, so it is loaded on the
   * first call, not at import: processes and tests that never analyse text never pay for it.
   * `require` keeps the first call synchronous (the callers sit inside synchronous comparisons).
   */
  load(): Wink {
    if (!this.wink || this.docs >= this.docsPerInstance) {
      const winkNLP = commonJs<typeof import("wink-nlp").default>(require("wink-nlp"));
      const model = commonJs<typeof import("wink-eng-lite-web-model").default>(require("wink-eng-lite-web-model"));
      const instance = winkNLP(model, PIPE);
      this.wink = { readDoc: instance.readDoc.bind(instance), its: instance.its };
      this.docs = 0;
      this.instances++;
    }
    return this.wink;
  }

  /**
   * The tokens of `text` with their POS tag, lemma and stem. Accents are removed first, as for the
   * content hash, so "café" and "cafe" read the same.
   */
  tokens(text: string): WordToken[] {
    const { readDoc, its } = this.load();
    this.docs++;
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
}

/** This thread's reader. */
export const englishReader = new EnglishReader();

/** Both packages are CommonJS: `require` gives module.exports itself, the typings describe it as a default export. */
function commonJs<T>(exports: { default?: T } | T): T {
  return ((exports as { default?: T }).default ?? exports) as T;
}

/** Loads the model now (at start-up, say) so that the first store does not pay for it. */
export function loadEnglishModel(): void {
  englishReader.load();
}

/** The tokens of `text` (EnglishReader.tokens), read by this thread's reader. */
export function englishTokens(text: string): WordToken[] {
  return englishReader.tokens(text);
}
