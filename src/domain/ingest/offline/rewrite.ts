import type { ChatRole } from "../extractor.ts";
import { MODALS, STOPWORDS, VERBS, isPastOrParticiple, verbLemma } from "./lexicon.ts";
import { skipAdverbs } from "./grammar.ts";

/**
 * First/second person → stable third-person subjects, so a memory reads the
 * same whoever recalls it later.
 *
 *   speaker's "I/me/my"   → "User" / "the user" / "User's"   (user messages and text input)
 *   speaker's "we/us/our" → "The team" / "the team" / "The team's"
 *   "you/your"            → "User"/"User's" in assistant messages (the assistant is talking
 *                           to the user); "the assistant" in user messages
 * The first mention uses the noun ("User", capitalised at the start); later
 * mentions in the same clause use "they/them/their" so sentences stay readable
 * ("User uses Vim when they write Go"). The verb after a rewritten subject is
 * put in the third person ("I prefer" → "User prefers", "we are" → "The team is",
 * "I don't" → "User does not"); past tenses and modals are left alone.
 */

export type Entity = "user" | "team" | "assistant";

interface Forms {
  subject: [string, string, string]; // [at start, first mention mid-clause, later]
  object: [string, string, string];
  possessive: [string, string, string];
}

const FORMS: Record<Entity, Forms> = {
  user: {
    subject: ["User", "the user", "they"],
    object: ["the user", "the user", "them"],
    possessive: ["User's", "the user's", "their"],
  },
  team: {
    subject: ["The team", "the team", "they"],
    object: ["the team", "the team", "them"],
    possessive: ["The team's", "the team's", "their"],
  },
  assistant: {
    subject: ["The assistant", "the assistant", "it"],
    object: ["the assistant", "the assistant", "it"],
    possessive: ["The assistant's", "the assistant's", "its"],
  },
};

type Slot = keyof Forms;
const PRONOUNS: Record<string, { person: "first" | "plural" | "second"; slot: Slot }> = {
  i: { person: "first", slot: "subject" },
  me: { person: "first", slot: "object" },
  myself: { person: "first", slot: "object" },
  my: { person: "first", slot: "possessive" },
  mine: { person: "first", slot: "possessive" },
  we: { person: "plural", slot: "subject" },
  us: { person: "plural", slot: "object" },
  ourselves: { person: "plural", slot: "object" },
  our: { person: "plural", slot: "possessive" },
  ours: { person: "plural", slot: "possessive" },
  you: { person: "second", slot: "subject" },
  yourself: { person: "second", slot: "object" },
  your: { person: "second", slot: "possessive" },
  yours: { person: "second", slot: "possessive" },
};

/** Who each grammatical person refers to, by speaker role. */
function entityFor(person: "first" | "plural" | "second", role: ChatRole | null): Entity | null {
  if (person === "plural") return "team";
  if (person === "first") return role === "assistant" || role === "system" ? null : "user";
  if (role === "assistant") return "user";
  if (role === "system") return null; // system "you" is the model; such sentences are filtered earlier
  return "assistant";
}

