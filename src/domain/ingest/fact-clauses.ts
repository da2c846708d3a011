import { englishTokens } from "../english.ts";
import { CHANGE_VERBS, verbLemma } from "./offline/lexicon.ts";
import { isFiniteAt } from "./offline/grammar.ts";

/**
 * A stored fact ("User's new number is +49 170 555 0142", "Priya left and Sam is the team's new
 * manager") read as clauses of subject + verb group + complement, with wink-nlp's part-of-speech
 * tags and lemmas, so that facets.ts can tell what the fact sets and what it replaces without a
 * word list for every verb form.
 *
 * Values that the tagger would cut into pieces (e-mail addresses, URLs, phone numbers, dotted
 * names such as "Fly.io", "C++") are read as one token each, tagged PROPN, with a `shape`.
 */

export type Shape = "email" | "phone" | "name";

export interface Token {
  /** lower-cased surface form; a shaped value's normal key (a phone number's digits) */
  w: string;
  /** verbs: wink's lemma ("went" → "go"); other words: the surface form */
  lemma: string;
  pos: string;
  shape?: Shape;
}

export interface Clause {
  subject: Token[];
  /** auxiliaries, adverbs and negation before and around the main verb, the main verb last */
  verbs: Token[];
  /** lemma of the main verb ("be" for a bare copula), with its particle: "go up", "take over" */
  verb: string;
  /** "be" + participle: "was moved", "is called" */
  passive: boolean;
  /** everything after the verb group */
  rest: Token[];
  /** the clause has no subject of its own and took the one before ("… and buy a Tesla") */
  borrowed?: boolean;
}

const SHAPES: [RegExp, Shape, (m: string) => string | null][] = [
  [/\bhttps?:\/\/\S+[^\s.,;!?)]/g, "name", (m) => m.toLowerCase()],
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "email", (m) => m.toLowerCase()],
  [/(?<![\w.,])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,5}(?:[\s.-]\d{2,5}){0,4}(?![\w,]|\.\d)/g, "phone", phoneKey],
  [/\b[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)+\b/g, "name", (m) => m.toLowerCase()],
  [/\b[A-Za-z]+(?:\+\+|#)(?!\w)/g, "name", (m) => m.toLowerCase()],
];

/** Digits of a phone number; null for what only looks like one (a short number, an ISO date). */
function phoneKey(m: string): string | null {
  const digits = m.replace(/\D/g, "");
  if (digits.length < 7 || /^\d{4}-\d{2}-\d{2}$/.test(m.trim())) return null;
  return digits;
}

/** A pseudo-name the tagger reads as a proper noun: "Qxa", "Qxb", … */
const placeholder = (i: number) => `Qx${String.fromCharCode(97 + (i % 26)).repeat(1 + Math.floor(i / 26))}`;

/** Replace shaped values by placeholders; returns the text and what each placeholder stands for. */
function protect(text: string): { text: string; values: Map<string, { key: string; shape: Shape }> } {
  const values = new Map<string, { key: string; shape: Shape }>();
  let out = text;
  for (const [re, shape, keyOf] of SHAPES) {
    out = out.replace(re, (m) => {
      const key = keyOf(m);
      if (key === null) return m;
      const name = placeholder(values.size);
      values.set(name.toLowerCase(), { key, shape });
      return name;
    });
  }
  return { text: out, values };
}

export function tokensOf(text: string): Token[] {
  const { text: prepared, values } = protect(text);
  return englishTokens(prepared)
    .filter((t) => t.pos !== "SPACE" && t.type !== "spaces" && t.type !== "tabCRLF")
    .map((t) => {
      const value = values.get(t.normal);
      if (value) return { w: value.key, lemma: value.key, pos: "PROPN", shape: value.shape };
      const verbal = t.pos === "VERB" || t.pos === "AUX";
      return { w: t.normal, lemma: verbal ? t.lemma : t.normal, pos: t.pos === "PART" && t.normal === "to" ? "ADP" : t.pos };
    })
    .map((t, i, all) => (t.w === "to" && isInfinitive(all[i + 1], prepared) ? { ...t, pos: "PART" } : t)); // "to" before a value, not "to use"
}

/** A bare verb after "to", not a capitalised name: "to use Vim", not "promoted to Lead Designer". */
function isInfinitive(next: Token | undefined, text: string): boolean {
  if (next?.pos !== "VERB" || next.w !== next.lemma) return false;
  const capitalised = next.w.charAt(0).toUpperCase() + next.w.slice(1);
  return !new RegExp(`\\bto ${capitalised.replace(/[^\p{L}]/gu, "")}\\b`, "u").test(text);
}

const ASPECT_VERBS = new Set(["start", "begin", "keep", "continue"]);
const PARTICLES = new Set(["up", "down", "over", "out", "off", "away", "back"]);
const NEGATION_WORDS = new Set(["not", "n't", "never", "no", "longer"]);
const isVerbal = (t: Token | undefined) => t !== undefined && (t.pos === "VERB" || t.pos === "AUX");
const ENTITY_WORDS = new Set(["user", "team"]);
const PERSONAL_PRONOUNS = new Set(["he", "she"]);

/**
 * Where the verb group starts: the first verb or auxiliary after a subject. The tagger often
 * reads a third-person verb after a noun as a plural noun ("User banks with N26", "The team stores
 * uploads…"), so the offline extractor's word-list grammar has a say too; a "verb" followed by an
 * auxiliary is a noun of the subject ("The design lead is Marta").
 */
function verbStart(tokens: Token[]): number {
  const words = tokens.map((t) => t.w);
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.pos === "PUNCT" || t.pos === "CCONJ") return -1;
    // a possessed noun ("User's work email"), or a noun before the auxiliary ("The design lead is"),
    // but not a verb before a gerund ("User's partner quit being a lawyer")
    const next = tokens[i + 1];
    const gerund = next !== undefined && next.w.endsWith("ing");
    if (tokens[i - 1]!.w === "'s" || (next?.pos === "AUX" && !gerund && t.pos !== "AUX" && t.pos !== "ADV")) continue;
    // a bare base form between a noun and a verb is a noun too: "The launch date slid…"; so is a plural
    // before a verb agreeing with it: "The team's unit tests run…" (not "The team stores uploads")
    const base = t.pos === "VERB" ? t.w === t.lemma : verbLemma(t.w) === t.w;
    if (base && t.pos !== "AUX" && isVerbal(next) && !gerund && ["NOUN", "ADJ"].includes(tokens[i - 1]!.pos)) continue;
    const agreeing = next?.pos === "VERB" && next.w === next.lemma && verbLemma(next.w) !== null;
    if (/[^s]s$/.test(t.w) && agreeing && ["NOUN", "ADJ", "PROPN"].includes(tokens[i - 1]!.pos)) continue;
    if (t.pos === "VERB" && tokens[i - 1]!.pos === "DET") continue; // "the redesign budget"
    if (isVerbal(t)) return i;
    // after "User" / "the team" the next word is the verb ("User trains at FitX"), whatever the tagger says
    const afterEntity = ENTITY_WORDS.has(tokens[i - 1]!.w) && t.pos === "NOUN" && /[^s]s$/.test(t.w);
    if (afterEntity || (t.pos !== "PROPN" && !t.shape && isFiniteAt(words, i))) {
      tokens[i] = { ...t, pos: "VERB", lemma: verbLemma(t.w) ?? t.w.replace(/(?:(?<=sh|ch|x|ss|z)e)?s$/, "") };
      return i;
    }
  }
  return -1;
}

