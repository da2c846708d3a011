/**
 * Word lists for the offline (rule-based) extractor and for auto-relate.
 * Kept in one place so the rules elsewhere read as logic, not vocabulary.
 * Everything is lower-case; lookups lower-case their input first.
 */

const words = (list: string) => new Set(list.trim().split(/\s+/));

/** Function words ignored when comparing or tagging facts. Negations are NOT here: they carry meaning. */
export const STOPWORDS = words(`
  a an the and or but so if then than that this these those there here of to in on at by for from with
  about as into onto over under up down out off via per is are was were be been being am has have had
  do does did will would can could should shall may might must it its it's they them their theirs he him
  his she her hers we us our ours you your yours i me my mine myself itself themselves who whom whose
  which what when where why how also just really very quite too still even only some any all each every
  more most much many other such own same both either neither again further once now
  whatever wherever whenever while until because since although though unless whether yet
  one ones thing things something anything everything nothing lot lots bit kind sort way
  user user's users team team's assistant
`);

export const NEGATIONS = words(`not no never cannot nor none nobody nothing neither without`);

/** Base forms of common verbs; inflections are recognised by `verbLemma`. */
export const VERBS = words(`
  be have do use prefer like love hate enjoy dislike want need work live run talk call write read build
  deploy host ship release own manage lead maintain speak know think believe switch move change choose decide
  agree pick go keep start stop finish plan target support depend rely pin require store send serve handle
  play drink eat study teach drive hold contain include pass fail merge cover block happen take make get see
  feel seem look become stay join leave sleep code develop design avoid track follow expect commit push pull
  review upgrade migrate adopt drop replace say tell give find try help check fix add update create generate
  explain show list summarize translate refactor debug implement draft compose rewrite convert compare
  describe recommend suggest let remember forget mean settle opt standardize freeze allow ban favor favour
  adore detest loathe miss spell begin end rent buy sell visit travel learn quit retire grow raise walk swim
  cook bake paint sing listen watch wear parse test lint format bundle compile install configure set enable
  disable log cache index query name marry date meet wish hope care mind
  relocate settle reside postpone delay slip slide bump push shift reschedule downgrade increase decrease
  rise reduce lower extend rename swap trade exchange ditch abandon cancel close resign step split break
  report join attend retrain commute bank transfer convert cut jump hire promote fall
  come cost supply accept book pay earn spend charge tinker belong sit stand sound turn open shut
  arrive return reply apply offer receive provide own rely port
`);

const IRREGULAR_FORMS: Record<string, string> = {
  is: "be", are: "be", was: "be", were: "be", am: "be", been: "be", being: "be",
  has: "have", had: "have", does: "do", did: "do", done: "do", went: "go", gone: "go", goes: "go",
  chose: "choose", chosen: "choose", made: "make", took: "take", taken: "take", got: "get",
  gotten: "get", saw: "see", seen: "see", felt: "feel", became: "become", left: "leave", said: "say",
  told: "tell", gave: "give", given: "give", found: "find", wrote: "write", written: "write",
  ran: "run", built: "build", kept: "keep", held: "hold", knew: "know", known: "know", thought: "think",
  met: "meet", bought: "buy", sold: "sell", began: "begin", begun: "begin", spoke: "speak",
  spoken: "speak", grew: "grow", drove: "drive", ate: "eat", drank: "drink", led: "lead", sent: "send",
  set: "set", quit: "quit", froze: "freeze", frozen: "freeze", taught: "teach", learnt: "learn",
  meant: "mean", spelt: "spell", slid: "slide", rose: "rise", risen: "rise", broke: "break", broken: "break",
  fell: "fall", fallen: "fall",
};

/** Irregular simple pasts (not participles): a clause may open with one when its "I" is left out ("Got a new car"). */
export const IRREGULAR_PAST = words(`
  went chose made took got saw felt became left said told gave found wrote ran built kept held knew thought met
  bought sold began spoke grew drove ate drank led sent quit froze taught meant slid rose broke fell
`);

/** Modal and auxiliary verbs: finite on their own, and they block person agreement of the next verb. */
export const MODALS = words(`will would can could should shall may might must cannot`);

/** Adverbs that may sit between a subject and its verb ("I really like", "we no longer use"). */
export const PRE_VERB_ADVERBS = words(`
  always never usually often sometimes really also just still now mostly generally actually definitely
  rarely only mainly primarily strongly absolutely totally currently typically normally even personally
  already truly honestly seriously kinda basically mostly finally recently frequently occasionally
`);