/** Expand contractions so the rules see "I am", "do not", "we will", "my phone is". Possessive "'s" is kept. */
export function expandContractions(text: string): string {
  return text
    .replace(/[‘’]/g, "'")
    .replace(/\b(I)'m\b/gi, "$1 am")
    .replace(/\blet's\b/gi, (m) => (m[0] === "L" ? "Let us" : "let us"))
    .replace(/\bcan't\b/gi, "cannot")
    .replace(/\bwon't\b/gi, "will not")
    .replace(/\bain't\b/gi, "is not")
    .replace(/\b(\w+)n't\b/gi, "$1 not")
    .replace(/\b(\w+)'re\b/gi, "$1 are")
    .replace(/\b(\w+)'ve\b/gi, "$1 have")
    .replace(/\b(\w+)'ll\b/gi, "$1 will")
    .replace(/\b(I|we|you|they|he|she)'d\b/gi, "$1 would")
    .replace(/\b(it|that|this|there|here|what|who|he|she|where|how|everything|nothing)'s\b/gi, "$1 is")
    // a noun's "'s" before an article, a preposition or an adverb is "is": "My phone's a Pixel", "Maya's in
    // Mrs. Aldridge's class", "the kickoff's on Monday now"; before a noun it stays the possessive
    .replace(/\b(\w+)'s (?=(?:a|an|the|my|our|your|his|her|their|in|at|on|now|still|not|also|really|very|so|too|just|always|never|back|over|with|from|down|up)\b(?!-))/gi, "$1 is ");
}

/** Third person singular of a verb ("prefer" → "prefers", "try" → "tries", "do" → "does"). */
export function thirdPerson(verb: string): string {
  const w = verb.toLowerCase();
  if (MODALS.has(w) || isPastOrParticiple(w) || w === "is" || w === "was" || w === "has") return verb;
  const irregular: Record<string, string> = { am: "is", are: "is", be: "is", were: "was", have: "has", do: "does", go: "goes" };
  if (irregular[w]) return irregular[w];
  if (/(?:s|sh|ch|x|z|o)$/.test(w)) return `${verb}es`;
  if (/[^aeiou]y$/.test(w)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** Plural agreement for "they": "am/was" → "are/were"; everything else unchanged. */
function pluralForm(verb: string): string {
  const map: Record<string, string> = { am: "are", was: "were", is: "are", has: "have", does: "do" };
  return map[verb.toLowerCase()] ?? verb;
}

interface Token {
  pre: string;
  core: string;
  post: string;
}

function tokenize(text: string): Token[] {
  return text.split(/\s+/).filter(Boolean).map((w) => {
    const m = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(w);
    return { pre: m?.[1] ?? "", core: m?.[2] ?? w, post: m?.[3] ?? "" };
  });
}

/** Should the word after a rewritten subject be conjugated? (a verb, not "to"/"the"/punctuation) */
function conjugatable(word: string): boolean {
  if (!/^[a-z]+$/.test(word)) return false; // names, numbers and punctuation stay as they are
  return VERBS.has(word) || MODALS.has(word) || ["am", "are", "was", "were"].includes(word) || !STOPWORDS.has(word);
}

export interface RewriteOptions {
  /** Entities already named before this clause (e.g. by a "User wants…" wrapper). */
  mentioned?: Entity[];
}

/** Rewrite one clause spoken by `role` (null = plain text input, treated like the user). */
export function rewritePerson(clause: string, role: ChatRole | null, opts: RewriteOptions = {}): string {
  const tokens = tokenize(clause);
  const mentioned = new Set<Entity>(opts.mentioned ?? []);
  // "their" is read as the subject's: only an entity that is (or was) the subject gets it, so "My doctor
  // bumped my dose" reads "User's doctor bumped the user's dose", not "… bumped their dose"
  const subjects = new Set<Entity>(opts.mentioned ?? []);
  const speaker = role ?? "user";
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    const info = tok ? PRONOUNS[tok.core.toLowerCase()] : undefined;
    if (!tok || !info) continue;
    const entity = entityFor(info.person, speaker);
    if (!entity) continue;
    const slot = info.slot === "subject" && info.person === "second" && !followedByVerb(tokens, i) ? "object" : info.slot;
    const later = mentioned.has(entity) && (slot !== "possessive" || subjects.has(entity));
    tok.core = FORMS[entity][slot][later ? 2 : i === 0 ? 0 : 1];
    if (slot === "subject") subjects.add(entity);
    if (entity === "team" && slot === "possessive" && isTeamNoun(tokens[i + 1])) {
      tok.core = FORMS.team.subject[later ? 2 : i === 0 ? 0 : 1]; // "our team" → "the team", not "the team's team"
      tokens.splice(i + 1, 1);
      mentioned.add(entity);
      // "our team plays" already agrees with "the team" ("The team playses", "The team leads is" otherwise)
      if (later) agreeVerb(tokens, i + 1, later);
      continue;
    }
    mentioned.add(entity);
    if (slot === "subject") agreeVerb(tokens, i + 1, later);
  }
  return tokens.map((t) => t.pre + t.core + t.post).join(" ");
}

const isTeamNoun = (t: Token | undefined): boolean => t !== undefined && /^(?:team|company|org|organization)$/i.test(t.core) && t.post === "";

const AUX_AFTER_YOU = new Set(["are", "were", "have", "do", "will", "would", "can", "could", "should", "must", "might", "may", "need"]);

/** "you need…" (subject) vs "send you the file" (object). */
function followedByVerb(tokens: Token[], i: number): boolean {
  const words = tokens.map((t) => t.core.toLowerCase());
  const next = words[skipAdverbs(words, i + 1)];
  return next !== undefined && (AUX_AFTER_YOU.has(next) || verbLemma(next) !== null);
}

/** Make the verb after a rewritten subject agree with it, skipping adverbs. */
function agreeVerb(tokens: Token[], from: number, plural: boolean): void {
  const words = tokens.map((t) => t.core.toLowerCase());
  const at = skipAdverbs(words, from);
  const tok = tokens[at];
  if (!tok || !conjugatable(tok.core)) return;
  tok.core = plural ? pluralForm(tok.core) : thirdPerson(tok.core);
}
