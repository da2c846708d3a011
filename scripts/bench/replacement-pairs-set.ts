/**
 * Pairs [earlier, later] of facts for auto_relate's replacement check, written apart from the
 * knowledge-update bench (knowledge-update-set.ts) and from each other:
 *  - NEAR_MISSES (as an agent stores them) and SAID_NEAR_MISSES (as a user says them): the later
 *    must not replace the earlier (another attribute of the same kind, one more of something, two
 *    kinds of thing, another person's, a past state);
 *  - JUDGED_CHANGES: changes the rules cannot place, for the embedding model's judge;
 *  - HELD_OUT_SAID_CHANGES, HELD_OUT_STORED_CHANGES: changes phrased as people tell them, never
 *    tuned on: what detection still misses.
 * test/replacement-near-misses.test.ts holds the service to them; replacement-pairs.ts measures them.
 */

import { OfflineExtractor } from "../../src/domain/ingest/offline-extractor.ts";
import { inferRelation, type RelatableFact } from "../../src/domain/ingest/relate.ts";
import type { ReplacementJudge } from "../../src/domain/ports.ts";

export type Pair = [earlier: string, later: string];

const extractor = new OfflineExtractor();
/** The facts ingest reads in a user's message. */
export const saidFacts = (text: string) => extractor.extractSync({ messages: [{ role: "user", content: text }] });

/**
 * What replaces in `pair`, as auto_relate checks it: the rules (relate.ts), then, where they found
 * nothing, `judge`; null when nothing does. Said: each fact of the later message against each of
 * the earlier, as ingest compares them.
 */
export async function replacedBy(judge: ReplacementJudge, [earlier, later]: Pair, said: boolean): Promise<"rules" | "judge" | null> {
  const pairs: [RelatableFact, string][] = said ? saidFacts(earlier).flatMap((b) => saidFacts(later).map((a): [RelatableFact, string] => [a, b.content])) : [[{ content: later }, earlier]];
  for (const [fresh, old] of pairs) {
    const rules = inferRelation(fresh, { content: old });
    if (rules === "supersedes" || rules === "contradicts") return "rules";
  }
  for (const [fresh, old] of pairs) if ((await judge.replaced(fresh.content, [old])).length > 0) return "judge";
  return null;
}

export const NEAR_MISSES: Pair[] = [
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
  ["User works from home on Mondays.", "User now works from the office on Thursdays."],
  ["User worked at Google from 2015 to 2019.", "User works at Stripe now."],
  ["User knits scarves for charity.", "User now knits sweaters for their grandchildren."],
  ["The team's staging environment is on Heroku.", "The team's preview environments are on Vercel now."],
  ["The team's backend is deployed with Helm.", "The team's frontend is now deployed with Netlify."],
  ["The team's primary on-call is Mei.", "The team's secondary on-call is now Oskar."],
  // a second set, written separately
  // family
  ["User's son plays football", "User's daughter plays hockey now"],
  ["User's mother lives in Porto", "User's father lives in Faro now"],
  ["User's mother-in-law visits on Sundays", "User's parents visit on Saturdays now"],
  // health
  ["User takes ibuprofen for back pain", "User takes melatonin for sleep now"],
  ["User's allergist is Dr. Brandt", "User's new cardiologist is Dr. Yilmaz"],
  ["User's left knee was operated on in March", "User's right knee is scheduled for surgery in June"],
  ["User's health insurance is with TK", "User switched car insurance to HUK"],
  // work
  ["User works from home on Mondays", "User now works from the office on Thursdays"],
  ["User's boss is based in Zurich", "User is based in Vienna now"],
  ["User earns 65,000 euros a year", "User's partner earns 72,000 euros a year now"],
  ["User worked at Google from 2015 to 2019", "User works at Stripe now"],
  // money
  ["User's credit card limit is 5,000 euros", "User's overdraft limit is 1,000 euros now"],
  ["User's checking account is at N26", "User's new savings account is at DKB"],
  ["User's monthly grocery budget is 400 euros", "User's monthly eating-out budget is now 150 euros"],
  // travel
  ["User flies to Madrid on May 4", "User flies back from Madrid on May 11 now"],
  ["User's outbound train leaves at 8:10", "User's return train now leaves at 18:40"],
  ["User's hotel in Tokyo is the Park Hyatt", "User's hotel in Kyoto is now the Ace"],
  // hobbies
  ["User plays chess online on Lichess", "User now plays poker online on PokerStars"],
  ["User knits scarves for charity", "User now knits sweaters for their grandchildren"],
  ["User's running club meets on Tuesdays", "User's book club meets on Thursdays now"],
  // software teams
  ["The team's staging environment is on Heroku", "The team's preview environments are on Vercel now"],
  ["The team's backend is deployed with Helm", "The team's frontend is now deployed with Netlify"],
  ["The team's primary on-call is Mei", "The team's secondary on-call is now Oskar"],
  ["The team's iOS app targets iOS 16", "The team's Android app now targets Android 14"],
  ["The team's logs go to Loki", "The team's metrics now go to Prometheus"],
  ["The team's mobile release train runs every two weeks", "The team's web release is weekly now"],
  // devices
  ["User's work phone is a Samsung Galaxy S23", "User's personal phone is a Pixel 8 now"],
  ["User's TV is a Samsung", "User's new soundbar is a Sonos"],
  ["User's e-reader is a Kindle", "User's kids have a Kobo now"],
  // schedules
  ["User's piano lesson is on Tuesday at 5", "User's daughter's piano lesson is on Wednesday at 5 now"],
  ["User's alarm is set for 6:15 on weekdays", "User's alarm is set for 8:00 on weekends now"],
  // food
  ["User eats oatmeal for breakfast", "User eats salad for lunch now"],
  ["User's favourite restaurant is Nopa", "User's favourite bakery is now Tartine"],
  ["User is cutting down on sugar", "User's husband is cutting down on salt now"],
  // housing
  ["User's flat is in Friedrichshain", "User's storage unit is in Lichtenberg now"],
  ["User's cleaner comes on Wednesdays", "User's gardener comes on Fridays now"],
  // pets
  ["User's dog Bella is on a grain-free diet", "User's cat Tofu is on a kidney diet now"],
  ["User's dog is walked by Sven", "User's dog is also walked by Lea on weekends now"],
  // education
  ["User passed CFA level 1", "User is studying for CFA level 2 now"],
  ["User's thesis supervisor is Prof. Lind", "User's second examiner is now Prof. Aziz"],
];

