import { expandContractions } from "./offline/rewrite.ts";
import { isFiniteAt } from "./offline/grammar.ts";
import {
  ADDITIVE_WORDS,
  ATTRIBUTE_SYNONYMS,
  CHANGE_MARKERS,
  isEndingVerb,
  FRAME_ATTRIBUTES,
  INTENTION_BEFORE_INFINITIVE,
  INTENTION_VERBS,
  NEGATIONS,
  OCCUPATIONS,
  PERSON_NOUNS,
  PROJECT_SUBJECTS,
  SELECTIVE_ADJECTIVES,
  STATE_VERBS,
  STOPWORDS,
  TENTATIVE_MODALS,
  TIME_ADJECTIVES,
  VALUE_CATEGORIES,
  VALUE_VERBS,
  VISIT_NOUNS,
  lemma,
  verbLemma,
} from "./offline/lexicon.ts";
import { type Clause, type Token, clausesOf, isChangeVerb } from "./fact-clauses.ts";

/**
 * Facets of a fact derived from its text alone, so they can be computed for stored memories too
 * (which keep only content). The text is read as clauses (fact-clauses.ts); the clause that states
 * a value gives:
 *   subject   — who or what the fact is about: "user", "team", "project", "user's sister" (a
 *               possessed noun that does something is a subject of its own: "User's sister lives
 *               in Rome" is not about where the user lives), else the subject noun phrase
 *               ("billing service", "dana"). A role's genitive before an appointment names its kind,
 *               not its owner: "User's doctor's appointment" is the user's "doctor appointment".
 *               "she"/"he" opening a later clause is the person of the clause before ("User's
 *               partner quit being a lawyer, she is a chef now").
 *   attribute — what property it sets, when it sets one, as a normal key: "new", "current", "old"
 *               are dropped and a few synonyms are one key (ATTRIBUTE_SYNONYMS: job → occupation,
 *               phone number → phone…):
 *               1. possessed noun + copula or change verb: "User's new number is …" → "phone",
 *                  "The team's retro was moved to Thursdays" → "retro";
 *               2. a definite noun phrase + copula or change verb: "The launch deadline is June 14"
 *                  → "launch deadline" (not for people or the project itself);
 *               3. a name + copula + a possessed or definite noun: "Sam is the team's new manager"
 *                  (the team's manager is Sam);
 *               4. for the user, the team or a name: "as <their> N" ("Zed as their editor"), a
 *                  category term after a value verb or copula ("uses Vim" → "editor", "went vegan" →
 *                  "diet"), a verb frame ("lives in" → "location", "works at" or "is at" an
 *                  organisation, "started at" one, "joined" one "as" an occupation → "employer" (so is a
 *                  possessed "job" that "is at" one), "reports to" → "manager", "promoted to" →
 *                  "occupation", as a title is), a change verb's object ("changed their phone number
 *                  to …"), an occupation after a copula ("is now a pharmacist"), or the shape of a
 *                  contact value (an e-mail address, a phone number).
 *               Otherwise null: liking cats does not set a value that liking dogs would replace.
 *   value     — content words of what the attribute is set to;
 *   displaced — content words of the value the fact says it replaces: "from X to Y", "off X (and)
 *               onto Y", "instead of X", "X, not Y", "replaced X with Y", "ditched X for Y", "after
 *               leaving X", and in a fact of two clauses the one that ends ("sold the Corolla and
 *               bought a Tesla", "quit being a barista and is a baker now", "Priya left and Sam is
 *               the team's new manager") or denies ("no longer vegetarian; now vegan");
 *   kind      — how the value is stated, for attributes of things ("is on Mondays", "is called
 *               Pixel", "is slow"): two statements replace each other only when stated alike, or
 *               when one is a change ("moved to Wednesday"); null when any statement will do;
 *   frame     — the verb and its preposition ("commute by"), for a change of value without a
 *               named attribute ("User now commutes by bike");
 *   additive, changed, ending — markers: "too"/"also"/"another" add a value rather than replace one;
 *               "now", "new", "these days", a change verb say the value is current; a fact that only
 *               ends something ("User sold their Corolla") names no new value;
 *   intention — the fact states a wish, plan, consideration or possibility, not a value that holds
 *               ("User wants to use Vim", "is thinking about switching to Helix", "might switch to
 *               Linear", "is going to move to Porto"); what such a clause would leave ("wants to switch
 *               from Vim") is not displaced, as it is not left yet.
 */
export interface Facets {
  subject: string;
  attribute: string | null;
  /** the attribute without its adjectives ("standup" of "daily standup"), for a thing's attribute */
  attributeNoun: string | null;
  /** the fact is about a thing named by a definite or bare noun phrase ("The deadline got pushed…") */
  thing: boolean;
  /** what the fact is about, the same for the speaker's thing and the thing named alone ("production" of "The team's production …" and of "Production runs in …") */
  about: string | null;
  kind: string | null;
  value: Set<string>;
  displaced: Set<string>;
  /** the names and numbers among them: what identifies the displaced value ("N26" of "the N26 account") */
  displacedNames: Set<string>;
  frame: string | null;
  additive: boolean;
  changed: boolean;
  ending: boolean;
  intention: boolean;
  /** a state told as over: the simple past of a verb of state ("User worked at Google from 2015 to 2019", "was vegetarian") */
  past: boolean;
  /** every content word of the fact (values as their shape keys) */
  words: Set<string>;
  /** the common nouns after the verb ("password" of "User keeps passwords in KeePassXC") */
  nouns: Set<string>;
  /** the value names something: a proper name, a number or a contact value */
  named: boolean;
  /** those names and numbers ("spotify" of "joined Spotify last week") */
  valueNames: Set<string>;
  /** the common nouns of the value ("ticket" of "uses Jira for tickets") */
  valueNouns: Set<string>;
  /** what the value is for, from a "for" phrase ("call" of "uses Zoom for calls") */
  purposes: Set<string>;
  /** the exclusive category the value belongs to ("frontend framework" of "Angular"), whatever the attribute */
  category: string | null;
  /** a name with its number in the value, name → number: "kubernetes" → "1.29" of "is on Kubernetes 1.29" */
  versions: Map<string, string>;
}

interface Reading {
  subject: string;
  attribute: string | null;
  attributeNoun?: string | null;
  thing?: boolean;
  about: string | null;
  kind: string | null;
  value: Token[];
  displaced: Token[];
  frame: string | null;
  ending: boolean;
  negated: boolean;
  modality: Modality;
}

