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
  meant: "mean", spelt: "spell",
};

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
  const lemma = IRREGULAR_FORMS[word];
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