/** Irregular past forms whose person does not change ("I chose" → "User chose"). */
export function isPastOrParticiple(word: string): boolean {
  const lemma = IRREGULAR_FORMS[word] ?? IRREGULAR_FORMS[word.replace(/^(?:re|over|under|out|mis)(?=\w{3})/, "")];
  if (lemma && !["is", "are", "am", "has", "does", "goes"].includes(word)) return true;
  if (word.length <= 3 || !word.endsWith("ed") || VERBS.has(word)) return false;
  const base = verbLemma(word);
  if (base) return base !== word; // "agreed" → "agree"
  return !word.endsWith("eed"); // unknown "feed", "succeed" are base forms
}

/** Lemma of a word (crude, dictionary-checked so nouns like "cats" are not taken for verbs). */
export function verbLemma(word: string): string | null {
  const w = word.toLowerCase();
  if (IRREGULAR_FORMS[w]) return IRREGULAR_FORMS[w] ?? null;
  const prefixed = /^(re|over|under|out|mis)(\w{3,})$/.exec(w); // "rewrote" → "rewrite"
  if (prefixed && IRREGULAR_FORMS[prefixed[2]!]) return `${prefixed[1]}${IRREGULAR_FORMS[prefixed[2]!]}`;
  if (VERBS.has(w)) return w;
  const candidates = [
    w.endsWith("ies") ? `${w.slice(0, -3)}y` : null,
    w.endsWith("es") ? w.slice(0, -2) : null,
    w.endsWith("s") ? w.slice(0, -1) : null,
    w.endsWith("ied") ? `${w.slice(0, -3)}y` : null,
    w.endsWith("ed") ? w.slice(0, -2) : null,
    w.endsWith("ed") ? w.slice(0, -1) : null,
    w.endsWith("ed") && w.length > 5 && w.at(-3) === w.at(-4) ? w.slice(0, -3) : null,
    w.endsWith("ing") ? w.slice(0, -3) : null,
    w.endsWith("ing") ? `${w.slice(0, -3)}e` : null,
    w.endsWith("ing") && w.length > 6 && w.at(-4) === w.at(-5) ? w.slice(0, -4) : null,
  ];
  for (const c of candidates) if (c && VERBS.has(c)) return c;
  return null;
}

