import { describe, expect, test } from "bun:test";
import type { ExtractedFact } from "../../src/domain/ingest/extractor.ts";
import { OfflineExtractor } from "../../src/domain/ingest/offline-extractor.ts";
import { inferRelation } from "../../src/domain/ingest/relate.ts";

/**
 * Does auto_relate see that a later fact replaces an earlier one, and leave alone a later fact
 * that does not? Pairs [earlier, later], phrased independently of the knowledge-update bench's
 * templates (other verbs, word orders and attributes), in the two ways facts arrive:
 *  - said:   what the user says in two conversations, through the offline extractor, then every
 *            later fact against every earlier one, as auto_relate on ingest compares them;
 *  - stored: what an agent stores ("User …"), compared as auto_relate on store does.
 * A false replacement hides a true fact, so the non-change pairs must all pass; the change pairs
 * have a floor (a miss only leaves the older value ranked as it was).
 */

type Pair = [earlier: string, later: string];

const SAID_CHANGES: Pair[] = [
  ["Our standup is on Mondays.", "Our standup moved from Monday to Wednesday."],
  ["My review is on Tuesday.", "My boss moved my review to Friday."],
  ["Our retro is at 4pm.", "Our CTO moved our retro to 5pm."],
  ["We deploy on Heroku.", "We now deploy on Fly.io instead of Heroku."],
  ["Chris runs our team.", "Dana took over the team from Chris."],
  ["I'm vegetarian.", "I've gone vegan."],
  ["My phone number is 555-0142.", "Call me on 555-0199 from now on."],
  ["I'm based in Hamburg.", "I relocated to Munich last spring."],
  ["I work as a copywriter.", "I retrained as a nurse."],
  ["I work for Bosch.", "I left Bosch and now work at Airbus."],
  ["My email is li.wei@mailbox.org.", "You can reach me at wei.li@posteo.net now."],
  ["I drive a Golf.", "I replaced my Golf with a Prius."],
  ["Our sprints are two weeks long.", "Our sprints are now three weeks long."],
  ["The beta launch is planned for May 3.", "The beta launch has been delayed until June 10."],
  ["We use Jenkins for CI.", "We migrated our CI to GitHub Actions."],
  ["The API runs on Node 18.", "The API now runs on Node 22."],
  ["I report to Alan.", "Since the reorg I report to Beatrice."],
  ["My dentist is Dr. Weber.", "My dentist is now Dr. Okafor."],
  ["My favourite band is Radiohead.", "Wilco has replaced Radiohead as my favourite band."],
  ["Our office is in Kreuzberg.", "Our office moved to Mitte."],
  ["My username is jdoe.", "My username changed to jdoe42."],
  ["The release is scheduled for Friday.", "The release got bumped to next Tuesday."],
  ["My rent is 900 euros.", "My rent went up to 1,050 euros."],
  ["My shift starts at 7am.", "My shift now starts at 9am."],
  ["I play the violin.", "I gave up the violin for the cello."],
  ["We store uploads in S3.", "We moved uploads from S3 to R2."],
  ["Our main database is MySQL.", "We switched the main database over to Postgres."],
  ["I live in Leeds.", "These days I live in York."],
  ["My landlord is Mr. Patel.", "Mr. Patel sold the flat, so my landlord is Mrs. Costa now."],
  ["Our on-call rotation is weekly.", "The on-call rotation changed to fortnightly."],
  ["I use Firefox.", "I ditched Firefox for Brave."],
  ["My coach is Hannah.", "Hannah stepped down and Ravi is my new coach."],
  ["I teach maths at a high school.", "I'm a school principal now."],
  ["My partner's name is Sam.", "I split up with Sam; my partner is Alex now."],
  ["I'm a barista.", "I quit being a barista, I'm a baker now."],
  ["My dentist's appointment is on March 3.", "I moved the dentist's appointment from March 3 to March 10."],
  ["We bank with Barclays.", "We moved off Barclays and onto Monzo."],
  ["My wife works for Spotify.", "My wife is at Klarna now."],
  ["My job title is Junior Designer.", "I got promoted to Lead Designer."],
];

