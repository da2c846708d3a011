import { describe, expect, test } from "bun:test";
import { EncoderReplacementJudge } from "../src/domain/ingest/encoder-replacement.ts";
import { inferRelation } from "../src/domain/ingest/relate.ts";
import { OfflineExtractor } from "../src/domain/ingest/offline-extractor.ts";
import { embedder } from "./helpers/harness.ts";

/**
 * auto_relate's replacement check as a store makes it (the rules, then the embedding model's judge
 * where they found nothing), with the tests' model, on pairs [earlier, later] written apart from
 * the knowledge-update bench: facts near each other that a later one must not replace (another
 * attribute of the same kind, one more of something, two kinds of thing, another person's), as
 * stored and as said (through the offline extractor, as ingest reads them), and changes the rules
 * cannot place.
 */

const NEAR_MISSES: [string, string][] = [
  ["User has a sister Julia.", "User has a brother Luis now."],
  ["User's salary is €4,000 a month.", "User pays €1,390 a month now."],
  ["User's office extension is 4471.", "User's phone number is 555-0199 now."],
  ["The team uses Redis for caching.", "The team uses Postgres now."],
  ["The team's backend is written in Go.", "The team's frontend is on React now."],
  ["User's yoga class is on Friday.", "User's flight is on Tuesday now."],
  ["The team's retro is on Thursday.", "The team deploys on Fridays now."],
  ["User works at Siemens.", "User trains at FitX now."],
  ["User lives in Berlin.", "User works from Lisbon now."],
  ["The team's warehouse is in Spandau.", "The office is in Kreuzberg now."],
  ["User drives to the office.", "User commutes by train now."],
  ["User's lunch spot is Mustafa's.", "User's morning coffee is at Bonanza now."],
  ["The all-hands is on Google Meet.", "The meeting is on Zoom now."],
  ["User's phone is a Pixel 8.", "User's laptop is a MacBook Air now."],
  ["User's terminal is Alacritty.", "User's editor is Helix now."],
  ["User's second language is French.", "User's main language is Rust now."],
  ["The SDK is on version 2.4.", "The API is on version 3 now."],
  ["User's favourite city is Kyoto.", "User's home city is Porto now."],
  ["User's bike is a Brompton.", "User's car is a Tesla now."],
  ["User's GitHub handle is lixyz.", "User's email is li@mailbox.org now."],
  ["User reads The Economist.", "User subscribes to Netflix now."],
  ["User's dog is called Rex.", "User's new cat is Miso."],
  ["User speaks German.", "User now also speaks Spanish."],
  ["User is reading Neuromancer.", "User is reading Dune now."],
  ["The team's staging runs on Hetzner.", "The team's production runs on AWS now."],
  ["User's partner works at Bosch.", "User works at Siemens now."],
  ["User banks with ING.", "User's broker is Trade Republic now."],
  ["User's password manager is 1Password.", "User's authenticator app is Authy now."],
  ["User's gym is FitX.", "User's climbing hall is Boulderklub now."],
  ["The team's docs live in Confluence.", "The team's tickets are in Linear now."],
  ["User's mobile carrier is Vodafone.", "User's internet provider is Telekom now."],
  ["The team's CI runs on Jenkins.", "The team's CD runs on Argo now."],
  ["User's dentist is Dr. Weber.", "User's doctor is Dr. Okafor now."],
  ["User's monitor is a Dell U2720Q.", "User's keyboard is a Keychron K2 now."],
  ["User flies with Lufthansa.", "User's hotel chain is Marriott now."],
  ["The team's database is Postgres.", "The team's search runs on Elasticsearch now."],
  ["User's running shoes are Asics.", "User's hiking boots are Salomon now."],
  ["User's coffee machine is a Sage.", "User's grinder is a Niche Zero now."],
  ["User watches Formula 1.", "User follows the Bundesliga now."],
  ["The team's main branch is main.", "The team's release branch is release-2 now."],
  ["The team uses Slack for chat.", "The team now uses Zoom for calls."],
  ["User is learning Spanish.", "User is learning the guitar now."],
  ["The team's staging server is in Frankfurt.", "The team's production server is in Dublin now."],
];

const JUDGED_CHANGES: [string, string][] = [
  ["User browses the web with Chrome.", "User's browser is Firefox now."],
  ["User's laptop runs Arch Linux.", "The laptop is on NixOS now."],
  ["The team pays for HBO Max.", "The team's streaming subscription is Apple TV+ now."],
  ["User's mobile carrier is Lebara.", "User's phone contract is with Aldi Talk now."],
  ["User keeps their savings at Deutsche Bank.", "User's bank is Monzo now."],
  ["User uses an iPhone 12.", "User's phone is a Pixel 8 now."],
];

