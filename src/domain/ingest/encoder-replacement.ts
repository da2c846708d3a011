import type { ReplacementJudge, TextEmbedder, WarnLog } from "../ports";
import { cosine } from "../text";
import { type Facets, SPEAKERS, factFacets, isNegated, picksOneOfSeveral, servesOtherPurpose } from "./facets";
import { CALENDAR_NAMES, CUMULATIVE_VERBS, PERSON_NOUNS } from "./offline/lexicon";

/**
 * auto_relate's update step without an LLM, for what the offline rules cannot tell: a new value
 * said to be new but not of what ("The laptop is on NixOS now" / "User's laptop runs Arch Linux",
 * "The team's streaming subscription is Apple TV+ now" / "The team pays for HBO Max"). The
 * embedding model judges whether the two facts say the same thing of their subject, with the
 * subject taken off (it would make every pair of facts about the user alike).
 *
 * Only where a replacement is likely: the new fact says it is current ("now", "new", a change
 * verb), both facts are about the same thing and state a named value (a product, a place, a
 * company: what replaces another of its kind), the names differ, they do not name two different
 * things, two known kinds of thing or two purposes, and the most alike candidate is alike enough
 * (SAME_CLAIM). Never for what adds up rather than replaces: a verb whose objects accumulate
 * ("has", "speaks", "reads", "got") or a person ("User has a brother Luis now" leaves "User has a
 * sister Julia" true). In conversation "now" marks urgency as often as a change ("User needs the
 * three options now"); the named value keeps the judge to facts that set an attribute.
 * docs/retrieval.md (Knowledge updates) has what it finds and what it fires on;
 * test/replacement-near-misses.test.ts what it must leave alone.
 */
export class EncoderReplacementJudge implements ReplacementJudge {
  private background: Promise<number> | null = null;

  constructor(
    private readonly embedder: TextEmbedder,
    private readonly log?: WarnLog,
  ) {}

  async replaced(fresh: string, existing: string[]): Promise<number[]> {
    const a = factFacets(fresh);
    if (!sayChange(fresh, a)) return [];
    const candidates = existing.map((text, i) => ({ text, i, facets: factFacets(text) })).filter(({ text, facets }) => alternative(a, text, facets));
    if (candidates.length === 0) return [];
    let background: number, vectors: Float32Array[];
    try {
      background = await (this.background ??= unrelatedCosine(this.embedder));
      ({ vectors } = await this.embedder.embed([withoutSubject(fresh), ...candidates.map((c) => withoutSubject(c.text))]));
    } catch (error) {
      // a remote embedding server that fails (the memories are stored already): the rules' relations stand
      // alone, and the background is read again next time
      this.background = null;
      this.log?.("auto_relate: the embedding model's replacement check failed; the offline rules' relations stand alone", { error: error instanceof Error ? error.message : String(error) });
      return [];
    }
    let best = { i: -1, similarity: background + SAME_CLAIM * (1 - background) };
    candidates.forEach((c, k) => {
      const similarity = cosine(vectors[0]!, vectors[k + 1]!);
      if (similarity >= best.similarity && similarity < RESTATED) best = { i: c.i, similarity };
    });
    return best.i < 0 ? [] : [best.i];
  }
}

/**
 * How alike two facts without their subject must be to state the same thing: this share of the way
 * from the model's cosine between unrelated facts to 1. Embeddings are anisotropic, and how much
 * differs by model (any two texts score 0.1–0.2 with the built-in models, 0.6 and more with some
 * others), so the share holds across models where a fixed cosine would not. 0.53 is a cosine of 0.6
 * with the default model, which kept every true link of the knowledge-update bench and no false one.
 */
const SAME_CLAIM = 0.53;
/** At least this alike, the two are the same statement: a restatement, not a change. */
const RESTATED = 0.99;

/** Statements about nothing in common, to read the model's background cosine from (no labels: any such set will do). */
const UNRELATED = [
  "likes to swim in the lake in summer",
  "keeps the invoices in a blue folder",
  "the printer on the third floor is broken",
  "bakes bread every Saturday morning",
  "is allergic to peanuts",
  "the quarterly report is due next week",
  "plays the cello in an amateur orchestra",
  "the garden needs watering twice a week",
  "prefers trains to planes for short trips",
  "the server room is kept at 18 degrees",
  "reads science fiction before bed",
  "the parking garage closes at midnight",
];