export const JUDGED_CHANGES: Pair[] = [
  ["User browses the web with Chrome.", "User's browser is Firefox now."],
  ["User's laptop runs Arch Linux.", "The laptop is on NixOS now."],
  ["The team pays for HBO Max.", "The team's streaming subscription is Apple TV+ now."],
  ["User's mobile carrier is Lebara.", "User's phone contract is with Aldi Talk now."],
  ["User keeps their savings at Deutsche Bank.", "User's bank is Monzo now."],
  ["User uses an iPhone 12.", "User's phone is a Pixel 8 now."],
];

/** [earlier, later] as a user says them: no fact of the later replaces one of the earlier. */
export const SAID_NEAR_MISSES: Pair[] = [
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
  ["I work as a data engineer.", "I worked as a teacher for five years."],
  ["I run 10k on Saturdays.", "I now swim 2k on Wednesdays."],
  // a second set, written separately
  // family
  ["My son is in third grade.", "My daughter is in fifth grade now."],
  ["My mom lives in Porto.", "My dad lives in Faro now."],
  ["My oldest is at university in Leeds.", "My youngest just started university in Bristol."],
  // health
  ["I take metformin every morning.", "I also take vitamin D now."],
  ["My blood pressure medication is lisinopril.", "My cholesterol medication is atorvastatin now."],
  ["My health insurance is with TK.", "I switched my car insurance to HUK."],
  ["My physiotherapist is Anja.", "My new psychotherapist is Dr. Roth."],
  // work
  ["I work from home on Mondays.", "My team works from the office on Mondays now."],
  ["My boss drives a BMW.", "I drive a Skoda now."],
  ["I get paid on the 25th.", "My rent is due on the 1st now."],
  ["I work as a data engineer.", "I worked as a teacher for five years."],
  // money
  ["My credit card is with Amex.", "My debit card is with Revolut now."],
  ["I save 300 euros a month for retirement.", "I now save 200 euros a month for the holiday fund."],
  ["My mortgage rate is 3.1 percent.", "My savings account pays 2.5 percent now."],
  ["I use my Visa card for groceries.", "I use my Mastercard for travel now."],
  // travel
  ["My parking spot is number 14.", "My bike spot in the garage is number 3 now."],
  ["We're staying at the Hilton in Rome.", "In Florence we're staying at an Airbnb."],
  ["My passport is valid until 2027.", "My new ID card is valid until 2031."],
  // hobbies
  ["I play bass in a band.", "I now play guitar at church on Sundays."],
  ["I run 10k on Saturdays.", "I now swim 2k on Wednesdays."],
  ["I'm reading Dune.", "My book club is reading Middlemarch now."],
  // software teams
  ["Our unit tests run on pytest.", "Our end-to-end tests run on Playwright now."],
  ["Our staging database has 2 replicas.", "Our production database has 5 replicas now."],
  ["Our mobile team uses Kotlin.", "Our web team switched to Svelte."],
  ["The first sprint review is on Tuesday.", "The second sprint review is on Thursday now."],
  ["I use Notion for work.", "I now use Apple Notes for shopping lists."],
  // devices
  ["My phone is an iPhone 13.", "My tablet is a Galaxy Tab now."],
  ["My watch is a Garmin Forerunner.", "My son's watch is an Apple Watch now."],
  // schedules
  ["My lunch break is at 12:30.", "My coffee break is at 15:00 now."],
  ["My alarm goes off at 6:15 on weekdays.", "On weekends my alarm is at 8 now."],
  // food
  ["I drink oat milk.", "My daughter drinks almond milk now."],
  ["My go-to breakfast is porridge.", "My go-to dinner these days is stir-fry."],
  ["I order groceries from Rewe.", "I order my meal kits from HelloFresh now."],
  // housing
  ["Our landlord is Mr. Haas.", "Our property manager is Ms. Vogel now."],
  ["My heating bill is 80 euros a month.", "My electricity bill is 60 euros a month now."],
  // pets
  ["My dog eats Royal Canin.", "My new puppy eats Acana."],
  ["Our vet is Dr. Klein.", "Our dog groomer is Paws & Co now."],
  // education
  ["I'm studying for a master's in economics.", "My wife is studying for a PhD in chemistry now."],
  ["My French class is on Tuesday evenings.", "My pottery class is on Thursday evenings now."],
  // plan/wish
  ["I live in Vienna.", "I'd love to retire in Crete someday."],
];