// ---------------------------------------------------------------------------------------------------
// words and noun phrases

const CLOSED_CLASSES = new Set(["DET", "ADP", "PUNCT", "CCONJ", "SCONJ", "PART", "AUX", "PRON"]);
/** Stopwords that are names in their place: "May 3". */
const NAMED = new Set(["may"]);

const ENTITY_WORDS = new Set(["user", "team", "assistant"]);

/** Comparable key of one content word, or null for function words and markers ("user"/"team" too unless `entities`). */
function wordKey(t: Token, entities = false): string | null {
  if (t.shape) return t.w;
  if (entities && ENTITY_WORDS.has(t.w)) return t.w;
  if (CLOSED_CLASSES.has(t.pos) || (STOPWORDS.has(t.w) && !(NAMED.has(t.w) && (t.pos === "NOUN" || t.pos === "PROPN"))) || CHANGE_MARKERS.has(t.w) || NEGATIONS.has(t.w) || ADDITIVE_WORDS.has(t.w)) return null;
  if (t.pos === "VERB") return t.lemma;
  const w = t.w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+#]+$/gu, "");
  if (!w) return null;
  return t.pos === "PROPN" ? w : lemma(w);
}

const keysOf = (tokens: Token[], entities = false): string[] => tokens.flatMap((t) => wordKey(t, entities) ?? []);

/** An attribute key from a noun phrase: "the user's new phone number" → "phone"; "budget for the trip" → "trip budget". */
function attributeKey(tokens: Token[]): string | null {
  const at = tokens.findIndex((t) => t.pos === "ADP");
  const ordered = at > 0 ? [...tokens.slice(at + 1), ...tokens.slice(0, at)] : tokens;
  const words = keysOf(ordered.filter((t) => !TIME_ADJECTIVES.has(t.w))).slice(-3);
  if (words.length === 0) return null;
  const key = words.join(" ");
  return ATTRIBUTE_SYNONYMS[key] ?? key;
}

/** An attribute key without adjectives: "the daily standup" → "standup". */
const nounKey = (tokens: Token[]) => attributeKey(tokens.filter((t) => t.pos !== "ADJ"));

/**
 * A role's genitive before what one has with that role names a kind, not an owner: "the dentist's
 * appointment" and "User's doctor's appointment" are the speaker's appointments, read as "the
 * dentist appointment" with the role as its adjective (so that "User's appointment" may refer to
 * it, as "standup" does to "the daily standup"). "User's sister's appointment" stays the sister's.
 */
function classifyingGenitives(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const role = out.at(-1);
    const next = tokens[i + 1];
    if (tokens[i]!.w === "'s" && role?.pos === "NOUN" && OCCUPATIONS.has(lemma(role.w)) && next && VISIT_NOUNS.has(lemma(next.w))) {
      out[out.length - 1] = { ...role, pos: "ADJ" };
      continue;
    }
    out.push(tokens[i]!);
  }
  return out;
}

/** Segments of a possessive chain: "the user's sister's name" → [[the, user], [sister], [name]]. */
function possessiveSegments(tokens: Token[]): Token[][] {
  const segments: Token[][] = [[]];
  for (const t of tokens) {
    if (t.w === "'s" || t.w === "'") segments.push([]);
    else segments.at(-1)!.push(t);
  }
  return segments.filter((s) => s.length > 0);
}

/** "user", "team", "project", or the noun phrase's last content words ("billing service", "dana"). */
function entityKey(tokens: Token[]): string {
  const head = tokens.filter((t) => t.pos !== "PUNCT").at(-1)?.w ?? "";
  if (ENTITY_WORDS.has(head)) return head;
  const np = keysOf(tokens.filter((t) => !TIME_ADJECTIVES.has(t.w))).slice(-3);
  if (np.length === 0) return "unknown";
  return np.length === 1 && PROJECT_SUBJECTS.has(np[0]!) ? "project" : np.join(" "); // "the repo", not "the mobile app"
}

/** Owner chain as a subject: [[user]] → "user", [[user], [sister]] → "user's sister". */
function ownerKey(segments: Token[][]): string {
  return segments.map((s, i) => (i === 0 ? entityKey(s) : attributeKey(s) ?? "")).filter(Boolean).join("'s ");
}

/** The two subjects a rewritten fact speaks of: the user and the team. */
export const SPEAKERS: ReadonlySet<string> = new Set(["user", "team"]);
const isEntity = (key: string) => key === "user" || key === "team" || key === "project" || key === "assistant";
const isName = (tokens: Token[]) => tokens.length > 0 && tokens.every((t) => t.pos === "PROPN" || t.shape !== undefined);

// ---------------------------------------------------------------------------------------------------
// what the rest of a clause displaces and what it sets

interface Parts {
  value: Token[];
  displaced: Token[];
  /** "as <N>" after the value: "replaced Radiohead as the user's favourite band" */
  role: Token[];
  /** a change verb's object, the thing whose value changes: "changed their phone number to …" */
  object: Token[];
}

const indexOfWord = (tokens: Token[], word: string, from = 0) => tokens.findIndex((t, i) => i >= from && t.w === word);
const ENDS_PHRASE = (t: Token) => t.pos === "ADP" || t.pos === "PUNCT" || t.pos === "CCONJ" || t.pos === "SCONJ";

/** Split off "instead of X" / "rather than X" (anywhere in the clause). */
function takeContrast(rest: Token[]): { rest: Token[]; displaced: Token[] } {
  for (let i = 0; i + 1 < rest.length; i++) {
    const pair = `${rest[i]!.w} ${rest[i + 1]!.w}`;
    if (pair !== "instead of" && pair !== "rather than") continue;
    let end = i + 2;
    while (end < rest.length && !ENDS_PHRASE(rest[end]!)) end++;
    return { rest: [...rest.slice(0, i), ...rest.slice(end)], displaced: rest.slice(i + 2, end) };
  }
  return { rest, displaced: [] };
}

/** Split off "after leaving X" / "since selling X": an ended value in an adjunct. */
function takeEndedAdjunct(rest: Token[]): { rest: Token[]; displaced: Token[] } {
  const i = rest.findIndex((t, k) => (t.w === "after" || t.w === "since") && rest[k + 1]?.pos === "VERB" && isEndingVerb(rest[k + 1]!.lemma));
  if (i < 0) return { rest, displaced: [] };
  return { rest: rest.slice(0, i), displaced: rest.slice(i + 2) };
}

