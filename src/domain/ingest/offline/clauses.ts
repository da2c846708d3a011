import { firstFiniteIndex, isFiniteAt, subjectLength, wordsOf } from "./grammar.ts";
import { ENDING_VERBS, VERBS, isEndingVerb, verbLemma } from "./lexicon.ts";

/**
 * Sentence → atomic clauses. Only splits where both halves stand alone:
 *  - ";" between two clauses;
 *  - ", and" / " and" / ", but" / " but" when the right side opens with its own
 *    subject ("I use Bun and I prefer tabs") or with a verb whose subject can be
 *    borrowed from the left ("The service runs on Node and talks to Stripe" →
 *    "The service talks to Stripe");
 *  - a comma splice before "I"/"we" ("I no longer use Vim, I switched to Helix");
 *  - ", so": the left side is kept; the right only if it is a clause itself
 *    ("I'm vegetarian, so no meat recipes please" keeps just the first part).
 * Never splits lists ("Airflow and dbt"), "but now/instead/then" (the contrast
 * is the fact), or a comma after a subordinate opener ("When I code, I…").
 */

const JOINERS = /(?:,\s*|\s+)(?:and|but)\s+|,\s*so\s+|,\s+(?=(?:i|we)\s)/gi;
const SUBORDINATE_OPENERS = /^(?:when|whenever|if|because|since|although|though|while|as|after|before|unless|once|whereas)\b/i;
const KEEP_CONTRAST = /^(?:now|instead|then|still)\b/i;

export function splitClauses(sentence: string): string[] {
  return sentence
    .split(/\s*;\s*/)
    .flatMap(splitJoined)
    .map((c) => c.trim())
    .filter(Boolean);
}

function splitJoined(part: string): string[] {
  for (const m of part.matchAll(JOINERS)) {
    const left = part.slice(0, m.index).trim();
    const right = part.slice(m.index + m[0].length).trim();
    const joiner = m[0].trim().replace(/^,\s*/, "").toLowerCase();
    const split = trySplit(left, right, joiner);
    if (split) return [split[0], ...splitJoined(split[1])].filter(Boolean);
  }
  return [part];
}

/** [left, right] when splitting here is safe, else null. "" as right means "drop it". */
function trySplit(left: string, right: string, joiner: string): [string, string] | null {
  if (!left || !right || !isClauseLike(left)) return null;
  const rightHasSubject = subjectLength(right) > 0;
  if (joiner === "and" && endsSomething(left, rightHasSubject)) return null;
  if (joiner === "so") return [left, rightHasSubject ? right : ""];
  if (joiner === "" && SUBORDINATE_OPENERS.test(left)) return null; // comma splice after "When I…"
  if (joiner === "but" && KEEP_CONTRAST.test(right)) return null;
  if (rightHasSubject) return [left, right];
  const subject = borrowSubject(left, right);
  return subject && opensWithVerb(right) ? [left, `${subject} ${right}`] : null;
}

/**
 * "I sold my Corolla and bought a Tesla", "Priya left and Sam is our new manager": what ended and
 * what replaced it are one fact (a change), kept together so that the new value is seen replacing
 * the old. Without a subject of its own the right half continues the ending clause; with one, the
 * left half is only a subject and its ending verb.
 */
function endsSomething(left: string, rightHasSubject: boolean): boolean {
  const words = wordsOf(left);
  const at = firstFiniteIndex(words);
  const lemma = at >= 0 ? verbLemma(words[at] ?? "") : null;
  if (!lemma) return false;
  const phrasal = isEndingVerb(`${lemma} ${words[at + 1] ?? ""}`) && !ENDING_VERBS.has(lemma);
  if (!phrasal && !ENDING_VERBS.has(lemma)) return false;
  return !rightHasSubject || words.length === at + (phrasal ? 2 : 1);
}

/** A left half worth cutting off: it has a subject, or is an imperative ("Keep answers short, I…", "Please don't…"). */
function isClauseLike(left: string): boolean {
  if (subjectLength(left) > 0) return true;
  const words = wordsOf(left);
  let i = 0;
  while (IMPERATIVE_OPENERS.has(words[i] ?? "")) i++;
  return VERBS.has(words[i] ?? "");
}

const IMPERATIVE_OPENERS = new Set(["please", "just", "always", "never", "do", "not", "don't"]);
const AUX = new Set(["am", "is", "are", "was", "were", "will", "have", "has", "had"]);

/** "talks to Stripe" / "revisiting X": a verb first and something after it. */
function opensWithVerb(right: string): boolean {
  const words = wordsOf(right);
  if (words.length < 2) return false;
  // Any "-ing" word will do: borrowSubject only accepts it after "is/are/was … -ing".
  return /.{3}ing$/.test(words[0] ?? "") || isFiniteAt(["it", ...words], 1);
}

/**
 * The left clause's subject, plus its auxiliary when the right half continues
 * a progressive/perfect ("we are keeping X and revisiting Y" → "we are revisiting Y").
 */
function borrowSubject(left: string, right: string): string {
  const raw = left.split(/\s+/);
  const n = subjectLength(left);
  if (n === 0) return "";
  const aux = raw[n]?.toLowerCase() ?? "";
  const wantsAux = /ing$/.test(wordsOf(right)[0] ?? "");
  if (wantsAux && !AUX.has(aux)) return "";
  return raw.slice(0, wantsAux ? n + 1 : n).join(" ");
}