const SAID_NON_CHANGES: Pair[] = [
  ["I have a sister, Julia.", "I also have a brother named Luis."],
  ["I have a sister called Mia.", "My other sister is Nora."],
  ["We have a dog named Rex.", "We adopted a cat called Miso."],
  ["I use Vim.", "I use tmux too."],
  ["I use Vim for editing.", "I use Git for version control."],
  ["My manager is Priya.", "My mentor is Sam."],
  ["I live in Berlin.", "I work in Potsdam."],
  ["I live in Berlin.", "My sister lives in Rome."],
  ["I live in Berlin.", "My office is in Potsdam."],
  ["I live in Berlin.", "I grew up in Madrid."],
  ["I speak French.", "I'm learning Japanese."],
  ["My favourite band is Radiohead.", "My favourite film is Alien."],
  ["I drive a Golf.", "My wife drives a Mini."],
  ["Our backend is written in Go.", "Our frontend is written in TypeScript."],
  ["The beta launch is planned for May 3.", "The public launch is planned for September 1."],
  ["My phone number is 555-0142.", "My office number is 555-0100."],
  ["My email is li.wei@mailbox.org.", "My work email is wei@acme.com."],
  ["I'm vegetarian.", "I love Thai food."],
  ["I play the violin.", "I play tennis on Sundays."],
  ["I work for Bosch.", "My brother works for Siemens."],
  ["Our standup is on Mondays.", "Our retro is on Fridays."],
  ["We deploy on Heroku.", "We store backups on S3."],
  ["My dentist is Dr. Weber.", "My doctor is Dr. Lang."],
  ["I report to Alan.", "Alan reports to Maria."],
  ["I teach maths at a high school.", "I coach the school's chess club."],
  ["I have two kids.", "I have a cat."],
  ["My birthday is in June.", "My sister's birthday is in May."],
  ["I work at Siemens.", "My brother is at Bosch now."],
  ["My doctor's appointment is on May 16.", "My dentist's appointment is on May 30."],
];

const STORED_CHANGES: Pair[] = [
  ["User commutes by train", "User now commutes by bike"],
  ["User's mobile carrier is O2", "User ported their number from O2 to Vodafone"],
  ["The team's jobs are queued in Sidekiq", "The team replaced Sidekiq with GoodJob"],
  ["User's preferred language for replies is German", "User's preferred language for replies is now English"],
  ["The team's retro is on Fridays", "The team's retro was moved to Thursdays"],
  ["User's home is in Oslo", "User relocated to Bergen"],
  ["User is an accountant", "User became a pilot"],
  ["User works at Deloitte", "User joined KPMG after leaving Deloitte"],
  ["The staging server runs Ubuntu 20.04", "The staging server was upgraded to Ubuntu 24.04"],
  ["The project targets Python 3.9", "The project now targets Python 3.12"],
  ["User's daughter attends Hillside School", "User's daughter now attends Oakwood School"],
  ["The launch date is March 3", "The launch date slid to April 14"],
  ["User's budget for the trip is 2,000 euros", "User cut the trip budget to 1,500 euros"],
  ["User's mobile number is 0176 1234567", "User's number changed to 0151 7654321"],
  ["User uses Todoist for tasks", "User replaced Todoist with Things for tasks"],
  ["The team hosts the docs on GitBook", "The team moved the docs from GitBook to Docusaurus"],
  ["User's cat is called Pixel", "User renamed their cat to Byte"],
  ["User is single", "User got married to Robin"],
  ["User's car is a Fiat Panda", "User traded the Fiat Panda in for a Kia Niro"],
  ["User's internet provider is Vodafone", "User switched internet provider to O2"],
  ["The design lead is Marta", "Marta left; Ines is the new design lead"],
  ["User lives in Austin", "User no longer lives in Austin"],
  // a role's appointment is the speaker's ("the dentist's appointment"), named alone later too
  ["User's dentist's appointment is on March 3", "User pushed the dentist's appointment from March 3 to March 10"],
  ["User's hairdresser's appointment is on June 2", "User's appointment is on June 9 now"],
  // "off X and onto Y" leaves X
  ["The team's message queue is RabbitMQ", "The team moved off RabbitMQ and onto Kafka"],
  ["User banks with Barclays", "User moved off Barclays and onto Monzo"],
  // a person "is at" an organisation now: where they work
  ["User's brother works at Siemens", "User's brother is at Bosch now"],
  ["User's wife works for Spotify", "User's wife is now at Klarna"],
  // "quit being X", then the new value, with a pronoun or a borrowed subject
  ["User's sister works as a teacher", "User's sister quit being a teacher, she is a nurse now"],
  ["User is a barista", "User quit being a barista and is a baker now"],
  // a promotion sets the title
  ["User's job title is Junior Designer", "User got promoted to Lead Designer"],
  ["User's role is Analyst", "User was promoted to Team Lead"],
];