/** "as <N>" naming the role a value takes ("replaced Radiohead as the user's favourite band", "took over as team lead"), not "works as a nurse". */
function splitRole(c: Clause, rest: Token[]): { rest: Token[]; role: Token[] } {
  const as = indexOfWord(rest, "as");
  if (as < 0 || (as === 0 && FRAME_ATTRIBUTES[`${c.verb} as`])) return { rest, role: [] };
  let end = as + 1;
  while (end < rest.length && rest[end]!.pos !== "ADP" && rest[end]!.pos !== "SCONJ") end++;
  return { rest: [...rest.slice(0, as), ...rest.slice(end)], role: rest.slice(as + 1, end) };
}

/** "moved off MySQL and onto Postgres", "got off Heroku onto Fly.io": what it left and what it went to. */
function offOnto(c: Clause, rest: Token[]): { value: Token[]; displaced: Token[] } | null {
  const start = c.verb.endsWith(" off") ? 0 : rest[0]?.w === "off" ? 1 : -1;
  const onto = rest.findIndex((t, i) => i > start && (t.w === "onto" || (t.w === "on" && rest[i + 1]?.w === "to")));
  if (start < 0 || onto <= start) return null;
  const value = rest.slice(rest[onto]!.w === "on" ? onto + 2 : onto + 1);
  return { value, displaced: rest.slice(start, onto).filter((t) => t.pos !== "CCONJ") };
}

/** "since <X>" and "from/starting next/this <X>" after the value: when it holds, not what it is. */
const startsWhen = (t: Token, i: number, rest: Token[]): boolean =>
  i > 0 && (t.w === "since" || ((t.w === "from" || t.w === "starting") && (rest[i + 1]?.w === "next" || rest[i + 1]?.w === "this")));

/** Value and displaced value of a clause's rest, by its verb. */
function partsOf(c: Clause): Parts & { ending: boolean } {
  const contrast = takeContrast(c.rest);
  const adjunct = takeEndedAdjunct(contrast.rest);
  const since = adjunct.rest.findIndex(startsWhen); // "… since the reorg", "… from next week": when, not what
  const { rest, role } = splitRole(c, since > 0 ? adjunct.rest.slice(0, since) : adjunct.rest);
  const extra = [...contrast.displaced, ...adjunct.displaced];
  const head = c.verb.split(" ")[0]!;
  const from = indexOfWord(rest, "from");
  const to = indexOfWord(rest, "to", from + 1);
  const object = isChangeVerb(c.verb) ? objectOf(rest) : [];
  if (c.verb === "take over") {
    // "Dana took over (the team) (as team lead) from Chris"
    return { value: c.subject, displaced: [...(from >= 0 ? rest.slice(from + 1) : []), ...extra], role, object: [], ending: false };
  }
  const off = offOnto(c, rest);
  if (off) return { ...off, displaced: [...off.displaced, ...extra], role, object: [], ending: false };
  if ((isChangeVerb(c.verb) || isEndingVerb(c.verb) || c.verb === "go") && from >= 0 && to > from) {
    const displaced = rest.slice(from + 1, to).filter((t) => t.lemma !== "be");
    return { value: rest.slice(to + 1), displaced: [...displaced, ...extra], role, object, ending: false };
  }
  if (head === "replace") {
    // "replaced X with Y" / "X was replaced by Y" / "Y replaced X (as N)"
    const swap = indexOfWord(rest, c.passive ? "by" : "with");
    if (swap >= 0) return { value: rest.slice(swap + 1), displaced: [...(c.passive ? c.subject : rest.slice(0, swap)), ...extra], role, object: [], ending: false };
    if (c.passive) return { value: [], displaced: [...rest, ...extra], role, object: [], ending: false };
    return { value: c.subject, displaced: [...rest, ...extra], role, object: [], ending: false };
  }
  const exchange = isEndingVerb(c.verb) || ["trade", "swap", "exchange"].includes(head);
  const forAt = exchange ? indexOfWord(rest, "for") : -1;
  if (forAt > 0) return { value: rest.slice(forAt + 1), displaced: [...rest.slice(0, forAt), ...extra], role, object: [], ending: false };
  if (isEndingVerb(c.verb)) {
    return { value: [], displaced: [...(rest.length > 0 ? rest : c.subject), ...extra], role, object: [], ending: true };
  }
  // "changed their phone number to X": the value follows "to"
  const toAt = object.length > 0 ? indexOfWord(rest, "to", object.length) : -1;
  return { value: toAt > 0 ? rest.slice(toAt + 1) : rest, displaced: extra, role, object, ending: false };
}

// ---------------------------------------------------------------------------------------------------
// attributes

const COPULAS = new Set(["be", "become", "turn", "stay", "remain"]);

function isCopular(c: Clause): boolean {
  if (COPULAS.has(c.verb)) return true;
  // "went vegan", "has gone paleo" (not "goes to the gym")
  return c.verb === "go" && c.rest.length > 0 && c.rest[0]!.pos !== "ADP" && c.rest[0]!.pos !== "VERB";
}

/** A change verb used without an object: "moved to Thursdays", "went up to 1,050 euros", "was pushed". */
const isIntransitiveChange = (c: Clause, rest: Token[]) => isChangeVerb(c.verb) && (c.passive || rest.length === 0 || rest[0]!.pos === "ADP" || rest[0]!.pos === "ADV");

/** How a thing's value is stated: "change" (matches any), "participle:call", "state" (an adjective), "prep:on", "nominal". */
function kindOf(c: Clause, rest: Token[]): string {
  if (isIntransitiveChange(c, rest)) return "change";
  if (c.passive) return `participle:${c.verb}`;
  const first = rest.find((t) => t.pos !== "ADV");
  if (!first) return "nominal";
  if (first.pos === "ADJ" && !rest.some((t) => t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "NUM")) return "state";
  return first.pos === "ADP" ? `prep:${first.w}` : "nominal";
}

/** Category term named as the value: after a value verb, a copula or a change verb ("uses Vim", "is vegan", "switched to Helix"). */
function categoryAttribute(c: Clause, text: string): string | null {
  const words = text.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}.#]+|[^\p{L}\p{N}+#]+$/gu, "")).filter(Boolean);
  const copular = isCopular(c) || isChangeVerb(c.verb);
  for (let i = 1; i < words.length; i++) {
    const verb = verbLemma(words[i] ?? "");
    const valueVerb = verb !== null && VALUE_VERBS.has(verb);
    if (!valueVerb && !(copular && verb !== null && (COPULAS.has(verb) || isChangeVerb(verb)))) continue;
    const loose = verb === "prefer" || /\bwritten in\b/.test(text) || /\bfavou?rite\b/.test(text);
    const found = categoryAfter(words, i + 1, loose, !valueVerb);
    if (found) return found;
  }
  return null;
}

