/**
 * Knowledge-update set for scripts/bench/knowledge-update.ts: facts that change over time, told in
 * conversation sessions days or weeks apart, and facts that must not be replaced by a later one.
 *
 *  - Change cases: a subject (mostly the user; also the user's team, project, partner and sister),
 *    an attribute and a chain of 2–4 values: the original, stated plainly ("I live in Berlin."),
 *    then one to three changes, each in a later session, in the forms people use ("I moved to
 *    Lisbon.", "Priya left and Sam is our new manager.", "The deadline got pushed to June 28.").
 *    Two questions: the current value and the one it replaced.
 *  - Stable cases: a fact, then later a fact about another attribute of the same subject that
 *    must not replace it ("I have a sister, Julia." then "I have a brother, Luis."), and a
 *    question about the first.
 *
 * Every statement comes twice: as the user says it in a conversation (for /v1/ingest) and as an
 * agent stores it ("User moved to Lisbon", for /v1/store). Values are matched in a memory's content
 * as case-insensitive substrings, so within a case no value contains another, no question names a
 * value, and no distractor or small talk of the case's wallet contains one
 * (test/unit/knowledge-update-set.test.ts holds the set to that).
 *
 * The cases are fixed. `planWallet` lays a case out in sessions with ~20 unrelated distractor facts
 * and some small talk, chosen and dated by the seed.
 */
import { prng } from "./synthetic.ts";

export type Subject = "user" | "team" | "project" | "partner" | "sister";

/** One fact in two voices: what the user says in a conversation, and what an agent stores. */
export interface Statement {
  said: string;
  stored: string;
}

export interface ChangeCase {
  kind: "change";
  id: string;
  subject: Subject;
  attribute: string;
  /** the original value, then each change in order */
  values: string[];
  /** statements[k] states values[k]: the first plainly, each later one as a change */
  statements: Statement[];
  questions: { current: string; former: string };
}

export interface StableCase {
  kind: "stable";
  id: string;
  subject: Subject;
  attribute: string;
  /** the later fact's attribute */
  otherAttribute: string;
  /** [the first fact's value, the later fact's value] */
  values: [string, string];
  /** [the first fact, the later fact about another attribute that must not replace it] */
  statements: [Statement, Statement];
  /** asks for the first fact */
  question: string;
}

export type KnowledgeCase = ChangeCase | StableCase;

// ---------------------------------------------------------------------------------------------------
// templates: {v} a value, {o} the value being replaced, {n} the new one; {a:x} is x with "a"/"an"

type Form = [said: string, stored: string];

function fill(template: string, slots: Record<string, string>): string {
  return template
    .replace(/\{a:(\w)\}/g, (_, k: string) => `${/^[aeiou]/i.test(slots[k]!) ? "an" : "a"} ${slots[k]}`)
    .replace(/\{(\w)\}/g, (_, k: string) => slots[k]!);
}

const state = ([said, stored]: Form, slots: Record<string, string>): Statement => ({ said: fill(said, slots), stored: fill(stored, slots) });

interface Topic {
  attribute: string;
  subject: Subject;
  /** at least 5 values; a case's chain is drawn from them */
  pool: string[];
  /** changes only move forward through the pool (versions, a postponed date, a promotion) */
  ordered?: boolean;
  first: Form[];
  change: Form[];
  current: string;
  former: string;
}