/** Changes phrased as people tell them, written with the second set of near misses and never tuned on. */
export const HELD_OUT_SAID_CHANGES: Pair[] = [
  ["I work out at McFit.", "McFit was too crowded so I joined Urban Sports Club instead."],
  ["My doctor is Dr. Braun.", "Dr. Braun retired, Dr. Aksoy is looking after me now."],
  ["We live in a flat in Neukölln.", "We bought a house in Potsdam and moved in last month."],
  ["I'm on 10mg of escitalopram.", "My doctor bumped my escitalopram up to 15mg."],
  ["Our daughter goes to the Lindenschule.", "Our daughter transferred to the Montessori school this term."],
  ["The kids' swimming lessons are on Saturday mornings.", "Swimming lessons are on Sunday mornings from now on."],
  ["My laptop is a Dell XPS.", "My Dell died, so I'm on a MacBook Pro now."],
  ["Our team tracks tasks in Trello.", "We ditched Trello, all our tasks are in Asana now."],
  ["I weigh 92 kilos.", "I'm down to 84 kilos."],
  ["My salary is 55k.", "After the raise I make 61k."],
  ["I'm renting a Fiat 500 for the trip.", "The rental company swapped my Fiat for a Peugeot 208."],
  ["Our vet is Dr. Klein.", "We changed vets, the dogs go to Tierarztpraxis Süd now."],
  ["The kickoff meeting is on Monday at 10.", "The kickoff got moved to Tuesday at 2."],
  ["My flight to Boston leaves at 7am.", "The airline rebooked me on the 11am flight to Boston."],
  ["I'm single.", "I'm engaged to Marco now."],
];

export const HELD_OUT_STORED_CHANGES: Pair[] = [
  ["User's insurance company is Allianz", "User cancelled Allianz and is insured with AXA now"],
  ["User's son's teacher is Mr. Dale", "User's son has a new teacher, Ms. Hart"],
  ["The team's sprint planning is on Monday mornings", "Sprint planning was shifted to Tuesday afternoons"],
  ["The team deploys with Capistrano", "The team retired Capistrano in favour of Kamal"],
  ["User's blood pressure medication is amlodipine", "User's doctor switched the blood pressure medication from amlodipine to losartan"],
  ["User's daily step goal is 8,000", "User raised the daily step goal to 10,000"],
  ["User's commute takes 45 minutes", "User's commute is down to 20 minutes since the move"],
  ["User's dog weighs 12 kilos", "User's dog is up to 15 kilos"],
  ["The team's paging tool is Opsgenie", "The team migrated paging from Opsgenie to PagerDuty"],
  ["User's nickname in the guild is Frosty", "User goes by Ember in the guild these days"],
  ["User's flat is in Altona", "User has moved into a flat in Eimsbüttel"],
  ["User's mortgage rate is 3.9 percent", "User refinanced and the mortgage rate is 3.2 percent now"],
  ["The product's free trial lasts 14 days", "The free trial was shortened to 7 days"],
  ["User's default shell is bash", "User made zsh the default shell"],
  ["User's favourite podcast is Radiolab", "User's new favourite podcast is Hard Fork"],
];