/**
 * First category term after position `from` ("vs code" needs two words). After a copula the term
 * must be the whole complement or qualify its own attribute ("is vegan", "a vegan diet"), so that
 * "is a Vim expert" sets no editor.
 */
function categoryAfter(words: string[], from: number, anyCategory: boolean, strict: boolean): string | null {
  const rest = ` ${words.slice(from).join(" ")} `;
  let best: { at: number; attribute: string } | null = null;
  for (const cat of VALUE_CATEGORIES) {
    for (const term of cat.terms) {
      const at = rest.indexOf(` ${term} `);
      if (at < 0 || (best && best.at <= at)) continue;
      const after = rest.slice(at + term.length + 2).split(" ")[0] ?? "";
      if (strict && after !== "" && after !== cat.attribute && !STOPWORDS.has(after)) continue;
      if (cat.exclusive || anyCategory) best = { at, attribute: cat.attribute };
    }
  }
  return best?.attribute ?? null;
}

/** The exclusive category of a value that is a category term: "MySQL" → "database", "Ubuntu 24.04" → "os". */
function valueCategory(value: Token[]): string | null {
  const text = ` ${value.map((t) => t.w).join(" ")} `;
  return VALUE_CATEGORIES.find((cat) => cat.exclusive && cat.terms.some((term) => text.includes(` ${term} `)))?.attribute ?? null;
}

/** The noun phrase right after a change verb, before its "to"/"from": "their phone number", "careers", "production". */
function objectOf(rest: Token[]): Token[] {
  const end = rest.findIndex((t) => t.pos === "ADP" || t.pos === "PUNCT");
  if (end <= 0 || end > 4 || !["to", "from"].includes(rest[end]!.w)) return [];
  const np = rest.slice(0, end);
  // a name or a number is the value itself ("bumped Node 18 to Node 20"); a noun after a number is a thing ("the 1.4 release")
  return isName(np) || (np.at(-1)!.pos !== "NOUN" && np.some((t) => t.pos === "NUM" || t.shape)) ? [] : np;
}

const OCCUPATION_NOUNS = new Set(["job", "career", "profession", "occupation"]);

/**
 * "lives in", "relocated from Madrid to Vienna", "works at": the verb with a preposition of its own
 * (not of an object). A place is named: "moved to 9:45" is no address. A person "is at" an
 * organisation named alone ("is at Allianz now"), not "at home", "at the dentist" or "at Heathrow
 * until Friday".
 */
function entityFrame(c: Clause): string | null {
  const own = c.rest.find((t) => t.pos !== "ADV");
  if (c.verb === "be" && !c.passive && own?.w === "at") {
    const place = c.rest.filter((t) => t.pos !== "ADV").slice(1);
    return place.length > 0 && place.every((t) => t.pos === "PROPN" && !t.shape) ? "employer" : null;
  }
  // "started at Spotify (last month)" is a new employer; "started at the gym", "at 9am" are not
  if (ONSET_VERBS.has(c.verb) && own?.w === "at") return organisationAt(c.rest) ? "employer" : null;
  const frame = own?.pos === "ADP" ? FRAME_ATTRIBUTES[`${c.verb} ${own.w}`] : undefined;
  if (!frame || (frame === "location" && !namesPlace(c.rest))) return null;
  return frame;
}

/**
 * A place is named after a location frame's preposition: "to Lisbon", "in New York", "to a flat in
 * Kreuzberg"; not a named group, which ends in its common noun ("to the Search team", "to the
 * Platform squad"): moving there changes the team, not the home.
 */
function namesPlace(rest: Token[]): boolean {
  const at = rest.findIndex((t) => t.pos === "ADP");
  if (at < 0) return false;
  let end = at + 1;
  while (end < rest.length && rest[end]!.pos !== "ADP" && rest[end]!.pos !== "PUNCT" && rest[end]!.pos !== "CCONJ") end++;
  const phrase = rest.slice(at + 1, end).filter((t) => t.pos !== "ADV");
  const name = phrase.findLastIndex((t) => t.pos === "PROPN" && !t.shape);
  if (name < 0) return namesPlace(rest.slice(end));
  // the name's own common noun ends the phrase ("the Search team"), not a time after it ("Munich last spring")
  return !(name === phrase.length - 2 && phrase[name + 1]!.pos === "NOUN");
}

const ONSET_VERBS = new Set(["start", "begin"]);

/** "at" + an organisation named alone, then nothing or an adjunct: "at Spotify", "at Spotify in March", not "at the gym", "at Heathrow until Friday". */
function organisationAt(rest: Token[]): boolean {
  const at = rest.findIndex((t) => t.w === "at");
  let end = at + 1;
  while (rest[end]?.pos === "PROPN" && !rest[end]!.shape) end++;
  const next = rest[end];
  const school = SCHOOL_NOUNS.has(rest[end - 1]?.w ?? ""); // starting at Oxford University is enrolling
  return end > at + 1 && !school && (next === undefined || !["NOUN", "PROPN", "PART", "NUM"].includes(next.pos)) && next?.w !== "until";
}

const SCHOOL_NOUNS = new Set(["university", "college", "school", "academy"]);

/** Words that date a job as past: "User's old job was at Siemens" names no current employer (nor does "first job", a key of its own). */
const PAST_ADJECTIVES = new Set(["old", "previous", "former", "last", "first", "earlier"]);

/** "User's (new) job is at Spotify" (or "with"): a job placed at an organisation names the employer, in the present tense only. */
function jobAtOrganisation(c: Clause, possessed: Token[]): boolean {
  if (c.verb !== "be" || c.passive || c.verbs.some((t) => t.lemma !== "be" && t.pos !== "ADV") || c.verbs.some((t) => t.w === "was" || t.w === "were")) return false;
  if (attributeKey(possessed) !== "occupation" || !possessed.some((t) => t.w === "job") || possessed.some((t) => PAST_ADJECTIVES.has(t.w))) return false;
  const rest = c.rest.filter((t) => t.pos !== "ADV");
  return (rest[0]?.w === "at" || rest[0]?.w === "with") && namesOnly(rest.slice(1));
}