const TOPICS: Topic[] = [
  // --- the user -----------------------------------------------------------------------------------
  {
    attribute: "city", subject: "user",
    pool: ["Berlin", "Lisbon", "Madrid", "Vienna", "Toronto", "Melbourne", "Prague"],
    first: [["I live in {v}.", "User lives in {v}"], ["I'm based in {v}.", "User is based in {v}"]],
    change: [
      ["I moved to {n}.", "User moved to {n}"],
      ["We finally relocated from {o} to {n}.", "User relocated from {o} to {n}"],
      ["I live in {n} now.", "User now lives in {n}"],
      ["Big news: I left {o}, my new home is {n}.", "User's home is now {n}"],
    ],
    current: "Where does the user live?", former: "Where did the user live before?",
  },
  {
    attribute: "job", subject: "user",
    pool: ["teacher", "nurse", "data analyst", "product manager", "architect", "pharmacist", "graphic designer"],
    first: [["I work as {a:v}.", "User works as {a:v}"], ["I'm {a:v}.", "User is {a:v}"]],
    change: [
      ["I now work as {a:n}.", "User now works as {a:n}"],
      ["I switched from being {a:o} to {a:n}.", "User switched careers from {o} to {n}"],
      ["I quit my job as {a:o}, I'm {a:n} now.", "User is now {a:n}"],
      ["Career change: I started as {a:n} this month.", "User started a new career as {a:n}"],
    ],
    current: "What does the user do for a living?", former: "What was the user's previous job?",
  },
  {
    attribute: "employer", subject: "user",
    pool: ["Siemens", "Spotify", "Zalando", "Shopify", "Atlassian", "Deutsche Bahn", "Klarna"],
    first: [["I work at {v}.", "User works at {v}"], ["My employer is {v}.", "User's employer is {v}"]],
    change: [
      ["I joined {n} last week.", "User joined {n}"],
      ["I left {o} and started at {n}.", "User left {o} and now works at {n}"],
      ["New job: I work for {n} now.", "User now works for {n}"],
      ["I handed in my notice at {o}; starting Monday I'm with {n}.", "User's employer is now {n}"],
    ],
    current: "Which company does the user work for?", former: "Which company did the user work for before?",
  },
  {
    attribute: "manager", subject: "user",
    pool: ["Priya", "Marcus", "Elena", "Kenji", "Fatima", "Oliver", "Ingrid"],
    first: [["My manager is {v}.", "User's manager is {v}"], ["I report to {v}.", "User reports to {v}"]],
    change: [
      ["{o} left and {n} is our new manager.", "User's new manager is {n}"],
      ["I report to {n} now.", "User now reports to {n}"],
      ["Reorg happened: {n} replaced {o} as my manager.", "{n} replaced {o} as User's manager"],
      ["My new manager is {n}.", "User's manager is now {n}"],
    ],
    current: "Who is the user's manager?", former: "Who was the user's previous manager?",
  },
  {
    attribute: "phone number", subject: "user",
    pool: ["+49 151 2345 6789", "+49 170 555 0142", "+351 912 345 678", "+44 7700 900123", "+1 415 555 0199", "+34 612 345 987"],
    first: [["My phone number is {v}.", "User's phone number is {v}"], ["You can reach me on {v}.", "User's phone number is {v}"]],
    change: [
      ["My new number is {n}.", "User's new phone number is {n}"],
      ["I changed my phone number to {n}.", "User changed phone number to {n}"],
      ["New phone: {n}. The old {o} is dead.", "User's phone number is now {n}"],
    ],
    current: "What is the user's phone number?", former: "What was the user's old phone number?",
  },
  {
    attribute: "email", subject: "user",
    pool: ["anna.k@fastmail.com", "anna.keller@proton.me", "akeller@gmail.com", "anna@keller.dev", "a.keller@outlook.com", "keller.anna@posteo.de"],
    first: [["My email is {v}.", "User's email is {v}"], ["Send things to {v}, that's my email.", "User's email address is {v}"]],
    change: [
      ["new email: {n}", "User's new email is {n}"],
      ["I changed my email to {n}.", "User changed email address to {n}"],
      ["Please use {n} from now on, I closed the {o} account.", "User's email is now {n}"],
    ],
    current: "What is the user's email address?", former: "What was the user's old email address?",
  },
  {
    attribute: "address", subject: "user",
    pool: ["14 Baker Street", "Rua Augusta 120", "Kastanienallee 7", "221 Maple Avenue", "Calle Mayor 18", "Lindenstrasse 42"],
    first: [["My address is {v}.", "User's address is {v}"], ["I live at {v}.", "User lives at {v}"]],
    change: [
      ["I changed my address to {n}.", "User changed address to {n}"],
      ["My new address is {n}.", "User's new address is {n}"],
      ["We moved out of {o}; post goes to {n} now.", "User's address is now {n}"],
    ],
    current: "What is the user's home address?", former: "What was the user's previous address?",
  },
  {
    attribute: "diet", subject: "user",
    pool: ["vegetarian", "pescatarian", "vegan", "keto", "flexitarian", "paleo"],
    first: [["I'm {v}.", "User is {v}"], ["I follow {a:v} diet.", "User follows {a:v} diet"]],
    change: [
      ["I'm no longer {o}, I'm {n} now.", "User is no longer {o}; now {n}"],
      ["I switched from {o} to {n}.", "User switched from {o} to {n}"],
      ["I went {n} this month.", "User is now {n}"],
      ["Not {o} anymore; I'm strictly {n} these days.", "User is strictly {n} now"],
    ],
    current: "What diet does the user follow?", former: "What diet did the user follow before?",
  },
  {
    attribute: "car", subject: "user",
    pool: ["Corolla", "Tesla", "Volkswagen Golf", "Honda Civic", "Volvo XC40", "Polestar 2", "Fiat Panda"],
    first: [["I drive a {v}.", "User drives a {v}"], ["My car is a {v}.", "User's car is a {v}"]],
    change: [
      ["I sold my {o} and bought a {n}.", "User sold the {o} and bought a {n}"],
      ["I traded in the {o} for a {n}.", "User traded in the {o} for a {n}"],
      ["Got a new car: a {n}.", "User's new car is a {n}"],
    ],
    current: "What car does the user drive?", former: "What car did the user drive before?",
  },
  {
    attribute: "gym", subject: "user",
    pool: ["FitX", "McFit", "Holmes Place", "John Reed", "Urban Sports Club", "Crunch Fitness"],
    first: [["I train at {v}.", "User trains at {v}"], ["My gym is {v}.", "User's gym is {v}"]],
    change: [
      ["I cancelled {o} and signed up at {n}.", "User cancelled {o} and joined {n}"],
      ["I switched gyms, I'm at {n} now.", "User now trains at {n}"],
      ["New gym: {n}.", "User's gym is now {n}"],
    ],
    current: "Which gym does the user go to?", former: "Which gym did the user go to before?",
  },
  {
    attribute: "editor", subject: "user",
    pool: ["Vim", "VS Code", "Emacs", "Helix", "Zed", "Sublime Text"],
    first: [["I use {v} as my editor.", "User uses {v} as editor"], ["I write all my code in {v}.", "User writes code in {v}"]],
    change: [
      ["I switched from {o} to {n}.", "User switched from {o} to {n}"],
      ["I moved my whole setup to {n}.", "User moved setup to {n}"],
      ["I'm on {n} now, gave up on {o}.", "User now uses {n}"],
    ],
    current: "Which code editor does the user use?", former: "Which code editor did the user use before?",
  },
  {
    attribute: "programming language", subject: "user",
    pool: ["Python", "Rust", "Kotlin", "TypeScript", "Elixir", "Scala"],
    first: [["My main language at work is {v}.", "User's main language at work is {v}"], ["I mostly write {v} at work.", "User mostly writes {v} at work"]],
    change: [
      ["I mostly write {n} now.", "User now mostly writes {n}"],
      ["We rewrote everything, so I'm writing {n} these days instead of {o}.", "User writes {n} instead of {o}"],
      ["My main language at work changed to {n}.", "User's main language at work is now {n}"],
    ],
    current: "Which programming language does the user mainly write at work?", former: "Which programming language did the user mainly write before?",
  },
  {
    attribute: "laptop OS", subject: "user",
    pool: ["Ubuntu", "macOS", "Windows 11", "Fedora", "Arch Linux", "NixOS"],
    first: [["My laptop runs {v}.", "User's laptop runs {v}"]],
    change: [
      ["I wiped the laptop and installed {n}.", "User's laptop now runs {n}"],
      ["I switched the laptop from {o} to {n}.", "User switched laptop from {o} to {n}"],
      ["The laptop is on {n} now.", "User's laptop runs {n}"],
    ],
    current: "Which operating system runs on the user's laptop?", former: "Which operating system did the user's laptop run before?",
  },
  {
    attribute: "bank", subject: "user",
    pool: ["N26", "Revolut", "Monzo", "Commerzbank", "Sparkasse", "bunq"],
    first: [["I bank with {v}.", "User banks with {v}"], ["My bank is {v}.", "User's bank is {v}"]],
    change: [
      ["I closed my {o} account and opened one at {n}.", "User closed the {o} account and banks with {n}"],
      ["I moved my money to {n}.", "User now banks with {n}"],
      ["My bank is {n} now.", "User's bank is now {n}"],
    ],
    current: "Which bank does the user use?", former: "Which bank did the user use before?",
  },
  {
    attribute: "language studied", subject: "user",
    pool: ["Spanish", "Japanese", "Italian", "Korean", "Portuguese", "Greek"],
    first: [["I'm learning {v}.", "User is learning {v}"], ["I take {v} lessons twice a week.", "User takes {v} lessons"]],
    change: [
      ["I dropped {o} and started learning {n}.", "User dropped {o} and started learning {n}"],
      ["I'm learning {n} now.", "User is now learning {n}"],
      ["Switched my lessons from {o} to {n}.", "User switched lessons from {o} to {n}"],
    ],
    current: "Which language is the user learning?", former: "Which language was the user learning before?",
  },
  {
    attribute: "sport", subject: "user",
    pool: ["tennis", "padel", "squash", "badminton", "volleyball", "climbing"],
    first: [["I play {v} on weekends.", "User plays {v} on weekends"]],
    change: [
      ["I gave up {o} and do {n} now.", "User gave up {o} for {n}"],
      ["I switched from {o} to {n}.", "User switched from {o} to {n}"],
      ["These days my sport is {n}.", "User's sport is now {n}"],
    ],
    current: "Which sport does the user do?", former: "Which sport did the user do before?",
  },
  {
    attribute: "mobile carrier", subject: "user",
    pool: ["Vodafone", "Telekom", "Lebara", "Aldi Talk", "Congstar", "Fonic"],
    first: [["My mobile carrier is {v}.", "User's mobile carrier is {v}"], ["I'm with {v} for my phone contract.", "User's phone contract is with {v}"]],
    change: [
      ["I ported my number from {o} to {n}.", "User switched mobile carrier from {o} to {n}"],
      ["My phone contract is with {n} now.", "User's phone contract is now with {n}"],
      ["I switched carriers to {n}.", "User's mobile carrier is now {n}"],
    ],
    current: "Which mobile carrier is the user with?", former: "Which mobile carrier was the user with before?",
  },
  {
    attribute: "password manager", subject: "user",
    pool: ["1Password", "Bitwarden", "KeePassXC", "Dashlane", "LastPass", "Proton Pass"],
    first: [["I keep my passwords in {v}.", "User keeps passwords in {v}"]],
    change: [
      ["I moved my passwords from {o} to {n}.", "User moved passwords from {o} to {n}"],
      ["My password manager is {n} now.", "User's password manager is now {n}"],
      ["Ditched {o}; everything lives in {n} now.", "User now uses {n} for passwords"],
    ],
    current: "Which password manager does the user use?", former: "Which password manager did the user use before?",
  },
  {
    attribute: "dentist", subject: "user",
    pool: ["Dr. Weber", "Dr. Lang", "Dr. Okafor", "Dr. Silva", "Dr. Novak", "Dr. Brandt"],
    first: [["My dentist is {v}.", "User's dentist is {v}"]],
    change: [
      ["I switched to {n} as my dentist.", "User's dentist is now {n}"],
      ["{o} retired, so I see {n} now.", "User now sees {n} as dentist"],
      ["New dentist: {n}.", "User's new dentist is {n}"],
    ],
    current: "Who is the user's dentist?", former: "Who was the user's dentist before?",
  },
  {
    attribute: "department", subject: "user",
    pool: ["Payments", "Search", "Growth", "Platform", "Identity", "Checkout"],
    first: [["I'm on the {v} team.", "User is on the {v} team"], ["I work in the {v} team.", "User works in the {v} team"]],
    change: [
      ["I moved to the {n} team.", "User moved to the {n} team"],
      ["I transferred from {o} to {n}.", "User transferred from the {o} team to the {n} team"],
      ["I'm on {n} now.", "User is now on the {n} team"],
    ],
    current: "Which team is the user on?", former: "Which team was the user on before?",
  },
  {
    attribute: "job title", subject: "user", ordered: true,
    pool: ["Junior Developer", "Software Engineer", "Senior Engineer", "Staff Engineer", "Principal Engineer"],
    first: [["My title is {v}.", "User's job title is {v}"]],
    change: [
      ["I got promoted to {n}!", "User was promoted to {n}"],
      ["My title changed from {o} to {n}.", "User's title changed from {o} to {n}"],
      ["Officially {n} as of this month.", "User's job title is now {n}"],
    ],
    current: "What is the user's job title?", former: "What was the user's job title before?",
  },
  {
    attribute: "rent", subject: "user", ordered: true,
    pool: ["€950", "€1,080", "€1,240", "€1,390", "€1,575"],
    first: [["My rent is {v} a month.", "User's rent is {v} a month"]],
    change: [
      ["The landlord raised my rent to {n}.", "User's rent was raised to {n} a month"],
      ["Rent went up from {o} to {n}.", "User's rent went up from {o} to {n}"],
      ["I pay {n} a month now.", "User now pays {n} rent a month"],
    ],
    current: "How much rent does the user pay?", former: "How much rent did the user pay before?",
  },
  {
    attribute: "appointment", subject: "user",
    pool: ["March 9", "March 23", "April 11", "April 25", "May 16", "May 30"],
    first: [["My doctor's appointment is on {v}.", "User's doctor's appointment is on {v}"]],
    change: [
      ["The doctor's office moved my appointment to {n}.", "User's doctor's appointment moved to {n}"],
      ["I rescheduled the doctor's appointment from {o} to {n}.", "User rescheduled the doctor's appointment to {n}"],
      ["My appointment is on {n} now.", "User's doctor's appointment is now on {n}"],
    ],
    current: "When is the user's doctor's appointment?", former: "When was the user's doctor's appointment originally?",
  },
  {
    attribute: "vacation", subject: "user",
    pool: ["Crete", "Sicily", "Iceland", "the Azores", "Sardinia", "Norway"],
    first: [["We're going to {v} for our summer vacation.", "User's summer vacation is in {v}"]],
    change: [
      ["We changed the plan to {n}.", "User changed the vacation plan to {n}"],
      ["Scratch {o}, we booked {n} for the summer.", "User booked {n} for the summer vacation"],
      ["Our summer trip is to {n} now.", "User's summer vacation is now in {n}"],
    ],
    current: "Where is the user going on summer vacation?", former: "Where was the user planning to go on vacation before?",
  },
  {
    attribute: "streaming service", subject: "user",
    pool: ["Netflix", "Disney+", "HBO Max", "Apple TV+", "Mubi", "Paramount+"],
    first: [["We pay for {v}.", "User subscribes to {v}"]],
    change: [
      ["We cancelled {o} and got {n}.", "User cancelled {o} and subscribed to {n}"],
      ["Our streaming subscription is {n} now.", "User's streaming subscription is now {n}"],
      ["Switched streaming to {n}.", "User switched streaming to {n}"],
    ],
    current: "Which streaming service does the user pay for?", former: "Which streaming service did the user pay for before?",
  },
  {
    attribute: "energy provider", subject: "user",
    pool: ["Octopus Energy", "Vattenfall", "Lichtblick", "Naturstrom", "Yello", "Tibber"],
    first: [["Our electricity comes from {v}.", "User's electricity provider is {v}"]],
    change: [
      ["We switched electricity providers to {n}.", "User switched electricity provider to {n}"],
      ["We left {o}; {n} supplies our power now.", "User's electricity now comes from {n}"],
      ["Our energy contract is with {n} now.", "User's energy contract is now with {n}"],
    ],
    current: "Who supplies the user's electricity?", former: "Who supplied the user's electricity before?",
  },
  {
    attribute: "coffee shop", subject: "user",
    pool: ["Bonanza", "The Barn", "Five Elephant", "Father Carpenter", "Distrikt", "Westberlin"],
    first: [["My regular coffee place is {v}.", "User's regular coffee place is {v}"]],
    change: [
      ["{o} closed, so my regular spot is {n} now.", "User's regular coffee place is now {n}"],
      ["I go to {n} for coffee these days.", "User now goes to {n} for coffee"],
      ["My new coffee place is {n}.", "User's new coffee place is {n}"],
    ],
    current: "Which coffee place does the user usually go to?", former: "Which coffee place did the user usually go to before?",
  },
  // --- the user's partner and sister -----------------------------------------------------------------
  {
    attribute: "partner's job", subject: "partner",
    pool: ["lawyer", "chef", "dentist", "pilot", "journalist", "electrician"],
    first: [["My partner works as {a:v}.", "User's partner works as {a:v}"]],
    change: [
      ["My partner quit being {a:o}, she's {a:n} now.", "User's partner is now {a:n}"],
      ["My partner got a new job as {a:n}.", "User's partner got a new job as {a:n}"],
      ["My partner retrained and works as {a:n} now.", "User's partner now works as {a:n}"],
    ],
    current: "What does the user's partner do for work?", former: "What was the user's partner's previous job?",
  },
  {
    attribute: "partner's employer", subject: "partner",
    pool: ["Charité", "Bosch", "Lufthansa", "Allianz", "Adidas", "Bayer"],
    first: [["My partner works at {v}.", "User's partner works at {v}"]],
    change: [
      ["My partner left {o} and joined {n}.", "User's partner left {o} and joined {n}"],
      ["My partner is at {n} now.", "User's partner now works at {n}"],
      ["My partner accepted an offer from {n}.", "User's partner now works at {n}"],
    ],
    current: "Where does the user's partner work?", former: "Where did the user's partner work before?",
  },
  {
    attribute: "sister's city", subject: "sister",
    pool: ["Hamburg", "Cologne", "Leipzig", "Dresden", "Munich", "Freiburg"],
    first: [["My sister lives in {v}.", "User's sister lives in {v}"]],
    change: [
      ["My sister moved to {n}.", "User's sister moved to {n}"],
      ["My sister left {o} for {n}.", "User's sister left {o} for {n}"],
      ["My sister lives in {n} now.", "User's sister now lives in {n}"],
    ],
    current: "Where does the user's sister live?", former: "Where did the user's sister live before?",
  },
  // --- the user's team --------------------------------------------------------------------------------
  {
    attribute: "team lead", subject: "team",
    pool: ["Sofia", "Rahul", "Hannah", "Diego", "Meiling", "Lars"],
    first: [["Our team lead is {v}.", "The team's lead is {v}"]],
    change: [
      ["{o} left and {n} is our new team lead.", "{n} is the team's new lead"],
      ["{n} took over as team lead from {o}.", "{n} took over as team lead from {o}"],
      ["Our new team lead is {n}.", "The team's lead is now {n}"],
    ],
    current: "Who leads the user's team?", former: "Who was the team lead before?",
  },
  {
    attribute: "meeting day", subject: "team",
    pool: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    first: [["Our weekly team sync is on {v}.", "The team's weekly sync is on {v}"]],
    change: [
      ["We moved the weekly sync to {n}.", "The team moved the weekly sync to {n}"],
      ["The sync is on {n} now instead of {o}.", "The team's weekly sync is now on {n}"],
      ["From next week the team sync happens on {n}.", "The weekly team sync is on {n}"],
    ],
    current: "What day is the team's weekly sync?", former: "What day was the weekly sync before?",
  },
  {
    attribute: "frontend framework", subject: "team",
    pool: ["React", "Vue", "Svelte", "Angular", "SolidJS", "Ember"],
    first: [["Our frontend is built with {v}.", "The team's frontend is built with {v}"]],
    change: [
      ["We migrated the frontend from {o} to {n}.", "The team migrated the frontend from {o} to {n}"],
      ["The frontend is on {n} now.", "The frontend now uses {n}"],
      ["We rewrote the frontend in {n}.", "The team rewrote the frontend in {n}"],
    ],
    current: "Which frontend framework does the team use?", former: "Which frontend framework did the team use before?",
  },
  {
    attribute: "database", subject: "team",
    pool: ["MySQL", "Postgres", "MongoDB", "CockroachDB", "SQLite", "DynamoDB"],
    first: [["Our main database is {v}.", "The team's main database is {v}"]],
    change: [
      ["We moved off {o} and onto {n}.", "The team moved from {o} to {n}"],
      ["The team switched the database to {n}.", "The team switched the database to {n}"],
      ["Our main database is {n} now.", "The team's main database is now {n}"],
    ],
    current: "Which database does the team use?", former: "Which database did the team use before?",
  },
  {
    attribute: "cloud provider", subject: "team",
    pool: ["AWS", "Google Cloud", "Azure", "Hetzner", "DigitalOcean", "Fly.io"],
    first: [["We host everything on {v}.", "The team hosts everything on {v}"]],
    change: [
      ["We migrated from {o} to {n}.", "The team migrated hosting from {o} to {n}"],
      ["We moved our infrastructure to {n}.", "The team's infrastructure is now on {n}"],
      ["Everything runs on {n} now.", "The team now hosts on {n}"],
    ],
    current: "Which cloud provider does the team host on?", former: "Which cloud provider did the team use before?",
  },
  {
    attribute: "CI", subject: "team",
    pool: ["Jenkins", "GitHub Actions", "GitLab CI", "CircleCI", "Buildkite", "Drone"],
    first: [["Our CI runs on {v}.", "The team's CI runs on {v}"]],
    change: [
      ["We replaced {o} with {n}.", "The team replaced {o} with {n} for CI"],
      ["CI moved to {n}.", "The team's CI moved to {n}"],
      ["Our builds run on {n} now.", "The team's CI is now {n}"],
    ],
    current: "Which CI system does the team use?", former: "Which CI system did the team use before?",
  },
  {
    attribute: "deploy platform", subject: "team",
    pool: ["Kubernetes", "Nomad", "Docker Swarm", "Cloud Run", "Heroku", "Render"],
    first: [["We deploy our services on {v}.", "The team deploys services on {v}"]],
    change: [
      ["We moved our deployments from {o} to {n}.", "The team moved deployments from {o} to {n}"],
      ["Services deploy to {n} now.", "The team's services now deploy to {n}"],
      ["We're done with {o}, we deploy on {n}.", "The team now deploys on {n}"],
    ],
    current: "Where does the team deploy its services?", former: "Where did the team deploy its services before?",
  },
  {
    attribute: "test framework", subject: "team",
    pool: ["Jest", "Vitest", "Mocha", "Jasmine", "Bun test", "Tape"],
    first: [["Our unit tests run with {v}.", "The team's unit tests run with {v}"]],
    change: [
      ["We ported the unit tests from {o} to {n}.", "The team ported unit tests from {o} to {n}"],
      ["Unit tests use {n} now.", "The team's unit tests now use {n}"],
      ["We switched the test runner to {n}.", "The team switched the test runner to {n}"],
    ],
    current: "Which framework runs the team's unit tests?", former: "Which framework ran the team's unit tests before?",
  },
  {
    attribute: "monitoring", subject: "team",
    pool: ["Datadog", "Grafana", "New Relic", "Honeycomb", "Dynatrace", "Prometheus"],
    first: [["Our monitoring is on {v}.", "The team's monitoring is on {v}"]],
    change: [
      ["We cancelled {o} and moved monitoring to {n}.", "The team moved monitoring from {o} to {n}"],
      ["Monitoring runs on {n} now.", "The team's monitoring now runs on {n}"],
      ["Our dashboards are in {n} now.", "The team's monitoring dashboards are now in {n}"],
    ],
    current: "Which monitoring tool does the team use?", former: "Which monitoring tool did the team use before?",
  },
  {
    attribute: "message queue", subject: "team",
    pool: ["RabbitMQ", "Kafka", "NATS", "Amazon SQS", "Redis Streams", "Pulsar"],
    first: [["Our services talk through {v}.", "The team's services communicate through {v}"]],
    change: [
      ["We replaced {o} with {n} as our queue.", "The team replaced {o} with {n} as message queue"],
      ["Our message queue is {n} now.", "The team's message queue is now {n}"],
      ["Events go through {n} now.", "The team's events now go through {n}"],
    ],
    current: "Which message queue does the team use?", former: "Which message queue did the team use before?",
  },
  {
    attribute: "hosting region", subject: "team",
    pool: ["eu-central-1", "eu-west-1", "us-east-1", "ap-southeast-2", "eu-north-1"],
    first: [["Production runs in {v}.", "The team's production runs in {v}"]],
    change: [
      ["We moved production from {o} to {n}.", "The team moved production from {o} to {n}"],
      ["Production is in {n} now.", "The team's production is now in {n}"],
      ["The region migration is done: we're in {n}.", "The team's production region is now {n}"],
    ],
    current: "Which region does the team's production run in?", former: "Which region did production run in before?",
  },
  {
    attribute: "standup time", subject: "team",
    pool: ["9:15", "9:45", "10:30", "11:15", "13:30"],
    first: [["Our daily standup is at {v}.", "The team's daily standup is at {v}"]],
    change: [
      ["Standup moved to {n}.", "The team's standup moved to {n}"],
      ["We shifted standup from {o} to {n}.", "The team shifted standup from {o} to {n}"],
      ["Standup is at {n} now.", "The team's daily standup is now at {n}"],
    ],
    current: "What time is the team's daily standup?", former: "What time was the daily standup before?",
  },
  {
    attribute: "Postgres version", subject: "team", ordered: true,
    pool: ["Postgres 12", "Postgres 13", "Postgres 14", "Postgres 15", "Postgres 16", "Postgres 17"],
    first: [["The production database runs {v}.", "The team's production database runs {v}"]],
    change: [
      ["We upgraded to {n}.", "The team upgraded the production database to {n}"],
      ["The upgrade from {o} to {n} went through last night.", "The production database was upgraded from {o} to {n}"],
      ["Production is on {n} now.", "The team's production database now runs {n}"],
    ],
    current: "Which Postgres version does the production database run?", former: "Which Postgres version did production run before the upgrade?",
  },
  {
    attribute: "Node version", subject: "team", ordered: true,
    pool: ["Node 14", "Node 16", "Node 18", "Node 20", "Node 22"],
    first: [["The API service runs on {v}.", "The team's API service runs on {v}"]],
    change: [
      ["We bumped the API service to {n}.", "The team bumped the API service to {n}"],
      ["The API moved from {o} to {n}.", "The API service moved from {o} to {n}"],
      ["The API service is on {n} now.", "The API service now runs on {n}"],
    ],
    current: "Which Node version does the API service run on?", former: "Which Node version did the API service run on before?",
  },
  {
    attribute: "Python version", subject: "team", ordered: true,
    pool: ["Python 3.8", "Python 3.9", "Python 3.10", "Python 3.11", "Python 3.12"],
    first: [["Our data pipeline runs on {v}.", "The team's data pipeline runs on {v}"]],
    change: [
      ["We upgraded the pipeline to {n}.", "The team upgraded the data pipeline to {n}"],
      ["The pipeline went from {o} to {n}.", "The data pipeline moved from {o} to {n}"],
      ["The data pipeline is on {n} now.", "The data pipeline now runs on {n}"],
    ],
    current: "Which Python version does the data pipeline run on?", former: "Which Python version did the data pipeline run on before?",
  },
  // --- the project ------------------------------------------------------------------------------------
  {
    attribute: "deadline", subject: "project", ordered: true,
    pool: ["June 14", "June 28", "July 9", "July 23", "August 6", "August 20"],
    first: [["The deadline for the migration is {v}.", "The migration deadline is {v}"]],
    change: [
      ["The deadline got pushed to {n}.", "The migration deadline was pushed to {n}"],
      ["Heads up, the migration deadline moved from {o} to {n}.", "The migration deadline moved from {o} to {n}"],
      ["They moved the deadline again, it's {n} now.", "The migration deadline is now {n}"],
    ],
    current: "When is the migration deadline?", former: "What was the old migration deadline?",
  },
  {
    attribute: "release date", subject: "project", ordered: true,
    pool: ["March 3", "March 17", "April 7", "April 21", "May 12", "May 26"],
    first: [["The 2.0 release is planned for {v}.", "The 2.0 release is planned for {v}"]],
    change: [
      ["The release slipped to {n}.", "The 2.0 release slipped to {n}"],
      ["We moved the 2.0 release from {o} to {n}.", "The 2.0 release moved from {o} to {n}"],
      ["New release date for 2.0: {n}.", "The 2.0 release date is now {n}"],
    ],
    current: "When is the 2.0 release?", former: "When was the 2.0 release planned before?",
  },
  {
    attribute: "project name", subject: "project",
    pool: ["Falcon", "Nimbus", "Kestrel", "Orion", "Borealis", "Tundra"],
    first: [["The project is called {v}.", "The project is called {v}"]],
    change: [
      ["We renamed the project from {o} to {n}.", "The project was renamed from {o} to {n}"],
      ["The project's new name is {n}.", "The project's new name is {n}"],
      ["Marketing wants a new name, so the project is {n} now.", "The project is now called {n}"],
    ],
    current: "What is the project called?", former: "What was the project's old name?",
  },
  {
    attribute: "budget", subject: "project",
    pool: ["$40,000", "$55,000", "$32,000", "$70,000", "$25,000", "$48,000"],
    first: [["The budget for the redesign is {v}.", "The redesign budget is {v}"]],
    change: [
      ["The redesign budget changed to {n}.", "The redesign budget changed to {n}"],
      ["Finance approved {n} for the redesign, replacing the {o} we had.", "Finance approved {n} for the redesign"],
      ["The redesign budget is {n} now.", "The redesign budget is now {n}"],
    ],
    current: "What is the redesign budget?", former: "What was the redesign budget before?",
  },
  {
    attribute: "launch plan", subject: "project",
    pool: ["phased", "big-bang", "canary", "region-by-region", "invite-only"],
    first: [["The launch plan is {a:v} rollout.", "The launch plan is {a:v} rollout"]],
    change: [
      ["We changed the plan to {a:n} rollout.", "The launch plan changed to {a:n} rollout"],
      ["No more {o} launch, it's {a:n} rollout now.", "The launch is now {a:n} rollout"],
      ["The launch will be {n} instead.", "The launch plan is now {n}"],
    ],
    current: "What is the launch plan?", former: "What was the launch plan before?",
  },
  {
    attribute: "price", subject: "project",
    pool: ["€19", "€24", "€29", "€35", "€42"],
    first: [["The paid tier costs {v} per month.", "The paid tier costs {v} per month"]],
    change: [
      ["We raised the paid tier to {n} per month.", "The paid tier price was changed to {n} per month"],
      ["Pricing change: the paid tier is {n} now.", "The paid tier now costs {n} per month"],
      ["The paid tier went from {o} to {n}.", "The paid tier price went from {o} to {n}"],
    ],
    current: "How much does the paid tier cost?", former: "How much did the paid tier cost before?",
  },
];

