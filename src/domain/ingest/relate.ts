import stemWord from "wink-porter2-stemmer";
import type { MemoryType, RelationType } from "../memory.ts";
import { type Facets, SPEAKERS, contentTokens, factFacets, isNegated, kindsOfOneThing, picksOneOfSeveral, servesOtherPurpose } from "./facets.ts";
import { CUMULATIVE_VERBS, NEGATIONS, PERSON_NOUNS } from "./offline/lexicon.ts";

export { attributeOf, subjectOf } from "./facets.ts";

/**
 * Relation of a new fact to an existing one, for auto_relate. Pure and text-based: stored memories
 * keep only content, so subject, attribute and value are derived from it (facets.ts) when not given.
 *
 * Rules, first match wins:
 *  1. contradicts — the two have opposite polarity ("User no longer uses Vim" / "User uses Vim"; a fact
 *     that ends one value and states another, "quit being a lawyer, is a chef now", is no denial) and
 *     the same core content (overlap coefficient ≥ 0.8 of their content words without negations and
 *     correction markers), and what the negation denies is what the other states (its core ≥ 0.8 within
 *     the other's: "User's back is not happy" denies nothing of "User is back") unless it says what holds
 *     instead ("no longer vegetarian; now pescatarian"). Requires the same subject unless both cores have
 *     ≥ 3 words.
 *  2. supersedes  — the new fact is affirmative, adds no second value ("too", "also", "another"),
 *     does not only end something ("User sold their Corolla"), and
 *     a. names the existing fact's value as the one it replaces ("from X to Y", "instead of X",
 *        "replaced X with Y", "moved off X and onto Y", "left X and now …", "quit being X, she is Y
 *        now", "X left; Y is the new …"), about the same subject and an attribute that does not
 *        differ (when the existing fact has none, the two share a word besides the value: "moved
 *        the docs from GitBook…" / "hosts the docs on GitBook"), or
 *        about the existing fact's subject itself ("Dana took over the team from Chris" / "Chris
 *        runs the team"), or about a thing the existing fact named shorter ("The migration deadline
 *        moved from June 28 …" / "The deadline got pushed to June 28");
 *     b. or sets another value of the same subject and attribute, stated alike (kind) or as a change
 *        ("User's name is Anna" / "User's name is Ana", "User switched to Helix" / "User uses Vim",
 *        "The standup moved to Wednesday" / "The standup is on Mondays", "User's partner is at Allianz
 *        now" / "User's partner works at Lufthansa", "User got promoted to Staff Engineer" / "User's
 *        title is Senior Engineer", "User's appointment is on May 30 now" / "User's doctor's
 *        appointment is on May 16", not "User's dentist's appointment is on May 30"); an employer is
 *        also named by "User's new job is at Spotify", "started (working) at Spotify" and "joined
 *        Spotify as a designer" (not "started at the gym", "joined FitX", "User's first job was at…");
 *        a thing's value stated by its own verb counts as stated alike by the same preposition ("The
 *        team's wiki now lives on Confluence" / "The team's wiki is on Notion"), and two values of one
 *        exclusive category ("on Angular now" / "built with Svelte") however stated; or a new version
 *        of the same named thing ("Production is on Postgres 15 now" / "The production database runs
 *        Postgres 14", "The upgrade from Postgres 13 to 14 went through"), see changesVersion;
 *     c. or says "now" (or another change marker) with the same verb and preposition and another
 *        object ("User now commutes by bike" / "User commutes by train"), for verbs whose objects
 *        replace each other (not "has", "speaks", "likes"…), and both objects names or neither.
 *     b and c only when neither tells a state as over ("User worked at Google from 2015 to 2019") and
 *     they are not said to be for different things ("uses Zoom for calls" / "uses Slack for chat").
 *     A restatement of the same value is rule 3 instead.
 *  3. supports    — same subject and attribute with the same value, or same polarity and the
 *     existing fact's content is (≥ 0.8) contained in the new one: a restatement, possibly with extra
 *     detail ("User uses Vim with a custom config" / "User uses Vim").
 *  4. related_to  — same subject, nothing stronger. Broad by design ("user" covers a lot): callers
 *     apply it to facts from the same ingest only.
 *  5. null.
 * A wish, plan, consideration or possibility ("User wants to use Vim", "is thinking about switching to
 * Helix", "might switch to Linear", "is going to move to Porto", facets.ts) is not the current value:
 * beside a fact that states one it neither contradicts nor supersedes (rules 1–3 are skipped, so it is
 * related_to at most), except by rule 2a through a clause of its own that states what was left ("sold
 * the Corolla and plans to buy a Tesla"). Two wishes compare as two values do ("now plans to move to
 * Porto" / "plans to move to Lisbon"). A decision is reported as made and read as the verb decided
 * on: "decided to switch to Helix" is a change, "decided to move to Lisbon" sets the location ("decided
 * to visit Lisbon" does not, "decided not to move" denies); so is a future that starts now ("will use
 * Helix from now on"), and a thing's future is its schedule ("The launch will be on June 10").
 * A ", not X" tail is a contrast, not a negation: "The deadline is June 14, not June 7" sets a new
 * value (supersedes) rather than denying the old one.
 */