/** A word the grammar takes for a finite verb once a subject stands before it ("banks with …"). */
const verbAfterSubject = (t: Token | undefined) => t !== undefined && (isVerbal(t) || (t.pos !== "PROPN" && isFiniteAt(["it", t.w], 1)));

/** Parse one clause; null when it has no subject + verb. */
function clauseOf(tokens: Token[]): Clause | null {
  const start = verbStart(tokens);
  if (start <= 0) return null;
  let subjectEnd = start;
  // adverbs and negation before the verb belong to the verb group ("User no longer lives…")
  while (subjectEnd > 0 && (tokens[subjectEnd - 1]!.pos === "ADV" || NEGATION_WORDS.has(tokens[subjectEnd - 1]!.w))) subjectEnd--;
  if (subjectEnd === 0) return null;
  let end = start;
  // auxiliaries, adverbs and negation, up to the first main verb ("got" of "got bumped" is an auxiliary)
  for (; end < tokens.length; end++) {
    const t = tokens[end]!;
    const light = t.pos === "ADV" || (t.pos === "PART" && t.w !== "'s") || NEGATION_WORDS.has(t.w) || t.pos === "AUX";
    if (light || (t.pos === "VERB" && t.lemma === "get" && tokens[end + 1]?.pos === "VERB")) continue;
    if (t.pos === "VERB") end++;
    break;
  }
  // trailing adverbs ("now", "instead") belong to the complement, not the verb group
  while (end > start + 1 && !isVerbal(tokens[end - 1])) end--;
  // "started learning Japanese": the aspect verb's gerund is the main verb
  if (ASPECT_VERBS.has(tokens[end - 1]?.lemma ?? "") && tokens[end]?.pos === "VERB" && tokens[end]!.w.endsWith("ing")) end++;
  // "decided (not) to move to Lisbon": a decision is reported as made, so the decided verb is the main verb
  if (tokens[end - 1]?.lemma === "decide" && tokens[end - 1]!.pos === "VERB") end = decidedVerbEnd(tokens, end);
  const verbs = tokens.slice(subjectEnd, end);
  const main = [...verbs].reverse().find((t) => t.pos === "VERB") ?? [...verbs].reverse().find(isVerbal)!;
  let verb = main.lemma;
  if (PARTICLES.has(tokens[end]?.w ?? "")) verb += ` ${tokens[end++]!.w}`;
  const passive = main.pos === "VERB" && main.w !== main.lemma && !main.w.endsWith("ing") && verbs.some((t) => t.lemma === "be" || t.lemma === "get");
  return { subject: tokens.slice(0, subjectEnd), verbs, verb, passive, rest: tokens.slice(end) };
}