/** Chain lengths cycled over a topic's cases: mostly one or two changes, some three. */
const CHAIN_LENGTHS = [2, 3, 2, 4, 3];
const casesPerTopic = (t: Topic) => (t.subject === "user" ? 5 : 4);

function chainOf(topic: Topic, k: number): string[] {
  const length = CHAIN_LENGTHS[k % CHAIN_LENGTHS.length]!;
  const n = topic.pool.length;
  if (topic.ordered) {
    // ascending through the pool: an upgrade or a postponement never goes back
    const start = k % (n - length + 1);
    return topic.pool.slice(start, start + length);
  }
  return Array.from({ length }, (_, j) => topic.pool[(2 * k + j) % n]!);
}

function changeCase(topic: Topic, k: number): ChangeCase {
  const values = chainOf(topic, k);
  const statements = values.map((v, j) =>
    j === 0
      ? state(topic.first[k % topic.first.length]!, { v })
      : state(topic.change[(k + j - 1) % topic.change.length]!, { o: values[j - 1]!, n: v }),
  );
  return {
    kind: "change",
    id: `${topic.attribute.replace(/\W+/g, "-").toLowerCase()}-${k + 1}`,
    subject: topic.subject,
    attribute: topic.attribute,
    values,
    statements,
    questions: { current: topic.current, former: topic.former },
  };
}