/** Attribute of a clause about the user, the team or a name (rule 4). */
function entityAttribute(c: Clause, parts: Parts, text: string): string | null {
  const { value, role } = parts;
  if (c.rest.some((t, i) => OCCUPATION_NOUNS.has(lemma(t.w)) && c.rest[i + 1]?.w === "as")) return "occupation";
  // "joined Spotify as a designer" names an employer; "joined FitX", "joined Greenpeace as a volunteer" do not
  if (c.verb === "join" && occupationIn(role) && namesOnly(value)) return "employer";
  if (role.length > 0) return attributeKey(possessiveSegments(role).at(-1) ?? []);
  // "The project is Tundra now": a name
  const first = value.find((t) => t.pos !== "ADV");
  if (c.verb === "be" && first?.pos === "PROPN" && !first.shape && namesOnly(value) && !valueCategory(value)) return "name";
  const category = categoryAttribute(c, text);
  if (category) return category;
  const frame = entityFrame(c);
  if (frame) return frame;
  if (parts.object.length > 0) {
    const key = attributeKey(parts.object);
    return key && OCCUPATION_NOUNS.has(key) ? "occupation" : key;
  }
  if (c.verb === "rename" || (c.passive && (c.verb === "call" || c.verb === "name") && namesOnly(value))) return "name";
  if ((isCopular(c) || isChangeVerb(c.verb)) && occupationIn(value)) return "occupation";
  if (value.some((t) => t.shape === "email")) return "email";
  if (value.some((t) => t.shape === "phone")) return "phone";
  const head = value.filter((t) => t.pos === "NOUN").at(-1);
  if (head && VALUE_CATEGORIES.some((cat) => cat.attribute === head.w && cat.exclusive)) return head.w;
  return null;
}

/** An indefinite noun phrase headed by an occupation: "a pharmacist", "an architect", "product manager". */
function occupationIn(value: Token[]): boolean {
  const np = value.filter((t) => t.pos !== "ADV");
  const end = np.findIndex((t) => t.pos === "ADP" || t.pos === "PUNCT");
  const phrase = end < 0 ? np : np.slice(0, end);
  if (phrase.some((t) => t.w === "the" || t.w === "'s")) return false;
  const head = [...phrase].reverse().find((t) => t.pos === "NOUN" || t.pos === "PROPN" || t.pos === "VERB");
  return head !== undefined && OCCUPATIONS.has(lemma(head.w));
}

// ---------------------------------------------------------------------------------------------------
// one clause

/** "wish": wanted, planned, weighed or possible; "future": will be, which for a thing is its schedule ("The launch will be on June 10"). */
type Modality = "wish" | "future" | null;

const LIKING = new Set(["like", "love"]);

/**
 * Does the clause state a wish, plan, consideration or possibility rather than a value that holds?
 * Read from the verb group's modal and the main verb's lemma with its complement: "wants to use
 * Vim", "is thinking about switching to Helix", "might switch to Linear", "would like to work as a
 * teacher" (a wish); "will move", "is going to move", "is about to move" (the future). Not a wish: a
 * preference that holds ("would rather use Vim", "would prefer replies in German", "would like
 * replies in German", "wants the assistant to call them on …"), or a decision ("decided to switch
 * to Helix" is reported as made), or a thing's schedule ("The beta launch is planned for May 3").
 */
function modalityOf(c: Clause): Modality {
  const modal = c.verbs.find((t) => TENTATIVE_MODALS.has(t.w))?.w;
  // the tagger may read the verb after a modal as a noun: "would like replies in English"
  const bare = modal !== undefined && c.verb === modal;
  const head = bare ? (c.rest[0]?.w ?? "") : c.verb.split(" ")[0]!;
  const next = c.rest[bare ? 1 : 0];
  const infinitive = next?.w === "to" && next.pos === "PART"; // tokensOf tags "to" before a bare verb only
  if (modal === "would" && (head === "prefer" || c.verbs.some((t) => t.w === "rather") || (LIKING.has(head) && !infinitive))) return null;
  if (modal === "will" || modal === "shall") return "future";
  if (modal) return "wish";
  // (active only: "The beta launch is planned for May 3" is its schedule)
  if (!c.passive && (INTENTION_VERBS.has(head) || (INTENTION_BEFORE_INFINITIVE.has(head) && infinitive))) return "wish";
  if ((head === "think" && (next?.w === "about" || next?.w === "of")) || (head === "look" && next?.w === "into")) return "wish";
  if (head === "go" && c.verbs.at(-1)?.w === "going" && infinitive) return "future";
  const about = c.verbs.findIndex((t) => t.w === "about"); // "is about to move": "about" read into the verb group or not
  if (about >= 0 ? c.verbs[about + 1]?.w === "to" : head === "be" && next?.w === "about" && c.rest[1]?.w === "to") return "future";
  return null;
}