/** Crude lemma for comparing content words: verbs via the table, plural nouns by stripping "s". */
export function lemma(word: string): string {
  const verb = verbLemma(word);
  if (verb) return verb;
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** Short words that still make good tags. */
export const SHORT_TECH = words(`go ci cd ui ux db qa js ts os ai ml k8s aws gcp api sdk cli orm css sql vim zsh git`);

/**
 * Words that mark a sentence as a project fact (spec: repo/service/deadline/stack/deploy/version…).
 */
export const PROJECT_WORDS = words(`
  repo repos repository repositories monorepo codebase project service services microservice deadline
  deadlines stack deploy deploys deployed deploying deployment deployments version versions release
  releases released staging production prod branch branches ci pipeline pipelines migration migrations
  api apis endpoint endpoints sdk schema database databases db server servers cluster docker kubernetes
  k8s frontend backend sprint milestone launch beta build builds merge merging merged workspace
  workspaces dependency dependencies library framework url domain bucket queue cache .nvmrc package
  packages tests lint linter runtime infra infrastructure terraform
`);

/** Nouns that make a subject "project". */
export const PROJECT_SUBJECTS = words(`repo repository monorepo codebase project app application`);

/**
 * Value categories: a term names a value of an attribute ("vim" is an "editor").
 * `exclusive` categories hold one value at a time, so a new value supersedes the old.
 */
export interface ValueCategory {
  attribute: string;
  exclusive: boolean;
  terms: string[];
}

export const VALUE_CATEGORIES: ValueCategory[] = [
  { attribute: "indentation", exclusive: true, terms: ["tabs", "tab", "spaces"] },
  {
    attribute: "editor",
    exclusive: true,
    terms: ["vim", "neovim", "nvim", "emacs", "vs code", "vscode", "helix", "sublime", "intellij", "webstorm", "zed", "nano", "cursor", "atom"],
  },
  { attribute: "theme", exclusive: true, terms: ["dark mode", "light mode", "dark theme", "light theme"] },
  {
    attribute: "database",
    exclusive: true,
    terms: ["postgres", "postgresql", "mysql", "sqlite", "mongodb", "mongo", "mariadb", "dynamodb", "cockroachdb", "cassandra", "oracle"],
  },
  { attribute: "cache", exclusive: true, terms: ["redis", "memcached", "valkey"] },
  { attribute: "runtime", exclusive: true, terms: ["node", "node.js", "nodejs", "deno", "bun"] },
  { attribute: "package manager", exclusive: true, terms: ["npm", "pnpm", "yarn"] },
  { attribute: "test framework", exclusive: true, terms: ["jest", "vitest", "mocha", "pytest", "jasmine"] },
  {
    attribute: "hosting",
    exclusive: true,
    terms: ["aws", "gcp", "azure", "fly.io", "heroku", "vercel", "netlify", "render", "cloudflare"],
  },
  {
    attribute: "diet",
    exclusive: true,
    terms: ["vegetarian", "vegan", "pescatarian", "pescetarian", "flexitarian", "keto", "paleo", "omnivore", "carnivore", "raw vegan"],
  },
  { attribute: "os", exclusive: true, terms: ["linux", "macos", "windows", "arch linux", "ubuntu", "debian", "fedora"] },
  { attribute: "shell", exclusive: true, terms: ["bash", "zsh", "fish", "powershell"] },
  { attribute: "api style", exclusive: true, terms: ["rest", "graphql", "grpc"] },
  { attribute: "ci", exclusive: true, terms: ["github actions", "circleci", "jenkins", "gitlab ci", "travis"] },
  { attribute: "frontend framework", exclusive: true, terms: ["react", "vue", "svelte", "angular", "solid"] },
  {
    attribute: "language",
    exclusive: false,
    terms: ["typescript", "javascript", "python", "golang", "rust", "java", "kotlin", "ruby", "c#", "c++", "swift", "elixir", "php", "scala", "go"],
  },
];

/** Verbs after which a category term is the value the fact sets ("uses Vim", "switched to Helix"). */
export const VALUE_VERBS = words(`
  use prefer switch move choose pick go decide run write deploy host target pin standardize settle opt adopt migrate
`);

// ---------------------------------------------------------------------------------------------------
// change detection (facets.ts, relate.ts): verb lemmas as wink-nlp gives them

/** Verbs that give something a new value ("moved to", "got pushed to", "upgraded to", "went up to"). */
export const CHANGE_VERBS = words(`
  change switch move shift push postpone delay slip slide bump reschedule upgrade downgrade migrate update
  increase decrease raise rise lower reduce cut extend rename replace swap trade exchange convert transfer
  relocate become turn jump drop fall port
`);

/** Verbs that end what their object (or an intransitive subject) was: "left Bosch", "sold the Corolla", "Priya stepped down". */
export const ENDING_VERBS = words(`
  leave quit sell cancel drop ditch abandon close resign retire stop end divorce lose
`);

/** Phrasal verbs that end something: "gave up the violin", "Hannah stepped down". */
export const ENDING_PHRASES = new Set(["give up", "step down", "split up", "break up", "move out", "drop out", "walk away"]);

/** Does the verb (a lemma, with its particle: "step down") end something? */
export const isEndingVerb = (verb: string): boolean => ENDING_VERBS.has(verb) || ENDING_PHRASES.has(verb) || ENDING_VERBS.has(verb.split(" ")[0]!);

/** Verbs whose object adds to what was known rather than replacing it ("has a cat", "speaks French"), and light verbs that say too little to compare ("gets", "goes"). */
export const CUMULATIVE_VERBS = words(`
  have own know speak like love enjoy visit meet read watch listen follow collect support hate dislike
  prefer want need get take make do see give put go come
`);

/**
 * Verbs whose complement is wished, planned or weighed, not yet the case: "plans to move", "is
 * considering Postgres", "hopes to get a Tesla". "decide", "choose" and "agree" are not among them: a
 * decision is reported as made.
 */
export const INTENTION_VERBS = words(`
  plan intend hope aim wish aspire dream consider contemplate weigh debate mull expect evaluate explore
`);

/** Verbs that are a wish only before a "to"-infinitive: "wants to use Vim", not "wants replies in German" (a preference that holds). */
export const INTENTION_BEFORE_INFINITIVE = words(`want try`);

/** Modals that make a clause a possibility or a plan ("might switch", "would move", "will move"), not "can" or "should". */
export const TENTATIVE_MODALS = words(`will shall would could may might`);

/** Words that add another value beside a known one: "I use tmux too", "another dog", "my other sister". */
export const ADDITIVE_WORDS = words(`too also another other second third additionally both extra`);

/** Words that say a value is the current one, replacing another ("now", "these days", "new"). */
export const CHANGE_MARKERS = words(`now nowadays anymore instead new currently lately`);

/** Adjectives that date or rank a value rather than name the attribute: "my new number" is "my number", "our main database" is "our database". */
export const TIME_ADJECTIVES = words(`new current old previous former latest present main primary default usual regular`);

/** The calendar's names: a schedule's days and months, which name when, not what. */
export const CALENDAR_NAMES = words(`
  monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
  saturdays sundays january february march april may june july august september october november december
`);

/** Verbs of a state that holds for a while, whose simple past tells it as over ("worked at Google", "was vegetarian"); changes and events are not among them. */
export const STATE_VERBS = words(`be live work use own drive study attend stay belong`);

/** Adjectives that pick one of several of a kind: "User's favourite city" is not where the user lives, "second language" is not the language. */
export const SELECTIVE_ADJECTIVES = words(`favorite favourite preferred second secondary third other first last next best worst least dream ideal backup`);

/**
 * Attribute keys that name one attribute: the key a fact's attribute phrase maps to. Only
 * synonyms a person uses for the same slot of a profile, not related slots ("office" is no "home").
 */
export const ATTRIBUTE_SYNONYMS: Record<string, string> = {
  job: "occupation", profession: "occupation", career: "occupation", role: "occupation", "line work": "occupation",
  home: "location", city: "location", residence: "location", "home city": "location",
  "home address": "address", "postal address": "address", "street address": "address",
  phone: "phone", number: "phone", "phone number": "phone", mobile: "phone", "mobile number": "phone",
  cell: "phone", "cell number": "phone", telephone: "phone", "telephone number": "phone",
  "email address": "email", "e-mail": "email", "e-mail address": "email", "mail address": "email",
  title: "occupation", "job title": "occupation",
  boss: "manager", "line manager": "manager", supervisor: "manager",
  company: "employer", workplace: "employer",
};

/** Verb + preposition frames that set a profile attribute: "lives in", "works at", "reports to". */
export const FRAME_ATTRIBUTES: Record<string, string> = {
  "live in": "location", "reside in": "location", "base in": "location", "relocate to": "location",
  "move to": "location", "settle in": "location", "relocate from": "location", "move from": "location",
  "live at": "address",
  "work at": "employer", "work for": "employer", "employ at": "employer", "employ by": "employer",
  "work as": "occupation", "retrain as": "occupation", "train as": "occupation", "employ as": "occupation",
  "start as": "occupation", "begin as": "occupation",
  "promote to": "occupation", "appoint as": "occupation", "hire as": "occupation",
  "report to": "manager",
};

/** Head nouns of occupations: "User is a pharmacist" sets the occupation, "User is a morning person" does not. */
export const OCCUPATIONS = words(`
  accountant actor actress administrator analyst anesthetist architect artist attorney auditor baker banker
  barber barista bartender biologist bookkeeper builder butcher caregiver carer carpenter cashier ceo cfo
  chef chemist cleaner clerk coach consultant cook copywriter counselor counsellor courier cto dancer
  designer dentist detective developer dietitian doctor driver economist editor electrician engineer
  entrepreneur farmer firefighter florist founder freelancer gardener geologist hairdresser historian
  illustrator instructor interpreter intern janitor journalist judge lawyer lecturer librarian lifeguard
  linguist machinist manager marketer mathematician mechanic midwife musician nanny nurse officer
  optician painter paralegal paramedic pharmacist photographer physician physicist physiotherapist pilot
  plumber poet politician postman principal professor programmer psychiatrist psychologist radiologist
  receptionist recruiter reporter researcher salesman salesperson scientist secretary singer soldier
  student surgeon surveyor tailor teacher technician therapist translator tutor veterinarian vet waiter
  waitress welder writer
`);

/**
 * What one has with someone in a role: "the dentist's appointment" is the speaker's appointment
 * with a dentist (a classifying genitive), "the sister's birthday" is the sister's.
 */
export const VISIT_NOUNS = words(`appointment visit consultation checkup check-up session lesson`);

/** Nouns for people and pets: "User's sister lives in Rome" is about the sister, "User's sister is Julia" names her. */
export const PERSON_NOUNS = words(`
  sister brother sibling mother father mom mum dad parent wife husband partner spouse girlfriend boyfriend
  fiance fiancee son daughter kid child children baby friend colleague coworker roommate flatmate neighbour
  neighbor cousin aunt uncle grandmother grandfather grandma grandpa grandparent niece nephew boss manager
  mentor coach landlord landlady teacher doctor dentist therapist stepmother stepfather pet dog cat puppy kitten
`);