/** The median cosine between the UNRELATED statements: what the model gives two facts that say nothing alike. */
async function unrelatedCosine(embedder: TextEmbedder): Promise<number> {
  const { vectors } = await embedder.embed(UNRELATED);
  const cosines: number[] = [];
  for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) cosines.push(cosine(vectors[i]!, vectors[j]!));
  cosines.sort((x, y) => x - y);
  return Math.max(0, cosines[cosines.length >> 1]!);
}

/** A value of more words than this is a description, not a name standing for an attribute's value. */
const MAX_VALUE_WORDS = 4;

function sayChange(text: string, f: Facets): boolean {
  return f.changed && !f.ending && !f.additive && !f.intention && !f.past && !isNegated(text) && namedValue(f) && !addsUp(f);
}

function alternative(a: Facets, text: string, b: Facets): boolean {
  if (!sameThing(a, b) || b.intention || b.past || isNegated(text) || !namedValue(b) || addsUp(b)) return false;
  if ([...a.valueNames].some((w) => b.valueNames.has(w))) return false;
  return !namesOtherThing(a, b) && !otherCategory(a, b) && !servesOtherPurpose(a, b);
}

/**
 * The same subject, or the same thing of the same speaker however the sentence is built ("The
 * team's CI is now Drone", subject the team, and "The team's CI runs on Buildkite", subject the CI).
 */
function sameThing(a: Facets, b: Facets): boolean {
  if (a.subject === b.subject) return a.subject !== "unknown";
  return a.about !== null && a.about === b.about && speakerOf(a) === speakerOf(b);
}

const speakerOf = (f: Facets) => (f.words.has("user") ? "user" : f.words.has("team") ? "team" : null);

/**
 * Each names what its value belongs to, and not the same thing ("User's rent is …" / "User's salary
 * is …", "The team's frontend is now deployed with Netlify" / "The team's backend is deployed with
 * Helm"), or one picked among several: whether two such names mean one thing ("phone contract" /
 * "mobile carrier") is left to the rules, as the model reads any two of a kind as alike.
 */
const namesOtherThing = (a: Facets, b: Facets) =>
  (ownThing(a) && ownThing(b) && a.about !== b.about) || picksOneOfSeveral(a) || picksOneOfSeveral(b);

/** The fact names the thing its value belongs to, not only its owner ("The team's frontend", not "The team"). */
const ownThing = (f: Facets) => f.about !== null && !SPEAKERS.has(f.about);

/** Two names of known kinds, and not the same kind: "Postgres" (a database) does not replace "Redis for caching" (a cache). */
const otherCategory = (a: Facets, b: Facets) => a.category !== null && b.category !== null && a.category !== b.category;

/** A value that is one more of its kind rather than the only one: a cumulative verb's object, or a person. */
function addsUp(f: Facets): boolean {
  const verb = f.frame?.split(" ")[0];
  const nouns = [...f.nouns, ...f.valueNouns, ...(f.attribute?.split(" ") ?? []), ...f.subject.split(/[\s']+/)];
  return (verb !== undefined && CUMULATIVE_VERBS.has(verb)) || nouns.some((w) => PERSON_NOUNS.has(w));
}

/**
 * The value is mostly names, one of them a name of a thing: "Polestar 2" of "a new car: a Polestar
 * 2". Not an amount or a day alone: the model reads "pays €1,390 a month" and "salary is €4,000 a
 * month" as alike, and "swims 2k on Wednesdays" and "runs 10k on Saturdays".
 */
const namedValue = (f: Facets) =>
  f.value.size <= MAX_VALUE_WORDS && f.valueNames.size * 2 >= f.value.size && [...f.valueNames].some((w) => /^\p{L}/u.test(w) && !CALENDAR_NAMES.has(w));

const withoutSubject = (text: string) => text.replace(/^(the\s+)?(user|team)('s)?\s+|^(their|the)\s+/i, "");