const STORED_NON_CHANGES: Pair[] = [
  ["User has a sister Julia", "User has a brother Luis"],
  ["User has a dog named Rex", "User has a second dog named Bo"],
  ["User uses Vim", "User uses tmux too"],
  ["User's manager is Priya", "User's mentor is Sam"],
  ["User lives in Berlin", "User works in Potsdam"],
  ["User lives in Berlin", "User's parents live in Hamburg"],
  ["User's sister lives in Rome", "User lives in Milan"],
  ["User's email is ana@mail.com", "User's sister's email is eva@mail.com"],
  ["User works at Siemens", "User's partner works at Spotify"],
  ["User drives a Volvo", "User's son drives a Fiat"],
  ["The billing service runs on Node 20", "The search service runs on Node 22"],
  ["User plays tennis", "User also plays padel"],
  ["User speaks Spanish", "User speaks Portuguese as well"],
  ["The deadline for the API is June 1", "The deadline for the mobile app is July 1"],
  ["User is a nurse", "User is a morning person"],
  ["User is vegetarian", "User is allergic to peanuts"],
  ["User's favourite colour is green", "User's favourite season is autumn"],
  ["User moved to Lisbon", "User's brother moved to Porto"],
  // possessive chains: the second owner's thing is theirs, two roles' appointments are two
  ["User's birthday is in June", "User's sister's birthday is in May"],
  ["User's dentist's name is Dr. Kim", "User's doctor's name is Dr. Lee"],
  ["User's doctor's appointment is on May 16", "User's dentist's appointment is on May 30"],
  ["User's sister's appointment is on May 16", "User's appointment is on May 30 now"],
  ["User's son's dentist appointment is on May 16", "User's dentist's appointment is on May 30"],
  // "off … onto …" about something else
  ["The team's main database is MySQL", "The team moved off Slack and onto Teams"],
  ["User lives in Berlin", "User moved off the night shift and onto days"],
  // "is at" somewhere that is not an employer, or someone else's
  ["User works at Siemens", "User's brother is at Bosch now"],
  ["User's brother works at Siemens", "User's brother is at home now"],
  ["User works at Siemens", "User is at the dentist now"],
  ["User works at Siemens", "User is at Heathrow until Friday"],
  // someone else quits being what the user is; quitting a habit is no new occupation
  ["User is a barista", "User's partner quit being a barista, she is a baker now"],
  ["User's sister works as a teacher", "User's sister quit smoking, she is a runner now"],
  ["User works at Siemens", "User met Anna at a meetup, she works at Bosch"],
  ["User is a nurse", "User's brother quit his band, he is a nurse now"],
  // someone else's promotion
  ["User's title is Senior Engineer", "User's brother got promoted to Staff Engineer"],
];

/**
 * Not held out: pairs written while the rules were tuned, one or more per rule that widened what
 * counts as a replacement (a thing named alone, an attribute only one fact names, "now" with the
 * same verb, an adjective more, a change verb's object), each one a fact that must stay.
 */
const STORED_GUARDS: Pair[] = [
  ["User works at Siemens", "User's work laptop is now a ThinkPad"],
  ["User's sister banks with ING", "User moved from ING to N26"],
  ["User's favourite city is Kyoto", "User lives in Porto now"],
  ["The team uses Slack for chat", "The team now uses Zoom for calls"],
  ["User is learning Spanish", "User is learning the guitar now"],
  ["User is back", "User's back is not happy"],
  ["User likes the draft", "User does not like the font of the draft"],
  ["User's second language is French", "User's language is German now"],
  ["User's partner works at Bosch", "User left Bosch for Siemens"],
  ["User goes to Bonanza for coffee", "User's favourite coffee is now a flat white"],
  ["The API is written in Go", "The API is now public"],
  ["User's email is ana@mail.com", "The team's email is now team@acme.com"],
  ["The project is called Falcon", "The mobile app is called Sparrow"],
  ["User's sister is Julia", "User's older sister is Ana"],
  ["User's brother is Luis", "User's brother is a doctor"],
  ["User speaks French", "User now speaks Spanish"],
  ["User has a dog", "User now has a cat"],
  ["The team's retro is at 9:15", "Standup moved to 9:45"],
  ["The launch date is June 14", "The deadline got pushed to June 28"],
  ["User gets 30 vacation days a year", "User got a new car: a Polestar"],
  ["User lives in Potsdam", "User commutes from Potsdam to Berlin"],
  ["User goes to the Berlin office on Fridays", "User moved from Berlin to Lisbon"],
  ["User works at Siemens", "User's partner is now at Allianz"],
  ["The team uses Jira for tickets", "The team now uses Linear for docs"],
  ["The team's office is on the second floor", "The team's infrastructure is now on Hetzner"],
  ["User moved to Lisbon", "User's sister moved to Porto"],
];

