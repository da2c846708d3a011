import { IRREGULAR_PAST, PROJECT_WORDS, VERBS, isPastOrParticiple, verbLemma } from "./lexicon.ts";
import { firstFiniteIndex, subjectLength, wordsOf } from "./grammar.ts";

/**
 * What is worth remembering. Sentences arrive with contractions expanded.
 * Dropped: greetings, thanks, acknowledgements, questions, hedges ("maybe",
 * "I think", "might"), momentary states ("tired today"), one-off task requests
 * ("write a function…"), and fragments without a subject and finite verb.
 * Kept imperatives: standing instructions ("always…", "never…", "don't…",
 * "from now on…") and "let's go with X" decisions.
 */

/** Signals read from lead-ins before they are stripped. */
export interface Signals {
  correction: boolean;
  decision: boolean;
  important: boolean;
}

export const noSignals = (): Signals => ({ correction: false, decision: false, important: false });

/** Openers stripped from the front of a sentence; some carry a signal. Order matters. */
const LEAD_INS: [RegExp, keyof Signals | null][] = [
  [/^(?:correction|update|edit|erratum)\s*[:\-–—]\s*/i, "correction"],
  [/^(?:actually|in fact|scratch that)\b[,:]?\s*/i, "correction"],
  [/^(?:important|remember|reminder|crucial|critical)\s*[:!\-–—]\s*/i, "important"],
  [/^(?:please\s+)?(?:remember|do not forget|never forget|keep in mind|make sure to remember)\b[,:]?\s*(?:that\s+)?/i, "important"],
  [/^(?:agreed|decision(?: recorded| made)?|final decision|decided)\s*[,:!.\-–—]\s*/i, "decision"],
  [/^(?:just )?(?:to confirm|to be clear|for clarity|for context|just so you know|for what it is worth)\b[,:]?\s*/i, null],
  [/^(?:honestly|frankly|personally|basically|seriously|obviously|generally speaking|in short)\b[,]?\s*/i, null],
  [/^(?:thanks|thank you)(?: (?:so|very) much)?(?: for [^,.!]*)?\s*[,.!]*\s*/i, null],
  [/^(?:good (?:morning|afternoon|evening|night))\b[,.!]*\s*/i, null],
  [
    /^(?!no (?:more|longer)\b)(?:oh|ah|well|so|anyway|anyways|ok|okay|alright|all right|right|yes|yeah|yep|sure|hmm+|ugh|um+|uh|hey|hi|hello|yo|btw|by the way|fyi|fwiw|for the record|heads[- ]up|also|and|but|plus|one more thing|another thing|quick one|quick question|ps|p\.s\.|just so you know|for context|sorry|oh sorry|my bad|oops|nice|great|cool|perfect|awesome|lol|haha|wow|note|no|cheers|for now)\b(?:\s+there)?\s*[,:!.\-–—]*\s*/i,
    null,
  ],
];

/** Strip openers ("Hi!", "Actually,", "Correction:", "Remember that") and collect their signals. */
export function stripLeadIns(sentence: string): { text: string; signals: Signals } {
  const signals = noSignals();
  let text = sentence.trim();
  for (let changed = true; changed && text; ) {
    changed = false;
    for (const [re, signal] of LEAD_INS) {
      const m = re.exec(text);
      if (!m || m[0].length === 0) continue;
      text = text.slice(m[0].length).trim();
      if (signal) signals[signal] = true;
      changed = true;
      break;
    }
  }
  return { text, signals };
}

/** Tails that add nothing: ", by the way", "then", "please", "though", ", in case it matters…". */
export function stripTrailers(text: string): string {
  return text
    .replace(/,\s*(?:in case|if that|if it|just so you know|for context|fwiw|for what it is worth)\b.*$/i, "")
    .replace(/[\s,]+(?:by the way|btw|then|please|though|too|as well|lol|haha|thanks|thank you)\s*([.!]*)$/i, "$1")
    .replace(/^(?:please|pls|kindly)\s+/i, "")
    .trim();
}

/** "These days", "Since the reorg", "As of March": when, said before the subject. */
const TIME_LEAD = /^(?:these days|nowadays|lately|currently|recently|since (?:the |last |this )?[\w-]+|as of (?:the |last |this |next )?[\w-]+|starting (?:the |last |this |next )?[\w-]+|from next [\w-]+)\s*,?\s+/i;

/**
 * "These days I live in York" → "I live in York these days": the fact keeps its subject first
 * (the rules below want one) and its time marker, which says the value is the current one.
 */
export function moveTimeLead(clause: string): string {
  const m = TIME_LEAD.exec(clause);
  if (!m) return clause;
  const rest = clause.slice(m[0].length);
  if (subjectLength(rest) === 0) return clause;
  return `${rest.replace(/[.!]+$/, "")} ${m[0].trim().replace(/,$/, "").toLowerCase()}`;
}

/**
 * A user's note without its "I": "Switched streaming to Paramount+", "Got a new car". A clause
 * opening with a simple past (not a participle: "Done with…", "Based in…") has an elided subject.
 */
export function restoreSubject(clause: string): string {
  const first = wordsOf(clause)[0] ?? "";
  const simplePast = isPastOrParticiple(first) && verbLemma(first) !== null && (first.endsWith("ed") || IRREGULAR_PAST.has(first));
  if (!simplePast || subjectLength(clause) > 0) return clause;
  return `I ${clause.charAt(0).toLowerCase()}${clause.slice(1)}`;
}