function readClause(clause: Clause, text: string): Reading {
  const c = { ...clause, subject: classifyingGenitives(clause.subject) };
  const negated = c.verbs.some((t) => t.w === "not" || t.w === "never" || t.w === "longer") || c.rest.some((t) => t.w === "anymore");
  const parts = partsOf(c);
  const passive = parts.object.length > 0 ? asPassive(c, parts.object) : null;
  if (passive) return { ...readClause(passive, text), negated };
  const base = { value: parts.value, displaced: parts.displaced, ending: parts.ending, negated, frame: frameOf(c), modality: modalityOf(c) };
  const change = changeInSubject(c.subject);
  if (change) return { ...base, ...change, subject: "unknown", attribute: null, kind: "change", about: null };
  const segments = personByName(possessiveSegments(c.subject));
  const copular = isCopular(c) || c.passive || isIntransitiveChange(c, c.rest);
  // 1. "User's new number is …", "The team's retro was moved to Thursdays"; a person is named
  //    ("User's sister is Julia") but otherwise does things ("User's sister is a nurse", "… moved to Rome")
  const person = segments.length > 1 && isPerson(segments.at(-1)!);
  // (after "is", a name is the complement itself: "is at Allianz" places the person, it does not name them)
  const complement = parts.value.find((t) => t.pos !== "ADV")?.pos !== "ADP";
  const named = ((c.verb === "be" && complement) || (c.passive && ["call", "name", "rename"].includes(c.verb))) && namesOnly(parts.value);
  if (segments.length > 1 && copular && (!person || named)) {
    const kind = kindOf(c, c.rest);
    const category = kind === "nominal" ? null : valueCategory(parts.value);
    const employer = category === null && jobAtOrganisation(c, segments.at(-1)!);
    const attribute = category ?? (employer ? "employer" : attributeKey(segments.at(-1)!));
    const owner = ownerKey(segments.slice(0, -1));
    // the team's production is "production", and the team's weekly sync is "weekly sync", as "The weekly sync …" names it
    const about = SPEAKERS.has(owner) ? attributeKey(segments.at(-1)!) : owner;
    return { ...base, subject: owner, attribute, attributeNoun: category ?? (employer ? attribute : nounKey(segments.at(-1)!)), kind, about };
  }
  // A person (or pet) does things of their own ("User's sister lives in Rome"); so does a thing of the
  // speaker's, the same thing as "the data pipeline" ("The team's data pipeline runs on Python 3.10");
  // another owner's thing is the owner's fact ("The repo's .nvmrc pins Node 20").
  const owner = segments.length > 1 ? ownerKey(segments.slice(0, -1)) : entityKey(c.subject);
  const thing = segments.length > 1 ? attributeKey(segments.at(-1)!) : null;
  const subject = person ? `${owner}'s ${thing ?? ""}`.trim() : thing && SPEAKERS.has(owner) ? thing : owner;
  // 3. "Sam is the team's new manager", "Ines is the new design lead"
  const inverted = c.verb === "be" && isName(c.subject) && !isEntity(subject) ? invertedCopula(parts.value) : null;
  if (inverted) return { ...base, ...inverted, value: c.subject, kind: null, about: SPEAKERS.has(inverted.subject) ? inverted.attribute : inverted.subject };
  // 2. "The launch deadline is June 14", "Standup moved to 9:45" (a bare noun; but "Dana moved to Berlin")
  const definite = ["the", "this", "that"].includes(c.subject[0]?.w ?? "") || (segments.length === 1 && c.subject[0]?.pos !== "DET");
  // a person named alone who goes somewhere or takes a role ("Dana took over as team lead") is no thing
  const agent = isName(c.subject) && ((c.subject.length === 1 && entityFrame(c) !== null) || parts.role.length > 0);
  if (definite && copular && !isEntity(subject) && subject !== "unknown" && !agent) {
    // "The staging server was upgraded to Ubuntu 24.04", "The API service is on Node 20": a thing's value
    // that is a category term is that category
    const kind = kindOf(c, c.rest);
    const category = kind === "nominal" ? null : valueCategory(parts.value);
    const thing = attributeKey(c.subject) ?? subject; // "the deadline for the migration" → "migration deadline"
    return { ...base, subject: thing, attribute: category ?? thing, attributeNoun: category ?? nounKey(c.subject), kind, thing: true, about: thing };
  }
  // 2b. a thing placed by its own verb at a name ("The team's wiki now lives on Confluence",
  //     "Monitoring runs on Honeycomb now") states its value as "The team's wiki is on Notion" does,
  //     by the same preposition (not "The team's office opens on weekdays": the verb says what it is about)
  const place = c.rest.find((t) => t.pos !== "ADV");
  const speakers = thing !== null && !person && SPEAKERS.has(owner);
  const placed = speakers ? thing : definite && !isEntity(subject) && subject !== "unknown" && !agent ? (attributeKey(c.subject) ?? subject) : null;
  if (placed && !c.passive && place?.pos === "ADP" && namesOnly(parts.value)) {
    const category = valueCategory(parts.value);
    const noun = nounKey(speakers ? segments.at(-1)! : c.subject);
    return { ...base, subject: speakers ? subject : placed, attribute: category ?? placed, attributeNoun: category ?? noun, kind: `prep:${place.w}`, thing: !speakers, about: placed };
  }
  // 4. the user, the team, a name
  const attribute = entityAttribute(c, parts, text);
  const shaped = attribute === "email" || attribute === "phone";
  const roleOwner = parts.role.some((t) => t.w === "'s") ? ownerKey(possessiveSegments(parts.role).slice(0, -1)) : (parts.role.find((t) => SPEAKERS.has(t.w))?.w ?? null); // "as team lead": the team's
  const who = roleOwner && isEntity(roleOwner) ? roleOwner : shaped && subject === "assistant" && /\bthe user\b/.test(text) ? "user" : subject;
  const value = attribute ? parts.value.filter((t) => !(attribute.split(" ").includes(wordKey(t) ?? "") || OCCUPATION_NOUNS.has(t.w))) : parts.value;
  return { ...base, value, subject: who, attribute, kind: null, about: SPEAKERS.has(who) && attribute ? attribute : who };
}

/**
 * A change named by the subject, with what it left and what it set: "The upgrade from Postgres 13 to
 * Postgres 14 went through", "The switch from Jira to Linear is done". Whose change it is, it does not say.
 */
function changeInSubject(subject: Token[]): { value: Token[]; displaced: Token[] } | null {
  const from = indexOfWord(subject, "from");
  const to = indexOfWord(subject, "to", from + 1);
  const noun = subject[from - 1];
  if (from < 1 || to < from + 2 || to === subject.length - 1 || noun?.pos !== "NOUN" || !isChangeVerb(lemma(noun.w))) return null;
  return { displaced: subject.slice(from + 1, to), value: subject.slice(to + 1) };
}

const POSSESSIVE_PRONOUNS = new Set(["their", "our", "his", "her", "its", "my"]);

/**
 * A change verb's object read as the subject of the change: "We bumped the API service to Node 18"
 * as "The API service was bumped to Node 18", "User changed their phone number to …" as "User's
 * phone number was changed to …", "User switched careers from …" as "User's careers were switched
 * from …" (a bare noun after a person's change verb is theirs).
 */
function asPassive(c: Clause, object: Token[]): Clause | null {
  const first = object[0]!;
  const owned = POSSESSIVE_PRONOUNS.has(first.w) || (first.pos !== "DET" && !isName(object));
  const owner: Token = { w: "'s", lemma: "'s", pos: "PART" };
  const subject = owned ? [...c.subject, owner, ...(POSSESSIVE_PRONOUNS.has(first.w) ? object.slice(1) : object)] : object;
  return { subject, verbs: c.verbs, verb: c.verb, passive: true, rest: c.rest.slice(object.length) };
}

const isPerson = (segment: Token[]) => PERSON_NOUNS.has(lemma(segment.at(-1)?.w ?? ""));

/** Only names (and numbers): "Julia", "Dr. Okafor", "+49 170 555 0142". */
const namesOnly = (tokens: Token[]) => {
  const words = tokens.filter((t) => !["ADV", "PUNCT", "ADP", "DET"].includes(t.pos));
  return words.length > 0 && words.every((t) => t.pos === "PROPN" || t.pos === "NUM" || t.shape !== undefined);
};