/**
 * A wish, plan, consideration or possibility is not the current value: each pair is [a value that
 * holds, an intention about another] (or the reverse), and none may replace or deny the other.
 */
const STORED_INTENTIONS: Pair[] = [
  ["User uses Emacs", "User wants to use Vim"],
  ["User uses Emacs", "User wants to give Vim a try"],
  ["User's editor is Emacs", "User would like to move to Vim eventually"],
  ["User lives in Berlin", "User plans to move to Lisbon"],
  ["User lives in Berlin", "User is planning a move to Lisbon next year"],
  ["User lives in Berlin", "User intends to relocate to Lisbon"],
  ["User uses Vim", "User is thinking about switching to Helix"],
  ["User uses Vim", "User is thinking of moving to Helix"],
  ["User uses Vim", "User is looking into Helix as a replacement"],
  ["User works as a nurse", "User would like to work as a teacher"],
  ["User is a nurse", "User would love to become a teacher"],
  ["User is a nurse", "User dreams of becoming a teacher"],
  ["User drives a Volvo", "User hopes to get a Tesla"],
  ["User drives a Volvo", "User is hoping to buy a Tesla this year"],
  ["The team uses MySQL", "The team is considering Postgres"],
  ["The team's main database is MySQL", "The team is evaluating Postgres as the main database"],
  ["The team's database is MySQL", "The team might migrate the database to Postgres"],
  ["User lives in Lisbon", "User is going to move to Porto next year"],
  ["User lives in Lisbon", "User will move to Porto in the autumn"],
  ["User lives in Lisbon", "User is about to move to Porto"],
  ["User uses Jira", "User might switch to Linear"],
  ["User uses Jira for tickets", "User may switch to Linear for tickets"],
  ["User uses Jira for tickets", "User could switch from Jira to Linear"],
  ["User works at Siemens", "User hopes to join Bosch"],
  ["User works at Siemens", "User wants to switch from Siemens to Bosch"],
  ["User is vegetarian", "User is considering going vegan"],
  ["User's phone number is 555-0142", "User might get a new number, 555-0199"],
  // what a wish would leave is not left yet; not wanting a value is no denial that it holds
  ["User uses Vim", "User wants to use Helix, not Vim"],
  ["User uses Vim", "User does not want to use Vim anymore"],
  // a value that holds does not hide a plan or a wish
  ["User plans to move to Lisbon", "User lives in Berlin"],
  ["User wants to use Vim", "User uses Emacs"],
];

const SAID_INTENTIONS: Pair[] = [
  ["I use Emacs.", "I want to use Vim."],
  ["I use Emacs.", "I'd like to try Vim at some point."],
  ["I live in Berlin.", "I'm planning to move to Lisbon."],
  ["I live in Berlin.", "I plan to move to Lisbon next year."],
  ["I use Vim.", "I'm thinking about switching to Helix."],
  ["I work as a nurse.", "I'd like to work as a teacher."],
  ["I drive a Volvo.", "I hope to get a Tesla."],
  ["We use MySQL.", "We're considering Postgres."],
  ["I live in Lisbon.", "I'm going to move to Porto next year."],
  ["I live in Lisbon.", "I'll move to Porto in the autumn."],
  ["We use Jira.", "We may switch to Linear later this year."],
  ["I work at Siemens.", "I'm hoping to join Bosch."],
  ["I'm vegetarian.", "I'm thinking of going vegan."],
];