export const CHANGE_CASES: ChangeCase[] = TOPICS.flatMap((topic) => Array.from({ length: casesPerTopic(topic) }, (_, k) => changeCase(topic, k)));

// ---------------------------------------------------------------------------------------------------
// stable cases: a later fact about another attribute of the same subject

interface Pairing {
  attribute: string;
  subject: Subject;
  first: Form;
  other: Form;
  /** the other fact's attribute, so distractors on it stay out of the wallet */
  otherAttribute: string;
  question: string;
  values: [string, string][];
}

const PAIRINGS: Pairing[] = [
  { attribute: "sister", otherAttribute: "brother", subject: "user", first: ["I have a sister, {v}.", "User has a sister named {v}"], other: ["I have a brother, {v}.", "User has a brother named {v}"], question: "What is the name of the user's sister?", values: [["Julia", "Luis"], ["Marta", "Tomás"], ["Clara", "Jonas"]] },
  { attribute: "editor", otherAttribute: "terminal multiplexer", subject: "user", first: ["I use {v} as my editor.", "User uses {v} as editor"], other: ["I use {v} too.", "User also uses {v}"], question: "Which code editor does the user use?", values: [["Vim", "tmux"], ["Helix", "Zellij"]] },
  { attribute: "manager", otherAttribute: "mentor", subject: "user", first: ["My manager is {v}.", "User's manager is {v}"], other: ["My mentor is {v}.", "User's mentor is {v}"], question: "Who is the user's manager?", values: [["Priya", "Sam"], ["Marcus", "Leonie"]] },
  { attribute: "city", otherAttribute: "work city", subject: "user", first: ["I live in {v}.", "User lives in {v}"], other: ["I work in {v}.", "User works in {v}"], question: "Where does the user live?", values: [["Berlin", "Potsdam"], ["Oakland", "San Francisco"], ["Haarlem", "Amsterdam"]] },
  { attribute: "cat", otherAttribute: "dog", subject: "user", first: ["I have a cat named {v}.", "User has a cat named {v}"], other: ["I also have a dog named {v}.", "User also has a dog named {v}"], question: "What is the user's cat called?", values: [["Miso", "Bruno"], ["Pixel", "Rocky"]] },
  { attribute: "work language", otherAttribute: "hobby language", subject: "user", first: ["I write {v} at work.", "User writes {v} at work"], other: ["At home I tinker with {v}.", "User tinkers with {v} at home"], question: "Which programming language does the user write at work?", values: [["Python", "Rust"], ["Kotlin", "Elixir"]] },
  { attribute: "job", otherAttribute: "partner's job", subject: "user", first: ["I work as {a:v}.", "User works as {a:v}"], other: ["My partner works as {a:v}.", "User's partner works as {a:v}"], question: "What is the user's job?", values: [["teacher", "nurse"], ["architect", "pilot"]] },
  { attribute: "deadline", otherAttribute: "design review", subject: "project", first: ["The migration deadline is {v}.", "The migration deadline is {v}"], other: ["The design review is on {v}.", "The design review is on {v}"], question: "When is the migration deadline?", values: [["June 14", "June 21"], ["September 8", "September 2"]] },
  { attribute: "database", otherAttribute: "cache", subject: "team", first: ["Our main database is {v}.", "The team's main database is {v}"], other: ["We added {v} as a cache.", "The team added {v} as a cache"], question: "What is the team's main database?", values: [["Postgres", "Redis"], ["MySQL", "Memcached"]] },
  { attribute: "phone number", otherAttribute: "work phone", subject: "user", first: ["My phone number is {v}.", "User's phone number is {v}"], other: ["My work phone is {v}.", "User's work phone is {v}"], question: "What is the user's personal phone number?", values: [["+49 151 2345 6789", "+49 30 901820"], ["+44 7700 900123", "+44 20 7946 0018"]] },
  { attribute: "email", otherAttribute: "work email", subject: "user", first: ["My personal email is {v}.", "User's personal email is {v}"], other: ["My work email is {v}.", "User's work email is {v}"], question: "What is the user's personal email address?", values: [["anna.k@fastmail.com", "anna.keller@acme.io"], ["jon@hey.com", "jon.berg@initech.com"]] },
  { attribute: "address", otherAttribute: "office address", subject: "user", first: ["My home address is {v}.", "User's home address is {v}"], other: ["Our office is at {v}.", "User's office is at {v}"], question: "What is the user's home address?", values: [["Kastanienallee 7", "Friedrichstrasse 68"], ["221 Maple Avenue", "500 Market Street"]] },
  { attribute: "car", otherAttribute: "bike", subject: "user", first: ["I drive a {v}.", "User drives a {v}"], other: ["I also bought a {v} bike for the commute.", "User bought a {v} bike for commuting"], question: "What car does the user drive?", values: [["Corolla", "Brompton"], ["Volvo XC40", "Cannondale"]] },
  { attribute: "gym", otherAttribute: "yoga studio", subject: "user", first: ["I train at {v}.", "User trains at {v}"], other: ["I do yoga at {v}.", "User does yoga at {v}"], question: "Which gym does the user train at?", values: [["FitX", "Yoga Lounge"], ["Holmes Place", "Jivamukti"]] },
  { attribute: "favourite food", otherAttribute: "allergy", subject: "user", first: ["My favourite food is {v}.", "User's favourite food is {v}"], other: ["I'm allergic to {v}.", "User is allergic to {v}"], question: "What is the user's favourite food?", values: [["ramen", "peanuts"], ["paella", "shellfish"]] },
  { attribute: "CI", otherAttribute: "CD", subject: "team", first: ["Our CI runs on {v}.", "The team's CI runs on {v}"], other: ["Deploys go through {v}.", "The team's deploys go through {v}"], question: "Which CI system does the team use?", values: [["GitHub Actions", "Argo CD"], ["Jenkins", "Spinnaker"]] },
  { attribute: "cloud provider", otherAttribute: "CDN", subject: "team", first: ["We host on {v}.", "The team hosts on {v}"], other: ["Our CDN is {v}.", "The team's CDN is {v}"], question: "Which cloud does the team host on?", values: [["AWS", "Cloudflare"], ["Google Cloud", "Fastly"]] },
  { attribute: "frontend framework", otherAttribute: "backend language", subject: "team", first: ["Our frontend uses {v}.", "The team's frontend uses {v}"], other: ["The backend is written in {v}.", "The team's backend is written in {v}"], question: "Which framework does the team's frontend use?", values: [["React", "Golang"], ["Svelte", "Kotlin"]] },
  { attribute: "team lead", otherAttribute: "product owner", subject: "team", first: ["Our team lead is {v}.", "The team's lead is {v}"], other: ["Our product owner is {v}.", "The team's product owner is {v}"], question: "Who is the user's team lead?", values: [["Sofia", "Rahul"], ["Hannah", "Diego"]] },
  { attribute: "meeting day", otherAttribute: "retro day", subject: "team", first: ["Our weekly sync is on {v}.", "The team's weekly sync is on {v}"], other: ["Our retro is on {v}.", "The team's retro is on {v}"], question: "What day is the team's weekly sync?", values: [["Monday", "Thursday"], ["Wednesday", "Friday"]] },
  { attribute: "release date", otherAttribute: "beta date", subject: "project", first: ["The 2.0 release is planned for {v}.", "The 2.0 release is planned for {v}"], other: ["The public beta starts on {v}.", "The public beta starts on {v}"], question: "When is the 2.0 release?", values: [["April 7", "March 10"], ["May 26", "May 5"]] },
  { attribute: "budget", otherAttribute: "marketing budget", subject: "project", first: ["The redesign budget is {v}.", "The redesign budget is {v}"], other: ["The marketing budget is {v}.", "The marketing budget is {v}"], question: "What is the redesign budget?", values: [["$40,000", "$15,000"], ["$70,000", "$22,000"]] },
  { attribute: "home language", otherAttribute: "language studied", subject: "user", first: ["I speak {v} at home.", "User speaks {v} at home"], other: ["I'm learning {v}.", "User is learning {v}"], question: "Which language does the user speak at home?", values: [["German", "Japanese"], ["Dutch", "Spanish"]] },
  { attribute: "laptop OS", otherAttribute: "desktop OS", subject: "user", first: ["My laptop runs {v}.", "User's laptop runs {v}"], other: ["My desktop runs {v}.", "User's desktop runs {v}"], question: "Which operating system is on the user's laptop?", values: [["macOS", "Windows 11"], ["Fedora", "Arch Linux"]] },
  { attribute: "city", otherAttribute: "sister's city", subject: "user", first: ["I live in {v}.", "User lives in {v}"], other: ["My sister lives in {v}.", "User's sister lives in {v}"], question: "Which city does the user live in?", values: [["Munich", "Hamburg"], ["Lisbon", "Porto"]] },
  { attribute: "employer", otherAttribute: "partner's employer", subject: "user", first: ["I work at {v}.", "User works at {v}"], other: ["My partner works at {v}.", "User's partner works at {v}"], question: "Which company does the user work for?", values: [["Spotify", "Bosch"], ["Zalando", "Lufthansa"]] },
  { attribute: "dentist", otherAttribute: "GP", subject: "user", first: ["My dentist is {v}.", "User's dentist is {v}"], other: ["My GP is {v}.", "User's GP is {v}"], question: "Who is the user's dentist?", values: [["Dr. Weber", "Dr. Hassan"], ["Dr. Okafor", "Dr. Lindqvist"]] },
  { attribute: "sport", otherAttribute: "sport watched", subject: "user", first: ["I play {v} on weekends.", "User plays {v} on weekends"], other: ["I like watching {v} on TV.", "User likes watching {v} on TV"], question: "Which sport does the user play?", values: [["tennis", "cycling"], ["squash", "Formula 1"]] },
  { attribute: "Node version", otherAttribute: "CLI Node version", subject: "team", first: ["The API runs on {v}.", "The team's API runs on {v}"], other: ["The CLI still targets {v}.", "The team's CLI targets {v}"], question: "Which Node version does the API run on?", values: [["Node 20", "Node 18"], ["Node 22", "Node 16"]] },
  { attribute: "test framework", otherAttribute: "e2e framework", subject: "team", first: ["We use {v} for unit tests.", "The team uses {v} for unit tests"], other: ["End-to-end tests use {v}.", "The team's end-to-end tests use {v}"], question: "Which framework does the team use for unit tests?", values: [["Vitest", "Playwright"], ["Jest", "Cypress"]] },
  { attribute: "project name", otherAttribute: "app name", subject: "project", first: ["The project is called {v}.", "The project is called {v}"], other: ["The mobile app is called {v}.", "The mobile app is called {v}"], question: "What is the project called?", values: [["Falcon", "Sparrow"], ["Nimbus", "Cirrus"]] },
  { attribute: "standup time", otherAttribute: "lunch time", subject: "team", first: ["Our standup is at {v}.", "The team's standup is at {v}"], other: ["Team lunch is usually at {v}.", "The team's lunch is usually at {v}"], question: "What time is the team's standup?", values: [["9:15", "12:30"], ["10:30", "13:00"]] },
  { attribute: "password manager", otherAttribute: "2FA app", subject: "user", first: ["I keep my passwords in {v}.", "User keeps passwords in {v}"], other: ["I use {v} for two-factor codes.", "User uses {v} for two-factor codes"], question: "Which password manager does the user use?", values: [["Bitwarden", "Aegis"], ["1Password", "Authy"]] },
  { attribute: "diet", otherAttribute: "partner's diet", subject: "user", first: ["I'm {v}.", "User is {v}"], other: ["My partner is {v}.", "User's partner is {v}"], question: "What diet does the user follow?", values: [["vegetarian", "vegan"], ["pescatarian", "keto"]] },
  { attribute: "monitoring", otherAttribute: "error tracking", subject: "team", first: ["We use {v} for metrics.", "The team uses {v} for metrics"], other: ["Errors go to {v}.", "The team's errors go to {v}"], question: "Which tool does the team use for metrics?", values: [["Grafana", "Sentry"], ["Datadog", "Bugsnag"]] },
  { attribute: "message queue", otherAttribute: "cache", subject: "team", first: ["Our message queue is {v}.", "The team's message queue is {v}"], other: ["We cache sessions in {v}.", "The team caches sessions in {v}"], question: "Which message queue does the team use?", values: [["RabbitMQ", "Memcached"], ["Kafka", "Valkey"]] },
  { attribute: "hosting region", otherAttribute: "backup region", subject: "team", first: ["Production runs in {v}.", "The team's production runs in {v}"], other: ["Backups are stored in {v}.", "The team's backups are stored in {v}"], question: "Which region does production run in?", values: [["eu-central-1", "eu-west-1"], ["us-east-1", "us-west-2"]] },
  { attribute: "rent", otherAttribute: "parking", subject: "user", first: ["My rent is {v} a month.", "User's rent is {v} a month"], other: ["My parking spot costs {v} a month.", "User's parking spot costs {v} a month"], question: "How much rent does the user pay?", values: [["€1,240", "€95"], ["€980", "€120"]] },
  { attribute: "vacation", otherAttribute: "work trip", subject: "user", first: ["We're going to {v} for vacation in August.", "User's August vacation is in {v}"], other: ["I have a work trip to {v} in September.", "User has a work trip to {v} in September"], question: "Where is the user going on vacation?", values: [["Crete", "Warsaw"], ["Iceland", "Stockholm"]] },
  { attribute: "parents' city", otherAttribute: "grandmother's city", subject: "user", first: ["My parents live in {v}.", "User's parents live in {v}"], other: ["My grandmother lives in {v}.", "User's grandmother lives in {v}"], question: "Where do the user's parents live?", values: [["Bremen", "Kiel"], ["Valencia", "Alicante"]] },
  { attribute: "daughter", otherAttribute: "son", subject: "user", first: ["My daughter is called {v}.", "User's daughter is called {v}"], other: ["My son is called {v}.", "User's son is called {v}"], question: "What is the user's daughter's name?", values: [["Emma", "Noah"], ["Lina", "Felix"]] },
  { attribute: "birthday", otherAttribute: "partner's birthday", subject: "user", first: ["My birthday is {v}.", "User's birthday is {v}"], other: ["My partner's birthday is {v}.", "User's partner's birthday is {v}"], question: "When is the user's birthday?", values: [["October 3", "November 21"], ["February 9", "July 30"]] },
  { attribute: "bank", otherAttribute: "savings bank", subject: "user", first: ["My current account is at {v}.", "User's current account is at {v}"], other: ["I keep my savings at {v}.", "User keeps savings at {v}"], question: "Where is the user's current account?", values: [["N26", "Trade Republic"], ["Monzo", "Marcus by Goldman"]] },
  { attribute: "editor theme", otherAttribute: "editor font", subject: "user", first: ["My editor theme is {v}.", "User's editor theme is {v}"], other: ["My editor font is {v}.", "User's editor font is {v}"], question: "Which theme does the user's editor use?", values: [["Gruvbox", "JetBrains Mono"], ["Solarized", "Fira Code"]] },
  { attribute: "shell", otherAttribute: "terminal", subject: "user", first: ["My shell is {v}.", "User's shell is {v}"], other: ["My terminal is {v}.", "User's terminal is {v}"], question: "Which shell does the user use?", values: [["zsh", "Alacritty"], ["Nushell", "WezTerm"]] },
  { attribute: "team size", otherAttribute: "design team size", subject: "team", first: ["Our team has {v}.", "The team has {v}"], other: ["The design team has {v}.", "The design team has {v}"], question: "How many engineers are on the user's team?", values: [["8 engineers", "3 designers"], ["12 engineers", "5 designers"]] },
  { attribute: "laptop", otherAttribute: "monitor", subject: "user", first: ["My laptop is a {v}.", "User's laptop is a {v}"], other: ["I bought a {v} monitor.", "User bought a {v} monitor"], question: "Which laptop does the user have?", values: [["ThinkPad X1", "Dell U2723"], ["MacBook Air", "LG UltraFine"]] },
  { attribute: "morning drink", otherAttribute: "afternoon drink", subject: "user", first: ["I drink {v} in the morning.", "User drinks {v} in the morning"], other: ["In the afternoon I have {v}.", "User has {v} in the afternoon"], question: "What does the user drink in the morning?", values: [["espresso", "green tea"], ["filter coffee", "rooibos"]] },
  { attribute: "Postgres version", otherAttribute: "staging Postgres version", subject: "team", first: ["Production runs {v}.", "Production runs {v}"], other: ["Staging runs {v}.", "Staging runs {v}"], question: "Which Postgres version runs in production?", values: [["Postgres 16", "Postgres 17"], ["Postgres 14", "Postgres 15"]] },
  { attribute: "API framework", otherAttribute: "ORM", subject: "team", first: ["The API is built with {v}.", "The team's API is built with {v}"], other: ["We use {v} as the ORM.", "The team uses {v} as the ORM"], question: "Which framework is the team's API built with?", values: [["Express", "Prisma"], ["FastAPI", "SQLAlchemy"]] },
  { attribute: "employer", otherAttribute: "client", subject: "user", first: ["I work at {v}.", "User works at {v}"], other: ["Our biggest client is {v}.", "User's biggest client is {v}"], question: "Which company does the user work at?", values: [["Atlassian", "Telstra"], ["Klarna", "IKEA"]] },
  { attribute: "instrument", otherAttribute: "son's instrument", subject: "user", first: ["I play the {v}.", "User plays the {v}"], other: ["My son plays the {v}.", "User's son plays the {v}"], question: "Which instrument does the user play?", values: [["guitar", "violin"], ["cello", "trumpet"]] },
  { attribute: "car", otherAttribute: "partner's car", subject: "user", first: ["I drive a {v}.", "User drives a {v}"], other: ["My partner drives a {v}.", "User's partner drives a {v}"], question: "What car does the user drive?", values: [["Honda Civic", "Renault Clio"], ["Tesla", "Mini Cooper"]] },
  { attribute: "manager", otherAttribute: "skip-level manager", subject: "user", first: ["My manager is {v}.", "User's manager is {v}"], other: ["My manager's manager is {v}.", "User's skip-level manager is {v}"], question: "Who is the user's direct manager?", values: [["Elena", "Gregor"], ["Kenji", "Amara"]] },
  { attribute: "city", otherAttribute: "hometown", subject: "user", first: ["I live in {v}.", "User lives in {v}"], other: ["I grew up in {v}.", "User grew up in {v}"], question: "Where does the user live now?", values: [["Vienna", "Linz"], ["Toronto", "Halifax"]] },
];

