/**
 * Sentence segmentation and chunking for the offline extractor.
 * Chunks always end on a sentence boundary (same rule as segmentation), so a
 * sentence can never be split across two chunks and lose its fact.
 */

/** Abbreviations whose trailing period does not end a sentence. */
const ABBREVIATIONS = new Set([
  "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "st", "approx", "no", "inc", "ltd", "jr", "sr", "cf", "fig",
]);

/**
 * End punctuation (optionally followed by closing quotes/brackets) then whitespace.
 * The lookbehind starts matches only at the start of a punctuation run, keeping
 * the scan linear on inputs like "......".
 */
const BOUNDARY = /(?<![.!?])[.!?]+["'”’)\]]*(?=\s)/g;

/** True when the period at `end` (exclusive) belongs to an abbreviation or an initial ("J."). */
function isAbbreviation(text: string, end: number): boolean {
  if (text[end - 1] !== ".") return false;
  const before = /([\p{L}.]+)\.$/u.exec(text.slice(Math.max(0, end - 12), end));
  if (!before?.[1]) return false;
  const word = before[1].toLowerCase();
  return ABBREVIATIONS.has(word) || /^\p{Lu}$/u.test(before[1]);
}

/** Offsets just after each sentence end inside one line of prose. */
function boundaries(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(BOUNDARY)) {
    const end = m.index + m[0].length;
    if (!isAbbreviation(text, end)) out.push(end);
  }
  return out;
}

const BULLET = /^\s*(?:[-*•+]|\d{1,3}[.)])\s+/;

/**
 * Lines → prose blocks. Every line starts a new block except a hard-wrapped
 * continuation (previous line unterminated, this one starts lower-case);
 * bullets and lines ending with ":" always stand alone.
 */
function blocks(text: string): string[] {
  const out: string[] = [];
  let current = "";
  const flush = () => {
    if (current.trim()) out.push(current.trim());
    current = "";
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) {
      flush();
      continue;
    }
    const bullet = BULLET.test(line);
    const continues = !bullet && current !== "" && /^\p{Ll}/u.test(line) && !/[:.!?]$/.test(current);
    if (!continues) flush();
    current = current ? `${current} ${line}` : line.replace(BULLET, "");
    if (bullet || line.endsWith(":")) flush();
  }
  flush();
  return out;
}

/** Split text into trimmed sentences (bullets and colon-introduced lines are their own sentences). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of blocks(text)) {
    let start = 0;
    for (const end of boundaries(block)) {
      out.push(block.slice(start, end).trim());
      start = end;
    }
    out.push(block.slice(start).trim());
  }
  return out.filter((s) => s.length > 0);
}

/**
 * Where to cut `text` at or before `max`: the last sentence end (a line break
 * if no sentence ends in the second half of the window), else the last space,
 * else a hard cut (one "sentence" longer than max).
 */
function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max + 1);
  const sentenceEnd = boundaries(window).filter((e) => e <= max).at(-1) ?? -1;
  const best = sentenceEnd >= max / 2 ? sentenceEnd : Math.max(sentenceEnd, window.lastIndexOf("\n"));
  if (best > 0) return best;
  const space = window.lastIndexOf(" ");
  return space > 0 ? space : max;
}

/** Yield chunks of at most `maxChars`, each ending on a sentence boundary where possible. */
export function* chunkText(text: string, maxChars: number): Generator<string> {
  let rest = text;
  while (rest.length > maxChars) {
    const cut = cutPoint(rest, maxChars);
    yield rest.slice(0, cut);
    rest = rest.slice(cut);
  }
  if (rest.trim()) yield rest;
}