/** Controls: a change stated as made, decided, or starting now still replaces; so does a changed plan. */
const STORED_STATED_CHANGES: Pair[] = [
  ["User uses Vim", "User decided to switch to Helix"],
  ["User uses Vim", "User has decided to switch to Helix"],
  ["User uses Vim", "User switched to Helix"],
  ["User uses Vim", "User now uses Helix"],
  ["User uses Vim", "User started using Helix"],
  ["User uses Vim", "User will use Helix from now on"],
  ["User uses Vim", "User would rather use Helix now"],
  ["User lives in Berlin", "User moved to Lisbon"],
  ["User uses Jira", "User switched from Jira to Linear"],
  ["The team uses MySQL", "The team switched to Postgres"],
  ["The launch date is June 3", "The launch date will be June 10"],
  ["User drives a Corolla", "User sold their Corolla and plans to buy a Tesla"],
  ["User plans to move to Lisbon", "User now plans to move to Porto"],
  ["User plans to move to Lisbon", "User no longer plans to move to Lisbon"],
];

const SAID_STATED_CHANGES: Pair[] = [
  ["I use Vim.", "I decided to switch to Helix."],
  ["I use Vim.", "I switched to Helix."],
  ["I use Vim.", "I now use Helix."],
  ["I use Vim.", "I started using Helix."],
  ["I use Vim.", "I'll use Helix from now on."],
  ["I live in Berlin.", "I moved to Lisbon."],
];

/**
 * A new employer named by another frame than "works at" ("new job is at", "started at", "joined …
 * as <occupation>"), and a reported decision read as the verb it decides on ("decided to move to").
 */
const STORED_NEW_EMPLOYER_OR_DECISION: Pair[] = [
  ["User lives in Leipzig", "User decided to move to Graz"],
  ["User's home is in Oslo", "User has decided to move to Trondheim"],
  ["User works at Nokia", "User's new job is at Ericsson"],
  ["User works for Unilever", "User's job is now at Danone"],
  ["User works at Nokia", "User started at Ericsson last month"],
  ["User works for Unilever", "User started working at Danone"],
  ["User works at Deloitte", "User joined Accenture as a consultant"],
  ["User lives in Leeds", "User moved to a flat in York"],
  ["User lives in Leeds", "User moved to York last spring"],
];

const SAID_NEW_EMPLOYER_OR_DECISION: Pair[] = [
  ["I live in Leipzig.", "I decided to move to Graz."],
  ["I work at Nokia.", "My new job is at Ericsson."],
  ["I work for Unilever.", "I started at Danone in March."],
];

/** Close to those, each a fact that must stay: a visit, someone else, a refusal, a past job, a gym, a membership. */
const STORED_NEAR_EMPLOYER_OR_DECISION: Pair[] = [
  ["User works at Nokia", "User started at the gym on Mondays"],
  ["User works at Nokia", "User started at 9am today"],
  ["User lives in Leipzig", "User decided to visit Graz"],
  ["User lives in Leipzig", "User decided to fly to Graz for the weekend"],
  ["User lives in Leipzig", "User decided not to move"],
  ["User lives in Leipzig", "User decided not to move to Graz"],
  ["User lives in Leipzig", "User's brother decided to move to Graz"],
  ["User lives in Leipzig", "User might decide to move to Graz"],
  ["User works at Nokia", "User's partner started at Bosch"],
  ["User works at Nokia", "User's sister's new job is at Ericsson"],
  ["User works at Bosch", "User's first job was at Siemens"],
  ["User works at Bosch", "User's old job was at Siemens"],
  ["User works at Bosch", "User's previous job was with Siemens"],
  ["User works at Nokia", "User hopes to start at Ericsson"],
  ["User works at Nokia", "User joined Strava"],
  ["User works at Nokia", "User joined FitX as a member"],
  ["User works at Nokia", "User joined the Ericsson Slack channel"],
  ["User works at Nokia", "User joined Greenpeace as a volunteer"],
  ["User works at Nokia", "User started at Oxford University"],
  // an employer is not an occupation
  ["User is a pharmacist", "User's new job is at Ericsson"],
  ["User is a pharmacist", "User joined Ericsson as an engineer"],
  ["User lives in Berlin", "User moved to the Search team"],
  ["User lives in Leeds", "User moved to the Platform squad"],
];