function stableCase(p: Pairing, k: number): StableCase {
  const [a, b] = p.values[k]!;
  return {
    kind: "stable",
    id: `${p.attribute.replace(/\W+/g, "-").toLowerCase()}-vs-${p.otherAttribute.replace(/\W+/g, "-").toLowerCase()}-${k + 1}`,
    subject: p.subject,
    attribute: p.attribute,
    otherAttribute: p.otherAttribute,
    values: [a, b],
    statements: [state(p.first, { v: a }), state(p.other, { v: b })],
    question: p.question,
  };
}

export const STABLE_CASES: StableCase[] = PAIRINGS.flatMap((p) => p.values.map((_, k) => stableCase(p, k)));

/** The attributes a case's wallet states on purpose: distractors on them would be changes of their own. */
const attributesOf = (c: KnowledgeCase) => new Set(c.kind === "change" ? [c.attribute] : [c.attribute, c.otherAttribute]);

// ---------------------------------------------------------------------------------------------------
// distractors and small talk

interface Distractor {
  attribute: string;
  form: Form;
  pool: string[];
}

const DISTRACTORS: Distractor[] = [
  { attribute: "pet", form: ["I have a {v}.", "User has a {v}"], pool: ["golden retriever", "tabby cat", "pair of budgies", "bearded dragon"] },
  { attribute: "allergy", form: ["I'm allergic to {v}.", "User is allergic to {v}"], pool: ["hazelnuts", "penicillin", "pollen", "kiwi"] },
  { attribute: "favourite band", form: ["My favourite band is {v}.", "User's favourite band is {v}"], pool: ["Radiohead", "Daft Punk", "Fleetwood Mac", "Khruangbin"] },
  { attribute: "birthday", form: ["My birthday is {v}.", "User's birthday is {v}"], pool: ["October 3", "November 21", "February 9", "December 12"] },
  { attribute: "coffee", form: ["I take my coffee {v}.", "User takes coffee {v}"], pool: ["black", "with oat milk", "with a splash of cream"] },
  { attribute: "brother", form: ["I have {v}.", "User has {v}"], pool: ["two older brothers", "a younger brother in Graz", "a twin brother"] },
  { attribute: "favourite book", form: ["My favourite book is {v}.", "User's favourite book is {v}"], pool: ["Dune", "Middlemarch", "The Left Hand of Darkness", "Piranesi"] },
  { attribute: "hometown", form: ["I grew up in {v}.", "User grew up in {v}"], pool: ["Graz", "Lyon", "Bologna", "Gdansk"] },
  { attribute: "degree", form: ["I studied {v} at university.", "User studied {v} at university"], pool: ["physics", "history", "mechanical engineering", "linguistics"] },
  { attribute: "keyboard", form: ["I type on a {v} keyboard.", "User types on a {v} keyboard"], pool: ["split", "Colemak", "mechanical", "low-profile"] },
  { attribute: "bedtime", form: ["I usually go to bed around {v}.", "User usually goes to bed around {v}"], pool: ["11pm", "midnight", "half past ten"] },
  { attribute: "running", form: ["I run {v} every Sunday.", "User runs {v} every Sunday"], pool: ["10 km", "a half marathon", "5 km"] },
  { attribute: "instrument", form: ["I play the {v}.", "User plays the {v}"], pool: ["cello", "piano", "drums", "ukulele"] },
  { attribute: "son", form: ["My son is {v} years old.", "User's son is {v} years old"], pool: ["seven", "four", "eleven"] },
  { attribute: "alcohol", form: ["I don't drink {v}.", "User doesn't drink {v}"], pool: ["alcohol", "beer", "wine"] },
  { attribute: "commute", form: ["I commute by {v}.", "User commutes by {v}"], pool: ["bike", "tram", "S-Bahn", "ferry"] },
  { attribute: "notes app", form: ["I take notes in {v}.", "User takes notes in {v}"], pool: ["Obsidian", "Notion", "Logseq", "Apple Notes"] },
  { attribute: "browser", form: ["My browser is {v}.", "User's browser is {v}"], pool: ["Firefox", "Arc", "Brave", "Vivaldi"] },
  { attribute: "indentation", form: ["I prefer {v} for indentation.", "User prefers {v} for indentation"], pool: ["tabs", "two spaces", "four spaces"] },
  { attribute: "pull request size", form: ["I like pull requests under {v} lines.", "User likes pull requests under {v} lines"], pool: ["300", "400", "250"] },
  { attribute: "review turnaround", form: ["Our team reviews code within {v}.", "The team reviews code within {v}"], pool: ["one day", "four hours", "two days"] },
  { attribute: "deploy cadence", form: ["We deploy to production {v}.", "The team deploys to production {v}"], pool: ["twice a day", "every morning", "several times a week"] },
  { attribute: "billing service language", form: ["The billing service is written in {v}.", "The billing service is written in {v}"], pool: ["Java", "C#", "Ruby", "Clojure"] },
  { attribute: "log retention", form: ["We keep logs for {v} days.", "The team keeps logs for {v} days"], pool: ["30", "90", "14"] },
  { attribute: "theme", form: ["I prefer {v} mode everywhere.", "User prefers {v} mode everywhere"], pool: ["dark", "light"] },
  { attribute: "spoken language", form: ["I speak {v} fluently.", "User speaks {v} fluently"], pool: ["French", "Dutch", "Polish", "Turkish"] },
  { attribute: "travel", form: ["I visited {v} last spring.", "User visited {v} last spring"], pool: ["Japan", "Morocco", "Chile", "Vietnam"] },
  { attribute: "hiking", form: ["I go hiking in the {v} most summers.", "User goes hiking in the {v} most summers"], pool: ["Alps", "Dolomites", "Pyrenees", "Tatras"] },
  { attribute: "podcast", form: ["My favourite podcast is {v}.", "User's favourite podcast is {v}"], pool: ["Hardcore History", "99% Invisible", "Radiolab", "Changelog"] },
  { attribute: "demo day", form: ["Our team demos finished work every {v}.", "The team demos finished work every {v}"], pool: ["second week", "sprint end", "month end"] },
  { attribute: "office floor", form: ["Our office is on the {v} floor.", "The team's office is on the {v} floor"], pool: ["fourth", "second", "seventh"] },
  { attribute: "monitors", form: ["I work with {v}.", "User works with {v}"], pool: ["two monitors", "a single ultrawide", "three screens"] },
  { attribute: "tea", form: ["I drink {v} tea in the evening.", "User drinks {v} tea in the evening"], pool: ["mint", "chamomile", "ginger"] },
  { attribute: "cuisine", form: ["I love cooking {v} food.", "User loves cooking {v} food"], pool: ["Thai", "Ethiopian", "Georgian", "Sichuan"] },
  { attribute: "football club", form: ["I support {v}.", "User supports {v}"], pool: ["Borussia Dortmund", "Benfica", "Arsenal", "Celtic"] },
  { attribute: "balcony", form: ["I grow {v} on my balcony.", "User grows {v} on the balcony"], pool: ["tomatoes", "herbs", "chillies"] },
  { attribute: "key rotation", form: ["Our API keys rotate every {v} days.", "The team's API keys rotate every {v} days"], pool: ["90", "30", "60"] },
  { attribute: "repository layout", form: ["We keep all our code in a {v}.", "The team keeps all code in a {v}"], pool: ["monorepo", "handful of repositories"] },
  { attribute: "formatter", form: ["We format code with {v}.", "The team formats code with {v}"], pool: ["Prettier", "Biome", "Black", "gofmt"] },
  { attribute: "docs", form: ["Our docs live in {v}.", "The team's docs live in {v}"], pool: ["Confluence", "Docusaurus", "the repository's docs folder"] },
  { attribute: "license", form: ["The SDK is licensed under {v}.", "The SDK is licensed under {v}"], pool: ["MIT", "Apache 2.0", "BSD-3"] },
  { attribute: "game", form: ["I play {v} in the evenings.", "User plays {v} in the evenings"], pool: ["chess online", "Stardew Valley", "Go on a board"] },
  { attribute: "colour", form: ["My favourite colour is {v}.", "User's favourite colour is {v}"], pool: ["green", "teal", "burgundy"] },
  { attribute: "glasses", form: ["I wear {v}.", "User wears {v}"], pool: ["glasses for reading", "contact lenses", "glasses all day"] },
  { attribute: "staging reset", form: ["The staging environment resets every {v}.", "The staging environment resets every {v}"], pool: ["night", "weekend"] },
  { attribute: "sprint length", form: ["Our sprints are {v} long.", "The team's sprints are {v} long"], pool: ["two weeks", "three weeks", "one week"] },
  { attribute: "volunteering", form: ["I volunteer at {v} on Saturdays.", "User volunteers at {v} on Saturdays"], pool: ["a food bank", "the animal shelter", "a repair café"] },
  { attribute: "favourite film", form: ["My favourite film is {v}.", "User's favourite film is {v}"], pool: ["Spirited Away", "Heat", "Amélie", "Arrival"] },
  { attribute: "training goal", form: ["I'm training for {v}.", "User is training for {v}"], pool: ["a marathon", "a triathlon", "a 100 km bike ride"] },
  { attribute: "rate limit", form: ["Our public API allows {v} requests per minute.", "The public API allows {v} requests per minute"], pool: ["600", "1,000", "120"] },
  { attribute: "on-call", form: ["Our on-call shifts last {v}.", "The team's on-call shifts last {v}"], pool: ["one week", "three days"] },
  { attribute: "finances", form: ["I track my spending with {v}.", "User tracks spending with {v}"], pool: ["YNAB", "a spreadsheet", "Finanzguru"] },
  { attribute: "partner origin", form: ["My partner is from {v}.", "User's partner is from {v}"], pool: ["Ireland", "Brazil", "Ghana", "Finland"] },
  { attribute: "designer", form: ["Our designer is {v}.", "The team's designer is {v}"], pool: ["Noor", "Felix", "Ayumi", "Bastian"] },
  { attribute: "chronotype", form: ["I'm {v}.", "User is {v}"], pool: ["a night owl", "an early riser"] },
  { attribute: "error budget", form: ["Our error budget is {v} per month.", "The team's error budget is {v} per month"], pool: ["43 minutes", "0.1%", "two hours"] },
  { attribute: "vacation days", form: ["I get {v} vacation days a year.", "User gets {v} vacation days a year"], pool: ["28", "30", "25"] },
  { attribute: "houseplants", form: ["I keep {v} in my flat.", "User keeps {v} at home"], pool: ["a monstera", "too many succulents", "a lemon tree"] },
  { attribute: "code owner", form: ["{v} owns the auth service.", "{v} owns the auth service"], pool: ["Jun", "Beatriz", "Ole", "Yusuf"] },
  { attribute: "nickname", form: ["Friends call me {v}.", "User's friends call User {v}"], pool: ["Nini", "Bear", "Kiki"] },
  { attribute: "board game", form: ["Our team plays {v} on Fridays.", "The team plays {v} on Fridays"], pool: ["Codenames", "Catan", "Wingspan"] },
];