const ACKS = new Set(
  ("ok okay k kk sure yes no yep nope yeah nah bye goodbye cheers later thanks lol haha nice great cool " +
    "perfect awesome exactly indeed fine good right alright agreed done noted understood welcome").split(" "),
);
const ACK_PHRASES = [
  "sounds good", "sounds great", "got it", "will do", "makes sense", "no worries", "no problem", "no thanks",
  "you too", "you are welcome", "see you", "see ya", "take care", "good night", "thank you", "i see", "of course",
  "done deal", "nice to meet you", "take your time",
];

/** Whole text is an acknowledgement or pleasantry ("ok", "sounds good, bye"). */
export function isAcknowledgement(text: string): boolean {
  let rest = ` ${wordsOf(text).join(" ")} `;
  for (const phrase of ACK_PHRASES) rest = rest.replaceAll(` ${phrase} `, " ");
  const left = rest.trim().split(" ").filter(Boolean);
  return left.every((w) => ACKS.has(w));
}

const GREETING_ANYWHERE = /\b(?:have a (?:nice|great|good|lovely) (?:day|one|weekend|evening|night)|saying (?:hi|hello)|nice to meet you|how are you)\b/i;

export const isGreeting = (text: string): boolean => GREETING_ANYWHERE.test(text);

const WH = /^(?:what|why|how|where|when|which|who|whom|whose)\s+(?:is|are|was|were|do|does|did|can|could|should|would|will|about|if|else|kind|version|one)\b/i;
const AUX_FIRST = /^(?:is|are|was|were|do|does|did|can|could|would|will|should|shall|may|might|have|has|am)\s+(?:i|you|we|it|there|this|that|the|they|he|she|a|an|my|our|your)\b/i;

/** Questions, with or without the question mark. */
export function isQuestion(text: string): boolean {
  return /\?["')\]]*$/.test(text.trim()) || WH.test(text) || AUX_FIRST.test(text);
}

const HEDGES = /\b(?:maybe|perhaps|not sure|i think|i guess|i suppose|i believe|i wonder|might|possibly|probably|could try|we could|you could|i could|think about it|let me think|not certain|no idea|kind of|sort of)\b/i;

/** Uncertain statements are not facts yet. */
export const isHedged = (text: string): boolean => HEDGES.test(text);

const TRANSIENT = /\b(?:today|tonight|right now|at the moment|this morning|this afternoon|this evening|brb|for a sec|in a minute|so tired|am tired|am hungry|am bored|am exhausted)\b/i;

/** Momentary states ("I'm so tired today") — unless they concern the project ("the deadline is today"). */
export function isTransient(text: string): boolean {
  return TRANSIENT.test(text) && !wordsOf(text).some((w) => PROJECT_WORDS.has(w));
}

const STANDING_LEAD = /^(?:from now on|going forward|in the future|by default|in general|whenever possible)\b[,]?\s*/i;
/** The same markers closing the sentence: "Call me on 555-0199 from now on". */
const STANDING_TAIL = /[\s,]+(?:from now on|going forward|by default)\s*[.!]*$/i;
const STANDING_START = /^(?:always|never|do not|don't|stop)\s+\w/i;
const LETS_DECISION = /^let us\s+(?:go with|use|stick with|pick|choose|switch to|adopt|move to|keep|standardi[sz]e on|settle on)\b/i;

export type Imperative = { kind: "standing"; body: string } | { kind: "decision"; body: string } | { kind: "task" };

/**
 * Classify an imperative sentence, or null when it is not one.
 * standing: "Always use tabs", "From now on, write in English" → a lasting preference.
 * decision: "Let's go with Redis" → "we will go with Redis".
 * task: a one-off request ("Check the weather") → not a memory.
 */
export function imperativeOf(text: string): Imperative | null {
  const standingLead = STANDING_LEAD.exec(text) ?? STANDING_TAIL.exec(text);
  const body = !standingLead ? text : standingLead.index === 0 ? text.slice(standingLead[0].length) : text.slice(0, standingLead.index);
  if (STANDING_START.test(body)) return { kind: "standing", body };
  if (LETS_DECISION.test(body)) return { kind: "decision", body: body.replace(/^let us\s+/i, "we will ") };
  if (/^let (?:us|me)\b/i.test(body)) return { kind: "task" };
  const first = wordsOf(body)[0] ?? "";
  const isCommand = VERBS.has(first) && subjectLength(body) === 0;
  if (!isCommand) return null;
  return standingLead ? { kind: "standing", body } : { kind: "task" };
}

const PRONOUN_LED = /^(?:it|this|that|these|those|there|here|they|he|she)\b/i;

/**
 * A clause worth keeping must read as a statement: at least three words and a
 * finite verb (or a pronoun subject followed by a word we take as its verb). Clauses opening with a bare pronoun ("That worked", "It is solid")
 * depend on context, so they are kept only for corrections or project facts.
 */
export function isStatement(clause: string, signals: Signals): boolean {
  const words = wordsOf(clause);
  if (words.length < 3 || (firstFiniteIndex(words) < 0 && subjectLength(clause) === 0)) return false;
  if (!PRONOUN_LED.test(clause)) return true;
  return signals.correction || words.some((w) => PROJECT_WORDS.has(w));
}