const SAID_NEAR_EMPLOYER_OR_DECISION: Pair[] = [
  ["I work at Nokia.", "My partner started at Bosch."],
  ["I work at Nokia.", "I started at the gym on Mondays."],
  ["I live in Leipzig.", "I decided to visit Graz."],
  ["I live in Leipzig.", "I decided not to move."],
  ["I work at Bosch.", "My first job was at Siemens."],
  ["I work at Nokia.", "I joined a climbing club."],
  ["I live in Berlin.", "I moved to the Search team."],
];

const extractor = new OfflineExtractor();
const said = (text: string): ExtractedFact[] => extractor.extractSync({ messages: [{ role: "user", content: text }] });
const REPLACING = new Set(["supersedes", "contradicts"]);

/** The later facts and whether one of them supersedes or contradicts an earlier one. */
function saidReplaces([earlier, later]: Pair): { replaces: boolean; facts: string[] } {
  const before = said(earlier);
  const after = said(later);
  // Stored memories keep only content: the earlier facts are compared by content, as auto_relate does.
  const replaces = after.some((fact) => before.some((old) => REPLACING.has(inferRelation(fact, { content: old.content, memory_type: old.memory_type }) ?? "")));
  return { replaces, facts: after.map((f) => f.content) };
}

const storedReplaces = ([earlier, later]: Pair): boolean => REPLACING.has(inferRelation({ content: later }, { content: earlier }) ?? "");

/** Change pairs detected, as a share, with the misses for the failure message. */
function recall(pairs: Pair[], replaces: (p: Pair) => boolean): { share: number; misses: Pair[] } {
  const misses = pairs.filter((p) => !replaces(p));
  return { share: 1 - misses.length / pairs.length, misses };
}

describe("change detection on held-out phrasings", () => {
  test("the set is big enough to mean something", () => {
    expect(SAID_CHANGES.length + STORED_CHANGES.length).toBeGreaterThanOrEqual(40);
    expect(SAID_NON_CHANGES.length + STORED_NON_CHANGES.length).toBeGreaterThanOrEqual(40);
  });

  test("said: no later fact about something else replaces an earlier one", () => {
    const wrong = SAID_NON_CHANGES.filter((p) => saidReplaces(p).replaces).map((p) => [...p, saidReplaces(p).facts]);
    expect(wrong).toEqual([]);
  });

  test("stored: no later fact about something else replaces an earlier one", () => {
    expect(STORED_NON_CHANGES.filter(storedReplaces)).toEqual([]);
  });

  test("guards of the widened rules: no replacement", () => {
    expect(STORED_GUARDS.filter(storedReplaces)).toEqual([]);
  });

  test("said: a new value is detected as replacing the old one", () => {
    const { share, misses } = recall(SAID_CHANGES, (p) => saidReplaces(p).replaces);
    if (share < RECALL_FLOOR) console.error("said changes missed:", misses.map((p) => [...p, saidReplaces(p).facts]));
    expect(share).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });

  test("stored: a new value is detected as replacing the old one", () => {
    const { share, misses } = recall(STORED_CHANGES, storedReplaces);
    if (share < RECALL_FLOOR) console.error("stored changes missed:", misses);
    expect(share).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });
});

describe("a wish, plan or possibility is not a change", () => {
  test("stored: an intention neither replaces nor is replaced by a value that holds", () => {
    expect(STORED_INTENTIONS.filter(storedReplaces)).toEqual([]);
  });

  test("said: an intention is kept as a fact and replaces nothing", () => {
    const read = SAID_INTENTIONS.map((p) => ({ pair: p, ...saidReplaces(p) }));
    expect(read.filter((r) => r.facts.length === 0).map((r) => r.pair)).toEqual([]);
    expect(read.filter((r) => r.replaces).map((r) => [...r.pair, r.facts])).toEqual([]);
  });

  test("stored controls: a change stated as made or decided still replaces", () => {
    expect(STORED_STATED_CHANGES.filter((p) => !storedReplaces(p))).toEqual([]);
  });

  test("said controls: a change stated as made or decided still replaces", () => {
    expect(SAID_STATED_CHANGES.filter((p) => !saidReplaces(p).replaces).map((p) => [...p, saidReplaces(p).facts])).toEqual([]);
  });
});

