/**
 * The HF-format text files of the glove-sif-100d folder: tokenizer.json (a
 * `tokenizers` WordLevel model), tokenizer_config.json and config.json.
 */

export const PAD_TOKEN = "[PAD]";
export const UNK_TOKEN = "[UNK]";
/** Ids 0 and 1; vocabulary words start at SPECIAL_TOKENS.length. */
export const SPECIAL_TOKENS = [PAD_TOKEN, UNK_TOKEN] as const;
/**
 * Truncation length in tokens. A lookup model has no position limit; 2048 covers
 * a full 8192-character memory (~1800 tokens) while bounding a padded batch
 * (64 × 2048 × 100 floats = 52 MB) if one long text lands among short ones.
 */
export const MODEL_MAX_LENGTH = 2048;

/** Same character class as the `tokenizers` BertPreTokenizer (Unicode P + ASCII punctuation). */
const PUNCT = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const BERT_PRE_TOKEN = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, "gu");

/**
 * The normalizer, as the `tokenizers` JS runtime applies it. NFKD + StripAccents
 * because the GloVe list here is ASCII-only: "café" must become "cafe" to be found.
 */
export function normalize(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * True if the tokenizer can ever produce `word` as one token: it survives the
 * normalizer unchanged and the pre-tokenizer leaves it whole.
 * GloVe entries like "u.s." or "e-mail" fail this; keeping them would only waste
 * vocabulary slots that no input can reach.
 */
export function isReachable(word: string): boolean {
  if (word.length === 0 || normalize(word) !== word) return false;
  const pieces = word.match(BERT_PRE_TOKEN);
  return pieces !== null && pieces.length === 1 && pieces[0] === word;
}

function addedToken(id: number, content: string) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/**
 * tokenizer.json text. Written by hand rather than JSON.stringify of one object:
 * JS orders integer-like keys ("1", "2000") first, and we want the vocab listed
 * in id order so the file reads naturally and is stable.
 */
export function tokenizerJson(vocab: readonly string[]): string {
  const head = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t, i) => addedToken(i, t)),
    normalizer: {
      type: "Sequence",
      normalizers: [{ type: "NFKD" }, { type: "StripAccents" }, { type: "Lowercase" }],
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: null,
    decoder: null,
  };
  const entries = vocab.map((word, id) => `${JSON.stringify(word)}:${id}`);
  const model = `{"type":"WordLevel","vocab":{${entries.join(",")}},"unk_token":${JSON.stringify(UNK_TOKEN)}}`;
  return `${JSON.stringify(head).slice(0, -1)},"model":${model}}\n`;
}

/** PreTrainedTokenizerFast: the generic class, so no BERT-specific [CLS]/[SEP] or token_type_ids. */
export function tokenizerConfigJson(): string {
  const config = {
    tokenizer_class: "PreTrainedTokenizerFast",
    model_max_length: MODEL_MAX_LENGTH,
    pad_token: PAD_TOKEN,
    unk_token: UNK_TOKEN,
    padding_side: "right",
    clean_up_tokenization_spaces: false,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Build parameters recorded in config.json so a stale cache can be detected. */
export interface BuildInfo {
  build_version: number;
  source: string;
  source_words: number;
  vocab_words: number;
  sif_a: number;
  remove_common_component: boolean;
}

/** model_type "bert" routes feature-extraction to BertModel, which just runs the session. */
export function modelConfigJson(vocabSize: number, hiddenSize: number, build: BuildInfo): string {
  const config = {
    model_type: "bert",
    architectures: ["BertModel"],
    hidden_size: hiddenSize,
    vocab_size: vocabSize,
    max_position_embeddings: MODEL_MAX_LENGTH,
    pad_token_id: 0,
    engram: build,
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