/** End of the verb group after "decided": past "(not) to <verb>" when the infinitive follows, else `end`. */
function decidedVerbEnd(tokens: Token[], end: number): number {
  let i = end;
  while (NEGATION_WORDS.has(tokens[i]?.w ?? "")) i++;
  const infinitive = tokens[i]?.w === "to" && tokens[i]!.pos === "PART" && tokens[i + 1]?.pos === "VERB";
  return infinitive ? i + 2 : end;
}

/** Does a new clause start at `i` (after "and", "but", ",", ";")? Then with its own subject or none (borrowed). */
function opensClause(tokens: Token[], i: number): "own" | "borrowed" | null {
  let j = i;
  while (tokens[j]?.pos === "ADV") j++;
  // "… and is a baker now" (a copula only after "and"/"but": "Julia, is …" is no clause)
  const joined = tokens[i - 1]?.pos === "CCONJ";
  if (verbAfterSubject(tokens[j]) && (tokens[j]!.lemma !== "be" || joined)) return "borrowed";
  const rest = tokens.slice(i);
  const start = verbStart(rest);
  if (start <= 0 || start > 5) return null;
  return rest.slice(0, start).every((t) => ["PROPN", "NOUN", "PRON", "DET", "PART", "ADJ", "ADV", "NUM"].includes(t.pos)) ? "own" : null;
}

/**
 * Clauses of a fact: split at ";" and at "and" / "but" / "," before a new clause. A clause
 * without a verb of its own ("…; now pescatarian", "…, gave up on Zed") borrows the subject (and,
 * when it has no verb at all, the affirmative verb group) of the clause before it.
 */
export function clausesOf(text: string): Clause[] {
  const tokens = tokensOf(text);
  const pieces: Token[][] = [];
  let current: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const joiner = t.w === ";" || (t.pos === "CCONJ" && (t.w === "and" || t.w === "but")) || t.w === ",";
    if (joiner && current.length > 0 && (t.w === ";" || opensClause(tokens, i + 1))) {
      pieces.push(current);
      current = [];
      if (tokens[i + 1]?.pos === "CCONJ") i++;
      continue;
    }
    if (t.pos !== "PUNCT" || t.w === "'s" || t.w === "%") current.push(t);
  }
  if (current.length > 0) pieces.push(current);
  const clauses: Clause[] = [];
  for (const piece of pieces) {
    const previous = clauses.at(-1);
    const own = clauseOf(piece);
    // "User's partner quit being a lawyer, she is a chef now": the pronoun is the person before it
    // (not the user: "User met Anna, she works at Bosch")
    const person = previous && !ENTITY_WORDS.has(previous.subject.at(-1)?.w ?? "");
    if (own && person && own.subject.length === 1 && PERSONAL_PRONOUNS.has(own.subject[0]!.w)) clauses.push({ ...own, subject: previous.subject });
    else if (own && (!previous || opensClause(piece, 0) === "own")) clauses.push(own);
    else if (previous) clauses.push(borrow(previous, piece));
    else if (own) clauses.push(own);
  }
  return clauses;
}

function borrow(previous: Clause, piece: Token[]): Clause {
  const again = clauseOf([...previous.subject, ...piece]);
  if (again && again.subject.length === previous.subject.length) return { ...again, borrowed: true };
  const verbs = previous.verbs.filter((t) => !NEGATION_WORDS.has(t.w));
  return { subject: previous.subject, verbs, verb: previous.verb.replace(/ .*/, ""), passive: previous.passive, rest: piece, borrowed: true };
}

export const isChangeVerb = (verb: string): boolean => CHANGE_VERBS.has(verb.split(" ")[0]!) || /^go (?:up|down)$/.test(verb) || verb === "take over";