/** Every change of a rule's group replaces, said and stored; none of its guards does. */
function describeRule(name: string, pairs: { stored: Pair[]; said: Pair[]; storedGuards: Pair[]; saidGuards: Pair[] }, guarded: string): void {
  const saidFailures = (list: Pair[], wanted: boolean) => list.filter((p) => saidReplaces(p).replaces !== wanted).map((p) => [...p, saidReplaces(p).facts]);
  describe(name, () => {
    test("stored: replaces the old value", () => expect(pairs.stored.filter((p) => !storedReplaces(p))).toEqual([]));
    test("said: replaces the old value", () => expect(saidFailures(pairs.said, true)).toEqual([]));
    test(`stored: ${guarded} replaces nothing`, () => expect(pairs.storedGuards.filter(storedReplaces)).toEqual([]));
    test(`said: ${guarded} replaces nothing`, () => expect(saidFailures(pairs.saidGuards, false)).toEqual([]));
  });
}

describeRule(
  "a new employer or a decided move",
  { stored: STORED_NEW_EMPLOYER_OR_DECISION, said: SAID_NEW_EMPLOYER_OR_DECISION, storedGuards: STORED_NEAR_EMPLOYER_OR_DECISION, saidGuards: SAID_NEAR_EMPLOYER_OR_DECISION },
  "a visit, someone else's job, a refusal, a past job, a membership or a move to another team",
);

/**
 * A thing's value stated by its own verb ("The team's wiki now lives on Confluence" against "is on
 * Notion"), a new version of the same named thing however it is said, a thing named shorter the
 * second time, a change verb's object with a number in it, a value of the same exclusive category,
 * a person taking over a role. Each group's guards sit next to it.
 */
const STORED_THING_CHANGES: Pair[] = [
  ["The team's wiki is on Notion", "The team's wiki now lives on Confluence"],
  ["The team's backups run on Backblaze", "The team's backups are on Wasabi now"],
  ["The team's chat is on Slack", "The team's chat now happens on Discord"],
  ["User's photos are in Google Photos", "User's photos now live in iCloud"],
  ["The 1.4 release is scheduled for May 5", "The team pushed the 1.4 release from May 5 to May 19"],
  ["The team's monthly retro is on Fridays", "The team moved the monthly retro to Thursdays"],
  ["The team's weekly planning is on Tuesdays", "The weekly planning is on Wednesdays now"],
  ["The production database runs Postgres 14", "Production is on Postgres 15 now"],
  ["The production database runs Postgres 12", "The team upgraded to Postgres 13"],
  ["The production database runs Postgres 13", "The upgrade from Postgres 13 to Postgres 14 went through last night"],
  ["The search cluster runs Elasticsearch 7", "The move from Elasticsearch 7 to Elasticsearch 8 is finished"],
  ["The API gateway is on Envoy 1.26", "The gateway runs Envoy 1.28 now"],
  ["The team lead is Hannah", "Diego took over as team lead from Hannah"],
  ["User's dentist appointment is on June 2", "User's appointment is on June 9 now"],
  ["The migration deadline is June 28", "They pushed the deadline, it is July 12 now"],
  ["The deadline got pushed to June 28", "The migration deadline moved from June 28 to July 9"],
  ["The release slipped to March 17", "The team moved the 2.0 release from March 17 to April 7"],
  ["The upgrade from Postgres 13 to Postgres 14 went through", "Production is on Postgres 15 now"],
  ["The team upgraded to Postgres 13", "The upgrade from Postgres 13 to Postgres 14 went through"],
  ["The team's error tracking is on Sentry", "Error tracking runs on Bugsnag now"],
  ["The team's wiki is on Notion", "The wiki lives on Outline now"],
  ["The team's weekly review is on Thursdays", "The weekly review happens on Tuesdays from next month"],
];

const SAID_THING_CHANGES: Pair[] = [
  ["Our error tracking is on Sentry.", "Our error tracking runs on Rollbar now."],
  ["My notes are in Obsidian.", "My notes live in Logseq these days."],
  ["Our weekly planning is on Tuesdays.", "We moved the weekly planning to Wednesdays."],
  ["Our cluster runs Kubernetes 1.27.", "The cluster is on Kubernetes 1.29 now."],
  ["Our web app is built with Vue.", "The web app is on React now."],
  ["The deadline for the grant is May 2.", "They moved the deadline again, it is May 16 now."],
  ["Our weekly review is on Thursdays.", "The weekly review happens on Tuesdays from next month."],
];