/** "the user's partner's name" names the partner: read as "the user's partner". */
function personByName(segments: Token[][]): Token[][] {
  const last = segments.at(-1);
  if (segments.length > 2 && last && attributeKey(last) === "name" && isPerson(segments.at(-2)!)) return segments.slice(0, -1);
  return segments;
}

/** "the team's new manager" → subject team, attribute manager; "the new design lead" → the lead itself. */
function invertedCopula(rest: Token[]): { subject: string; attribute: string } | null {
  const np = rest.filter((t) => t.pos !== "ADV");
  if (np.length < 2 || np.some((t) => t.pos === "ADP" || t.pos === "NUM") || !["the", "their"].includes(np[0]!.w)) return null;
  const segments = possessiveSegments(np);
  const attribute = attributeKey(segments.at(-1)!);
  if (!attribute) return null;
  if (segments.length > 1) return { subject: ownerKey(segments.slice(0, -1)), attribute };
  return np[0]!.w === "the" ? { subject: attribute, attribute } : null;
}

/** Verb and its own preposition: "commute by", "be on" (the Payments team), "target" (an object). */
function frameOf(c: Clause): string | null {
  const first = c.rest.find((t) => t.pos !== "ADV" && t.pos !== "PRON" && !(STOPWORDS.has(t.w) && t.pos !== "ADP")); // "hosts everything on …" is "hosts on …"
  if (!first) return null;
  if (first.pos === "ADP") return `${c.verb} ${first.w}`;
  return c.verb === "be" ? null : c.verb;
}

// ---------------------------------------------------------------------------------------------------
// the fact

const CHANGE_PHRASES = /\b(?:these days|nowadays|from now on|going forward|since|any ?more|any longer|no longer|instead|(?:from|starting) (?:next|this) \w+)\b/;
const ADDITIVE_PHRASES = /\b(?:as well|in addition)\b/;
/** "will use Helix from now on": a future that starts now is the current value. */
const HOLDS_FROM_NOW = /\b(?:from now on|going forward|from today|starting (?:today|now))\b/;

/** Drop correction markers so "Actually, the deadline…" has the deadline as subject. */
function stripMarkers(content: string): string {
  return content.replace(/^(?:actually|correction|update|in fact)\b[\s,:]*/i, "");
}