/** [earlier, later] as a user says them: no fact of the later replaces one of the earlier. */
const SAID_NEAR_MISSES: [string, string][] = [
  ["I work at Siemens.", "My brother now works at Bosch."],
  ["I live in Berlin.", "My parents moved to Hamburg."],
  ["My manager is Priya.", "My mentor is now Tom."],
  ["I use Vim for coding.", "I now use Obsidian for notes."],
  ["We use Slack for chat.", "We now use Zoom for calls."],
  ["Our standup is at 9:30.", "Our retro is now at 16:00."],
  ["The deadline is June 14.", "The design review is now on June 20."],
  ["My phone number is 555-0142.", "My work number is now 555-0199."],
  ["My email is ana@mail.com.", "My work email is now ana@acme.com."],
  ["I drive a Golf.", "My wife drives a Tesla now."],
  ["I play tennis on Mondays.", "I now also play squash on Thursdays."],
  ["I'm learning Spanish.", "I'm learning the guitar now."],
  ["Our frontend uses React.", "Our mobile app uses Flutter now."],
  ["We deploy on Fridays.", "We now release on Tuesdays."],
  ["My favourite food is sushi.", "I'm vegetarian now."],
  ["I live in Berlin.", "I'm in Lisbon this week for a conference."],
  ["My office is in Kreuzberg.", "My home is in Neukölln now."],
  ["My rent is 900 euros.", "My internet costs 40 euros now."],
  ["Our main database is Postgres.", "Our analytics database is ClickHouse now."],
  ["I'm allergic to peanuts.", "I'm allergic to penicillin too."],
  ["My daughter goes to Lincoln Elementary.", "My son goes to Parkside High now."],
  ["I support Benfica.", "I now follow the NBA too."],
  ["My dentist is Dr. Weber.", "My GP is now Dr. Okafor."],
  ["Our team lead is Dana.", "Our product manager is now Luis."],
  ["I commute by bike.", "My partner commutes by train now."],
  ["I wake up at 6.", "I go to bed at midnight now."],
  ["My laptop is a ThinkPad.", "My work laptop is now a MacBook."],
  ["I have a cat named Miso.", "I now have a dog named Rex too."],
  ["Our API rate limit is 600 requests per minute.", "Our webhook timeout is now 30 seconds."],
  ["My first language is Portuguese.", "My main language at work is now English."],
  ["We store logs for 30 days.", "We store backups for 90 days now."],
  ["My gym is FitX.", "My yoga studio is now Jivamukti."],
  ["The office opens at 8.", "The cafeteria opens at 11 now."],
  ["Our staging server is in Frankfurt.", "Our production server is in Dublin now."],
  ["I bank with ING.", "My savings are at Trade Republic now."],
  ["The project is called Apollo.", "The project now runs on Kubernetes."],
  ["Our sprint is two weeks.", "Our release cycle is six weeks now."],
  ["My birthday is on March 3.", "My anniversary is on June 12."],
  ["I listen to jazz.", "I now listen to podcasts on my commute."],
  ["We use Jira for tickets.", "We use Linear for planning now."],
];

async function replaces([earlier, later]: [string, string]): Promise<boolean> {
  const rules = inferRelation({ content: later }, { content: earlier });
  if (rules === "supersedes" || rules === "contradicts") return true;
  return (await new EncoderReplacementJudge(await embedder()).replaced(later, [earlier])).length > 0;
}

const extractor = new OfflineExtractor();
const said = (text: string) => extractor.extractSync({ messages: [{ role: "user", content: text }] }).map((f) => f.content);

describe("replacement on held-out near misses", () => {
  test("no later fact about something else replaces an earlier one", async () => {
    const wrong: [string, string][] = [];
    for (const pair of NEAR_MISSES) if (await replaces(pair)) wrong.push(pair);
    expect(wrong).toEqual([]);
  });

  test("said: no fact of a later message about something else replaces one of an earlier message", async () => {
    const wrong: [string, string][] = [];
    for (const [earlier, later] of SAID_NEAR_MISSES) {
      const [before, after] = [said(earlier), said(later)];
      expect(before.length * after.length).toBeGreaterThan(0);
      for (const b of before) for (const a of after) if (await replaces([b, a])) wrong.push([b, a]);
    }
    expect(wrong).toEqual([]);
  });

  test("changes told in other words than the old value are found, some by the judge", async () => {
    const found: [string, string][] = [];
    for (const pair of JUDGED_CHANGES) if (await replaces(pair)) found.push(pair);
    // with the tests' model (glove-sif-100d) half of them; with the default model 5 of 6 (docs/retrieval.md › Extraction)
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(found).toContainEqual(["User browses the web with Chrome.", "User's browser is Firefox now."]);
  });
});