export interface RelatableFact {
  content: string;
  subject?: string | null;
  attribute?: string | null;
  memory_type?: MemoryType;
}

interface Compared extends Facets {
  negated: boolean;
  core: Set<string>;
}

const MARKERS = new Set(["actually", "correction", "anymore", "longer", "now", "stop", "quit", "still"]);

function compared(fact: RelatableFact): Compared {
  const facets = factFacets(fact.content);
  const content = fact.content.replace(/,\s*not\b[^,]*$/i, ""); // contrast tail: not part of the claim
  const subject = fact.subject || facets.subject;
  const subjectWords = new Set(subject.split(/[\s']+/));
  const core = contentTokens(content).filter((w) => !NEGATIONS.has(w) && !MARKERS.has(w) && !subjectWords.has(w));
  return {
    ...facets,
    subject,
    attribute: fact.attribute === undefined ? facets.attribute : fact.attribute,
    // "quit being a lawyer, is a chef now" ends one value to state another: a change, not a denial
    negated: isNegated(fact.content) && !(facets.value.size > 0 && facets.displaced.size > 0 && !facets.ending),
    core: new Set(core),
  };
}

function intersection(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

/** |A∩B| / min(|A|,|B|): 1 when one is contained in the other. */
function overlap(a: Set<string>, b: Set<string>): number {
  const min = Math.min(a.size, b.size);
  return min === 0 ? 0 : intersection(a, b) / min;
}

/** Share of `inner` found in `outer`. */
function containment(inner: Set<string>, outer: Set<string>): number {
  return inner.size === 0 ? 0 : intersection(inner, outer) / inner.size;
}

/** Value words without the attribute's own words ("name", "deadline"); the core when no value was read. */
function valueOf(f: Compared): Set<string> {
  const attributeWords = new Set((f.attribute ?? "").split(" "));
  const words = f.value.size > 0 ? f.value : f.core;
  return new Set([...words].filter((w) => !attributeWords.has(w)));
}

const sameValue = (a: Compared, b: Compared) => {
  const [va, vb] = [valueOf(a), valueOf(b)];
  return (va.size === 0 && vb.size === 0) || overlap(va, vb) >= 0.8;
};


/** Rule 2a: the new fact names the existing one's value as replaced. */
function displaces(a: Compared, b: Compared, sameSubject: boolean): boolean {
  if (a.displaced.size === 0 || b.negated || b.ending) return false;
  const named = a.displacedNames.size > 0 ? a.displacedNames : a.displaced;
  if (![...named].every((w) => b.words.has(w))) return false;
  // a word besides the values and the subject, up to its suffixes: "moved the docs from GitBook…" /
  // "hosts the docs on GitBook", "moved deployments from Kubernetes…" / "deploys services on Kubernetes"
  const besides = (f: Compared) => new Set([...f.words].filter((w) => !a.displaced.has(w) && !a.value.has(w) && !f.subject.split(/[\s']+/).includes(w)).map(stemWord));
  const shareWord = intersection(besides(a), besides(b)) > 0;
  // the thing named in full after a shorter name for it: "The migration deadline moved from June 28 …" / "The deadline got pushed to June 28"
  if (a.thing && b.thing && refersTo(thingOf(b), thingOf(a))) return true;
  // the old fact's whole named value is the one left, by its owner: whatever each calls the attribute,
  // it is that value's ("ported their number from Vodafone to Telekom" / "User's mobile carrier is
  // Vodafone"), also of the speaker's thing ("The team replaced RabbitMQ with Kafka" / "The team's
  // services talk through RabbitMQ"), not of another person's ("User's sister banks with ING")
  if (b.valueNames.size > 0 && [...b.valueNames].every((w) => a.displacedNames.has(w)) && (sameOwner(a, b) || (SPEAKERS.has(a.subject) && isThing(b) && b.words.has(a.subject)))) return true;
  if (sameOwner(a, b)) {
    if (a.attribute && b.attribute) return sameAttribute(a, b);
    // an attribute named only by the new fact: the old one must share a word, or be about the displaced
    // value alone (its names, when it has any: "joined Spotify last week" / "left Spotify and started at …")
    const bValue = b.valueNames.size > 0 ? b.valueNames : valueOf(b);
    return !a.attribute || shareWord || (bValue.size > 0 && [...bValue].every((w) => a.displaced.has(w)));
  }
  // "our new manager" replaces "my manager" when the old one is named as gone
  if (a.attribute && a.attribute === b.attribute && SPEAKERS.has(a.subject) && SPEAKERS.has(b.subject)) return true;
  // "The docs moved from GitBook to …" / "The team hosts the docs on GitBook"
  if (SPEAKERS.has(b.subject) && a.subject.split(" ").every((w) => b.words.has(w))) return true;
  // an attribute of the old fact's subject: "The paid tier price went from €42 …" / "The paid tier costs €42 …"
  if (b.subject !== "unknown" && a.subject.startsWith(`${b.subject} `)) return true;
  return b.subject.split(" ").every((w) => a.displaced.has(w)) && shareWord;
}

/** The verb of a prepositional frame: "bank" of "bank with". */
const frameVerb = (f: Compared) => (f.frame?.includes(" ") ? f.frame.split(" ")[0]! : null);

/**
 * Same attribute, or the same thing with an adjective more ("the daily standup" / "standup"), or
 * one's attribute noun is the verb of the other's frame ("User's bank is …" / "User banks with …").
 */
function sameAttribute(a: Compared, b: Compared): boolean {
  if (kindsOfOneThing(a, b)) return false;
  if (a.attribute !== null && a.attribute === b.attribute) return true;
  if (a.thing && refersTo(a.attribute, b.attribute)) return true;
  // (not for people: "User's older sister" is another sister; nor for one picked among several: "User's
  // favourite city" is not where the user lives)
  const noun = a.attributeNoun;
  if (noun !== null && noun === b.attributeNoun && (a.attribute === noun || b.attribute === noun) && !PERSON_NOUNS.has(noun) && !picksOneOfSeveral(a) && !picksOneOfSeveral(b)) return true;
  if (a.attribute !== null && b.attribute === null) return frameVerb(b) === a.attribute;
  return a.attribute === null && b.attribute !== null && frameVerb(a) === b.attribute;
}

/** Rule 2b: another value of the same attribute, stated alike or as a change. */
function resets(a: Compared, b: Compared): boolean {
  if (!sameAttribute(a, b) || sameValue(a, b)) return false;
  if (a.kind === null || b.kind === null || a.kind === "change" || b.kind === "change") return true;
  // two values of one exclusive category name the attribute however they are stated ("The frontend is
  // on Angular now" / "The team's frontend is built with Svelte")
  if (a.changed && a.category !== null && a.category === b.category) return true;
  return a.kind === b.kind && (a.kind !== "state" || a.changed);
}

/**
 * Rule 2b, for a thing whose earlier fact named no attribute: "The pipeline was upgraded to Python
 * 3.9" / "The data pipeline runs on Python 3.8" — a change to a value of the same sort (they share a
 * word: "Python") and not the same value.
 */
function changesThing(a: Compared, b: Compared): boolean {
  if (!a.thing || a.kind !== "change" || b.attribute !== null || b.negated) return false;
  const [va, vb] = [valueOf(a), valueOf(b)];
  return intersection(va, vb) > 0 && !sameValue(a, b);
}

/**
 * Rule 2b, an attribute only one of the two names, whose noun the other uses: "User's password
 * manager is now Dashlane" / "User keeps passwords in KeePassXC". Only for a new value said to be
 * current ("now", "new") and two different names, as a shared noun alone proves little.
 */
function namesAttribute(a: Compared, b: Compared): boolean {
  const [withAttribute, without] = a.attribute !== null && b.attribute === null ? [a, b] : a.attribute === null && b.attribute !== null ? [b, a] : [null, null];
  if (!withAttribute || !without || !a.changed || !a.named || !b.named || b.negated) return false;
  const shared = withAttribute.attribute!.split(" ").some((w) => without.nouns.has(w) && !without.subject.split(/[\s']+/).includes(w));
  return shared && intersection(valueOf(a), valueOf(b)) === 0;
}

/**
 * Rule 2b, another version of the same named thing, said to be current: "The cluster is on
 * Kubernetes 1.29 now" / "The team's cluster runs Kubernetes 1.27". The name fixes what the value
 * is (a version of it); the subject, whose thing it is.
 */
function changesVersion(a: Compared, b: Compared): boolean {
  if (!a.changed || b.negated || !versionOwnersAgree(a, b)) return false;
  for (const [name, version] of a.versions) {
    const earlier = b.versions.get(name);
    // a change that names the version it left ("from Kubernetes 1.28") left only that one
    if (earlier !== undefined && earlier !== version && (a.displaced.size === 0 || a.displaced.has(earlier))) return true;
  }
  return false;
}

/**
 * Whose version it is: the same owner; or the same thing named shorter ("Production" of "the
 * production database", "the API" of "the API service"); or a change the team made or that names
 * no owner ("The team upgraded to Postgres 13", "The upgrade from Postgres 13 to 14 went through")
 * to a thing's version, not to a person's.
 */
function versionOwnersAgree(a: Compared, b: Compared): boolean {
  if (sameOwner(a, b)) return true;
  const [ta, tb] = [thingOf(a), thingOf(b)];
  if (ta !== null && tb !== null && (namesPart(ta, tb) || namesPart(tb, ta))) return true;
  return (teamsOrNobodys(a) && (teamsOrNobodys(b) || isThing(b))) || (teamsOrNobodys(b) && isThing(a));
}

const teamsOrNobodys = (f: Compared) => f.subject === "team" || f.subject === "unknown";
/** A thing, not a person's: "production database", not "user" or "user's partner". */
const isThing = (f: Compared) => !SPEAKERS.has(f.subject) && f.subject !== "unknown" && !f.subject.includes("'s");

/** A one-word name for a longer one, by its last word (refersTo) or its first: "production" of "production database". */
const namesPart = (short: string, long: string) => refersTo(short, long) || (!short.includes(" ") && long.startsWith(`${short} `));

/** Rule 2c: "now" + the same verb frame with another object. */
function reframes(a: Compared, b: Compared): boolean {
  if (!a.frame || a.frame !== b.frame || !a.changed || b.negated || CUMULATIVE_VERBS.has(a.frame.split(" ")[0]!)) return false;
  if (a.attribute && b.attribute && !sameAttribute(a, b)) return false; // "the office is on …" / "the infrastructure is now on …"
  // when names changed, what they are for did not: "uses Linear for docs" is no new "uses Jira for tickets"
  if (a.named && b.named && [...a.valueNouns].some((w) => !b.valueNouns.has(w))) return false;
  // a name and a common noun are two kinds of thing: "is learning the guitar now" / "is learning Spanish"
  if (a.named !== b.named) return false;
  return a.value.size > 0 && b.value.size > 0 && !sameValue(a, b);
}

/**
 * Facts about the same thing: the same subject, or a thing named without an owner ("The on-call
 * rotation changed to …", "Production runs in eu-west-1") and the same thing as the speaker's
 * attribute ("The team's on-call rotation is weekly", "We moved production from …").
 */
function sameOwner(a: Compared, b: Compared): boolean {
  if (a.subject === b.subject) return a.subject !== "unknown";
  if (SPEAKERS.has(a.subject) && SPEAKERS.has(b.subject)) return false; // the user's email is not the team's
  const [ta, tb] = [thingOf(a), thingOf(b)];
  // "the deadline" and "User's appointment" may name what an earlier fact named in full
  return ta !== null && (ta === tb || ((a.thing || SPEAKERS.has(a.subject)) && refersTo(ta, tb)));
}

/** A new "the deadline" or "Standup" names the thing an earlier fact named in full ("the migration deadline", "the team's daily standup"). */
const refersTo = (name: string | null, earlier: string | null): boolean =>
  name !== null && earlier !== null && (name === earlier || (!name.includes(" ") && earlier.endsWith(` ${name}`)));

const thingOf = (f: Compared): string | null => f.about;

export function inferRelation(newFact: RelatableFact, existing: RelatableFact): RelationType | null {
  const a = compared(newFact);
  const b = compared(existing);
  const sameSubject = a.subject === b.subject && a.subject !== "unknown";
  const bigEnough = Math.min(a.core.size, b.core.size) >= 3;
  // a wish or plan beside a value that holds: neither replaces nor denies the other
  const modal = a.intention !== b.intention;
  // what the negation denies is what the other states ("User's back is not happy" denies nothing of "User
  // is back"), unless it says what holds instead ("no longer vegetarian; now pescatarian")
  const [denial, claim] = a.negated ? [a, b] : [b, a];
  const denies = containment(denial.core, claim.core) >= 0.8 || denial.changed;
  if (!modal && a.negated !== b.negated && overlap(a.core, b.core) >= 0.8 && denies && (sameSubject || bigEnough)) return "contradicts";
  const replacing = !a.negated && !a.additive && !a.ending;
  if (replacing && !b.intention && displaces(a, b, sameSubject)) return "supersedes";
  if (modal) return sameSubject ? "related_to" : null;
  // another value of the same thing, unless each is said to be for something else, or one was a state
  // that is over ("User worked at Google from 2015 to 2019" stays true beside "User works at Stripe now")
  const resetting = replacing && !servesOtherPurpose(a, b) && !a.past && !b.past;
  if (resetting && sameOwner(a, b) && (resets(a, b) || changesThing(a, b) || namesAttribute(a, b))) return "supersedes";
  if (resetting && changesVersion(a, b)) return "supersedes";
  if (resetting && sameSubject && reframes(a, b)) return "supersedes";
  if (sameOwner(a, b) && a.attribute && a.attribute === b.attribute && !a.negated && sameValue(a, b)) return "supports";
  if (a.negated === b.negated && containment(b.core, a.core) >= 0.8 && (sameSubject || bigEnough)) return "supports";
  return sameSubject ? "related_to" : null;
}