function readFact(content: string): Facets {
  const text = expandContractions(stripMarkers(content)).replace(/\s+/g, " ").trim();
  const contrast = /,\s*(?:and\s+)?not\s+([^,;]+)$/i.exec(text); // "June 14, not June 7": a contrast, not a denial
  const claim = (contrast ? text.slice(0, contrast.index) : text).replace(/\b(?:these days|nowadays|from now on|going forward)\b,?/gi, " ");
  const label = /^[^:]{1,40}:\s+(?=\S)/.exec(claim); // "Pricing change: the paid tier is €35 now"
  const labelled = label ? clausesOf(claim.slice(label[0].length)) : [];
  const body = labelled.length > 0 ? claim.slice(label![0].length) : claim;
  const lower = body.toLowerCase();
  const clauses = resolveIt(labelled.length > 0 ? labelled : clausesOf(body));
  const readings = clauses.map((c) => readClause(c, lower));
  // a clause that borrows its subject keeps the modality of the one before: "plans to sell the Corolla and buy a Tesla"
  for (let i = 1; i < readings.length; i++) {
    if (clauses[i]!.borrowed && readings[i]!.modality === null) readings[i] = { ...readings[i]!, modality: readings[i - 1]!.modality };
  }
  const lowerAll = text.toLowerCase();
  const intends = (r: Reading | undefined) => r !== undefined && (r.modality === "wish" || (r.modality === "future" && !r.thing && !HOLDS_FROM_NOW.test(lowerAll)));
  const fresh = readings.filter((r) => !r.ending && !r.negated && r.subject !== "unknown");
  const main = fresh.findLast((r) => r.attribute !== null) ?? fresh[0] ?? readings[0];
  const intention = intends(main);
  // what a wish would leave is not left yet: "wants to switch from Vim", "wants to use Helix, not Vim"
  const displacedTokens = intention ? [] : [...(main?.displaced ?? [])];
  const displaced = new Set(keysOf(displacedTokens));
  const contrasted = contrast && !intention ? keysOf(clausesOf(`It is ${contrast[1]}`)[0]?.rest ?? []) : [];
  for (const w of contrasted) displaced.add(w);
  for (const r of readings) {
    if (r === main || !main || main.ending || main.negated || intends(r)) continue;
    const ended = r.ending ? r.displaced : r.negated ? r.value : [];
    displacedTokens.push(...ended);
    for (const w of keysOf(ended)) displaced.add(w);
  }
  const stated = keysOf(main?.value ?? []);
  const kept = stated.filter((w) => !displaced.has(w)); // "from Node 18 to Node 22" sets 22
  const allWords = lowerAll.split(/[^\p{L}\p{N}+#]+/u);
  return {
    subject: main?.subject ?? "unknown",
    attribute: main?.attribute ?? null,
    attributeNoun: main?.attributeNoun ?? main?.attribute ?? null,
    thing: main?.thing ?? false,
    about: main && main.about !== "unknown" ? main.about : null,
    kind: main?.kind ?? null,
    value: new Set(kept.length > 0 ? kept : stated),
    displaced,
    displacedNames: new Set([...keysOf(displacedTokens.filter((t) => t.pos === "PROPN" || t.pos === "NUM" || t.shape)), ...contrasted]),
    frame: main?.frame ?? null,
    additive: ADDITIVE_PHRASES.test(lowerAll) || allWords.some((w) => ADDITIVE_WORDS.has(w)),
    changed: CHANGE_PHRASES.test(lowerAll) || allWords.some((w) => CHANGE_MARKERS.has(w)) || displaced.size > 0 || readings.some(statesChange),
    ending: main?.ending ?? false,
    intention,
    past: main !== undefined && toldAsPast(clauses[readings.indexOf(main)]!),
    words: new Set([...keysOf(clauses.flatMap((c) => [...c.subject, ...c.verbs, ...c.rest]), true), ...contrasted]),
    nouns: new Set(keysOf(clauses.flatMap((c) => c.rest).filter((t) => t.pos === "NOUN"))),
    named: (main?.value ?? []).some(isNameToken),
    valueNames: new Set(keysOf((main?.value ?? []).filter(isNameToken))),
    valueNouns: new Set(keysOf((main?.value ?? []).filter((t) => t.pos === "NOUN"))),
    purposes: new Set(keysOf(purposeWords(clauses))),
    category: valueCategory(main?.value ?? []),
    versions: versionsIn(main?.value ?? []),
  };
}

/**
 * "it" after a change to a named thing is that thing: "They moved the deadline again, it is July 23
 * now" reads its second clause as "the deadline is July 23 now".
 */
function resolveIt(clauses: Clause[]): Clause[] {
  return clauses.map((c, i) => {
    const before = clauses[i - 1];
    if (i === 0 || c.subject.length !== 1 || c.subject[0]!.w !== "it" || !before || !isChangeVerb(before.verb)) return c;
    const end = before.rest.findIndex((t) => t.pos !== "DET" && t.pos !== "NOUN" && t.pos !== "ADJ");
    const object = end < 0 ? before.rest : before.rest.slice(0, end);
    return object[0]?.w === "the" && object.at(-1)?.pos === "NOUN" ? { ...c, subject: object } : c;
  });
}

/** Names followed by a number: "Python 3.10", "Node 20", "May 19". */
function versionsIn(value: Token[]): Map<string, string> {
  const versions = new Map<string, string>();
  for (let i = 0; i + 1 < value.length; i++) {
    const [name, number] = [value[i]!, value[i + 1]!];
    if (name.pos !== "PROPN" || name.shape || number.pos !== "NUM") continue;
    const [key, version] = [wordKey(name), wordKey(number)];
    if (key && version) versions.set(key, version);
  }
  return versions;
}

/**
 * The clause tells a state as over: the simple past (or past progressive) of a verb of state, "User
 * worked as a teacher for five years", "User was vegetarian", "lived in Rome". Not a change told in
 * the past ("moved to Lisbon", "went vegan", "was promoted"), nor the present perfect ("has worked").
 */
function toldAsPast(c: Clause): boolean {
  const verb = c.verbs.at(-1);
  if (!verb || c.passive || !STATE_VERBS.has(verb.lemma)) return false;
  const auxiliaries = c.verbs.filter((t) => t.pos === "AUX" && t !== verb);
  if (auxiliaries.length > 0) return auxiliaries.every((t) => PAST_AUXILIARIES.has(t.w));
  return PAST_AUXILIARIES.has(verb.w) || (verb.w !== verb.lemma && verb.w.endsWith("ed"));
}

const PAST_AUXILIARIES = new Set(["was", "were", "had", "did"]);

/**
 * Two kinds of one thing, named as such: "production server" / "staging server", "preview
 * environments" / "staging environment" (however alike their values: both hosting).
 */
export function kindsOfOneThing(a: Facets, b: Facets): boolean {
  const [x, y] = [a.about?.split(" ") ?? [], b.about?.split(" ") ?? []];
  return x.length > 1 && y.length > 1 && x.at(-1) === y.at(-1) && a.about !== b.about;
}

/** One picked among several of a kind ("User's favourite city", "secondary on-call"): not that attribute's only value. */
export const picksOneOfSeveral = (f: Facets): boolean => (f.attribute ?? "").split(" ").some((w) => SELECTIVE_ADJECTIVES.has(w));

/** Both say what their value is for, and not the same: "uses Zoom for calls" is no new "uses Slack for chat". */
export const servesOtherPurpose = (a: Facets, b: Facets): boolean =>
  a.purposes.size > 0 && b.purposes.size > 0 && ![...a.purposes].some((w) => b.purposes.has(w));

/**
 * The noun of a "for" phrase, what a value is for: "call" of "uses Zoom for calls", "chat" of "uses
 * Slack for the chat", "grandchild" of "knits sweaters for their grandchildren". wink tags such
 * nouns as verbs after "for" ("for/SCONJ calls/VERB"), so the value's nouns miss them.
 */
function purposeWords(clauses: Clause[]): Token[] {
  const found: Token[] = [];
  for (const { rest } of clauses) {
    rest.forEach((t, i) => {
      if (t.w !== "for") return;
      const next = ["DET", "PRON"].includes(rest[i + 1]?.pos ?? "") ? rest[i + 2] : rest[i + 1];
      if (next && (next.pos === "NOUN" || next.pos === "VERB")) found.push(next);
    });
  }
  return found;
}

const isNameToken = (t: Token): boolean => t.pos === "PROPN" || t.pos === "NUM" || t.shape !== undefined;

const statesChange = (r: Reading): boolean => r.kind === "change" || (r.frame !== null && isChangeVerb(r.frame.split(" ")[0]!));

/** Recently read facts: a new memory is compared with ~5 neighbours, and the same neighbours come back. */
const CACHE_SIZE = 2048;
const cache = new Map<string, Facets>();

export function factFacets(content: string): Facets {
  const hit = cache.get(content);
  if (hit) {
    cache.delete(content);
    cache.set(content, hit);
    return hit;
  }
  const facets = readFact(content);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(content, facets);
  return facets;
}

export const subjectOf = (content: string): string => factFacets(content).subject;
export const attributeOf = (content: string): string | null => factFacets(content).attribute;

// ---------------------------------------------------------------------------------------------------
// word-level helpers (also used by the offline extractor)

/** Lower-cased words aligned with whitespace tokens ("" for pure punctuation). */
function tokens(text: string): string[] {
  return expandContractions(text)
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}.#]+|[^\p{L}\p{N}+#]+$/gu, ""));
}

/** Words before the first finite verb: "The billing service runs…" → "the billing service". */
export function subjectPhrase(content: string): string {
  const words = tokens(content);
  for (let i = 1; i < words.length; i++) {
    if (isFiniteAt(words, i)) return words.slice(0, i).filter(Boolean).join(" ");
  }
  return "";
}

/** Content words, lemmatised, without stopwords — the basis for comparing facts. */
export function contentTokens(content: string): string[] {
  return tokens(content)
    .filter((w) => w && !STOPWORDS.has(w))
    .map((w) => lemma(w.replace(/'s$/, "")));
}

const NEGATION_PATTERN = /\b(?:not|no longer|never|stopped|quit|anymore|cannot)\b/;

/** True for statements that deny or end something ("no longer uses Vim", "does not like Java"). */
export function isNegated(content: string): boolean {
  const text = expandContractions(content).toLowerCase().replace(/,\s*not\b[^,]*$/, "");
  return NEGATION_PATTERN.test(text);
}