const OPENERS = ["Hi again!", "Morning.", "Hey, quick update.", "Hope your week is going well.", "Back after a long break.", "Okay, so.", "Hello!", "Thanks for yesterday."];
const CLOSERS = ["Anyway, thanks for the help.", "The weather here has been awful lately.", "Talk soon.", "Can you keep that in mind?", "Sorry for the rambling.", "That's all for now.", "Crazy week, honestly."];

export const DISTRACTORS_PER_WALLET = 20;

/** One item of a wallet: what the user says (with small talk for the case's facts) and what an agent stores. */
export interface WalletItem {
  said: string;
  stored: string;
  /** index into the case's values for the case's own statements; null for a distractor */
  value: number | null;
}

export interface WalletSession {
  id: string;
  /** days after the wallet's first session */
  day: number;
  items: WalletItem[];
}

const mentionsAny = (text: string, values: string[]) => values.some((v) => text.toLowerCase().includes(v.toLowerCase()));

/**
 * A case laid out in sessions days or weeks apart: one session per statement (the stable case's
 * second fact comes one or two sessions after its first), a last session of distractors only, and
 * DISTRACTORS_PER_WALLET distractors spread over all of them. The seed picks the distractors, their
 * values, the small talk, the gaps and the order within each session.
 */
export function planWallet(c: KnowledgeCase, seed: number): WalletSession[] {
  const rng = prng((seed * 1_000_003) ^ hash(c.id));
  const pick = <T>(xs: T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const own = attributesOf(c);
  const values = c.values;
  const gap = () => 3 + Math.floor(rng() * 26); // 3–28 days
  const slots = c.kind === "change" ? c.statements.map((_, k) => k) : [0, 1 + Math.floor(rng() * 2)];
  const sessionCount = slots.at(-1)! + 2;
  let day = 0;
  const sessions: WalletSession[] = Array.from({ length: sessionCount }, (_, i) => {
    if (i > 0) day += gap();
    return { id: `s${i + 1}`, day, items: [] };
  });
  c.statements.forEach((statement, k) => {
    const opener = rng() < 0.5 ? pick(OPENERS.filter((t) => !mentionsAny(t, values))) + " " : "";
    const closer = rng() < 0.5 ? " " + pick(CLOSERS.filter((t) => !mentionsAny(t, values))) : "";
    sessions[slots[k]!]!.items.push({ said: opener + statement.said + closer, stored: statement.stored, value: k });
  });
  const candidates = DISTRACTORS.filter((d) => !own.has(d.attribute));
  for (let i = 0; i < DISTRACTORS_PER_WALLET && candidates.length > 0; i++) {
    const d = candidates.splice(Math.floor(rng() * candidates.length), 1)[0]!;
    const usable = d.pool.map((v) => state(d.form, { v })).filter((s) => !mentionsAny(s.said + " " + s.stored, values));
    if (usable.length === 0) {
      i--;
      continue;
    }
    sessions[Math.floor(rng() * sessionCount)]!.items.push({ ...pick(usable), value: null });
  }
  for (const session of sessions) shuffle(session.items, rng);
  return sessions;
}

function shuffle<T>(xs: T[], rng: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export const KNOWLEDGE_UPDATE_SET: KnowledgeCase[] = [...CHANGE_CASES, ...STABLE_CASES];