const STORED_THING_GUARDS: Pair[] = [
  ["The team's services talk through gRPC", "The team's services run on Kubernetes now"],
  ["The team's standup is at 9:30", "The team's standup happens on Zoom now"],
  ["The team's API runs on Node 20", "The team's API now runs on port 8080"],
  ["The team's frontend uses React 18", "The team's backend runs on Node 20 now"],
  ["The team's wiki is on Notion", "The team's roadmap now lives on Linear"],
  ["The team's office is on the second floor", "The team's office now opens on weekdays"],
  ["User's photos are in iCloud", "User's music is in Spotify now"],
  ["User owns an iPhone 12", "User's partner has an iPhone 15 now"],
  ["The staging cluster runs Kubernetes 1.27", "The production cluster is on Kubernetes 1.29 now"],
  ["The staging database runs Postgres 13", "The production database was upgraded to Postgres 14"],
  ["The staging cluster runs Kubernetes 1.27", "The upgrade from Kubernetes 1.28 to Kubernetes 1.29 went through on production"],
  ["User's partner uses Python 3.9", "The team upgraded to Python 3.12"],
  ["User runs Python 3.10 at home", "The team moved the pipeline to Python 3.12"],
  ["The team's laptops run macOS 14", "The team's servers run Ubuntu 24.04 now"],
  ["User's daughter is 7", "User's son turned 9 now"],
  ["The team bought 3 Dell laptops", "The team has 10 Dell monitors now"],
  ["Hannah leads the design team", "Diego took over as team lead"],
  ["The team's standup is at 9:30", "The team moved the standup, it was too early"],
  ["The deadline is June 28", "The tax deadline moved from July 1 to July 15"],
  ["The upgrade from Node 18 to Node 20 went through", "User's partner runs Node 22 now"],
  ["The team's wiki is on Notion", "The roadmap lives on Linear now"],
  ["Dana lives in Berlin", "Dana's office is in Potsdam now"],
  ["The team's weekly review is on Thursdays", "The team's offsite happens in Lisbon from next month"],
  ["User's piano lesson is on Wednesday", "User's swimming class is on Friday starting next week"],
];

const SAID_THING_GUARDS: Pair[] = [
  ["Our frontend is on Vercel.", "Our backend runs on Render now."],
  ["My notes are in Obsidian.", "My passwords live in Bitwarden these days."],
  ["Our staging cluster runs Kubernetes 1.27.", "Production is on Kubernetes 1.29 now."],
];

describeRule(
  "a thing's value however stated, a version, a role taken over",
  { stored: STORED_THING_CHANGES, said: SAID_THING_CHANGES, storedGuards: STORED_THING_GUARDS, saidGuards: SAID_THING_GUARDS },
  "another thing, another owner, another version line or a count",
);

/** Reached by the rules (36 of 37 said, 29 of 30 stored); raise it when they improve, never lower it to let a change in. */
const RECALL_FLOOR = 0.95;

describe("the offline extractor keeps a change and its subject", () => {
  const cases: [said: string, fact: string][] = [
    ["These days my sport is padel.", "User's sport is padel these days"],
    ["Since the reorg I report to Beatrice.", "User reports to Beatrice since the reorg"],
    ["Call me on 555-0199 from now on.", "User wants the assistant to call them on 555-0199"],
    ["Send invoices to li@mailbox.org, that's my email.", "User's email is li@mailbox.org"],
    ["new email: wei@posteo.net talk soon", "The new email is wei@posteo.net"],
    ["I sold my Corolla and bought a Tesla.", "User sold their Corolla and bought a Tesla"],
    ["Hannah stepped down and Ravi is my new coach.", "Hannah stepped down and Ravi is the user's new coach"],
    ["Rent went up from €900 to €1,050.", "Rent went up from €900 to €1,050"],
    ["Switched my bank to Monzo.", "User switched their bank to Monzo"],
    ["No more standups on Fridays, they are on Mondays now.", "No more standups on Fridays, they are on Mondays now"],
  ];
  for (const [text, fact] of cases) {
    test(`"${text}"`, () => expect(said(text).map((f) => f.content)).toContain(fact));
  }

  test("an ending and a new clause with its own subject stay apart", () => {
    expect(said("I left Bosch and I miss it.").map((f) => f.content)).toEqual(["User left Bosch", "User misses it"]);
  });

  test("a clause opening with a participle keeps no invented subject", () => {
    expect(said("Done with the report.").map((f) => f.content)).not.toContain("User done with the report");
  });
});
