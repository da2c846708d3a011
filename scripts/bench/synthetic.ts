/**
 * Deterministic synthetic agent memories and queries for the benchmarks: short sentences built from
 * templates × vocabulary with a seeded PRNG, so every run stores and asks the same things.
 */
import { newMemory, type MemoryType } from "../../src/domain/memory";
import type { MemoryStore } from "../../src/domain/store-port";

/** mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
export const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
export const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

const V = {
  person: ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar", "peggy", "trent", "victor", "walter", "maria", "li", "ahmed", "sofia", "kenji", "priya", "lucas", "emma", "noah", "olivia", "mateo", "chloe", "omar", "yuki"],
  lang: ["python", "typescript", "rust", "go", "java", "kotlin", "ruby", "elixir", "haskell", "scala", "swift", "c", "javascript", "php", "perl", "lua", "bash", "clojure", "zig", "ocaml"],
  tool: ["docker", "kubernetes", "terraform", "ansible", "jenkins", "webpack", "vite", "eslint", "prettier", "pytest", "jest", "git", "vim", "emacs", "postman", "grafana", "prometheus", "sentry", "datadog", "redis", "nginx", "postgres", "sqlite", "mongodb", "kafka", "rabbitmq", "airflow", "spark", "jupyter", "figma"],
  component: ["billing", "checkout", "search", "auth", "login", "payments", "inventory", "notifications", "analytics", "reporting", "gateway", "scheduler", "ingest", "export", "onboarding", "profile", "settings", "dashboard", "email", "cache", "queue", "storage", "upload", "recommendation", "pricing", "shipping", "invoice", "audit", "admin", "mobile"],
  db: ["postgres", "mysql", "sqlite", "mongodb", "dynamodb", "cassandra", "redis", "elasticsearch", "clickhouse", "bigquery", "snowflake", "firestore"],
  env: ["production", "staging", "development", "preview", "canary", "sandbox"],
  cloud: ["aws", "gcp", "azure", "heroku", "vercel", "netlify", "fly", "hetzner", "digitalocean", "linode"],
  day: ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
  month: ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"],
  time: ["9am", "10am", "11am", "noon", "2pm", "3pm", "4pm", "5pm", "morning", "afternoon", "evening"],
  food: ["coffee", "tea", "pizza", "sushi", "salad", "pasta", "tacos", "curry", "ramen", "sandwiches", "chocolate", "cheese", "spicy food", "seafood", "vegetarian meals"],
  editor: ["vscode", "vim", "emacs", "intellij", "sublime", "neovim", "cursor", "zed", "xcode", "pycharm"],
  theme: ["dark mode", "light mode", "high contrast", "solarized", "monokai", "dracula"],
  os: ["linux", "macos", "windows", "ubuntu", "fedora", "debian", "arch"],
  company: ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell", "cyberdyne", "soylent", "vandelay"],
  issue: ["slow page loads", "timeouts", "duplicate charges", "missing emails", "broken links", "wrong totals", "login failures", "memory leaks", "stale data", "crashes", "high latency", "rounding errors"],
  reason: ["it is faster", "the team knows it", "it is cheaper", "it scales better", "licensing", "better tooling", "lower latency", "simpler operations", "security review", "customer request"],
  task: ["data analysis", "scripting", "backend services", "frontend work", "testing", "deployment", "prototyping", "machine learning", "infrastructure", "documentation"],
  format: ["json", "yaml", "csv", "markdown", "toml", "xml", "protobuf", "parquet"],
  city: ["berlin", "paris", "london", "tokyo", "toronto", "madrid", "lisbon", "austin", "seattle", "boston", "sydney", "dublin", "amsterdam", "singapore"],
  hobby: ["hiking", "chess", "cycling", "photography", "gardening", "running", "climbing", "painting", "guitar", "cooking", "reading", "swimming"],
  topic: ["roadmap", "hiring", "budget", "architecture", "security", "migration", "pricing", "launch", "retrospective", "onboarding", "performance", "incident"],
  adj: ["slow", "flaky", "critical", "deprecated", "experimental", "stable", "legacy", "new", "broken", "expensive"],
};

type Fields = { content: string; memory_type: MemoryType; tags: string[] };
type Template = (r: Rng) => Fields;
const T = (memory_type: MemoryType, tags: (r: Rng) => string[], text: (r: Rng) => string): Template => (r) => ({ memory_type, tags: tags(r), content: text(r) });
const p = (r: Rng, k: keyof typeof V) => pick(r, V[k]);
const tagsOf = (...fixed: string[]) => (r: Rng) => (r() < 0.5 ? fixed.slice(0, 1 + Math.floor(r() * fixed.length)) : []);

const TEMPLATES: Template[] = [
  T("preference", tagsOf("preferences", "tooling"), (r) => `${cap(p(r, "person"))} prefers ${p(r, "lang")} over ${p(r, "lang")} for ${p(r, "task")}`),
  T("preference", tagsOf("preferences", "editor"), (r) => `The user likes ${p(r, "theme")} in ${p(r, "editor")} and uses ${p(r, "os")} at home`),
  T("preference", tagsOf("preferences", "food"), (r) => `${cap(p(r, "person"))} enjoys ${p(r, "food")} but dislikes ${p(r, "food")}`),
  T("preference", tagsOf("preferences", "format"), (r) => `Always answer ${p(r, "person")} in ${p(r, "format")} when sharing ${p(r, "component")} data`),
  T("preference", tagsOf("preferences", "meetings"), (r) => `The user prefers meetings on ${p(r, "day")} ${p(r, "time")} and avoids ${p(r, "day")}`),
  T("decision", tagsOf("decision", "architecture"), (r) => `We decided to move the ${p(r, "component")} service from ${p(r, "db")} to ${p(r, "db")} because ${p(r, "reason")}`),
  T("decision", tagsOf("decision", "infra"), (r) => `Team agreed to deploy ${p(r, "component")} on ${p(r, "cloud")} in ${p(r, "month")}`),
  T("decision", tagsOf("decision", "tooling"), (r) => `Decision: use ${p(r, "tool")} for ${p(r, "task")} in the ${p(r, "component")} repo`),
  T("decision", tagsOf("decision"), (r) => `${cap(p(r, "person"))} approved replacing ${p(r, "tool")} with ${p(r, "tool")} since ${p(r, "reason")}`),
  T("project", tagsOf("project", "deploy"), (r) => `The ${p(r, "component")} service deploys to ${p(r, "env")} every ${p(r, "day")} at ${p(r, "time")}`),
  T("project", tagsOf("project", "ops"), (r) => `The ${p(r, "component")} API listens on port ${int(r, 3000, 9999)} in ${p(r, "env")}`),
  T("project", tagsOf("project", "ownership"), (r) => `${cap(p(r, "person"))} owns the ${p(r, "component")} module and reviews its pull requests`),
  T("project", tagsOf("project", "limits"), (r) => `Rate limit for the ${p(r, "component")} endpoint is ${int(r, 10, 500)} requests per minute`),
  T("project", tagsOf("project", "stack"), (r) => `The ${p(r, "component")} frontend is written in ${p(r, "lang")} and tested with ${p(r, "tool")}`),
  T("project", tagsOf("project", "tickets"), (r) => `Ticket ${pick(r, ["ENG", "OPS", "BUG", "FEAT"])}-${int(r, 100, 9999)} tracks the ${p(r, "adj")} ${p(r, "component")} job`),
  T("project", tagsOf("project", "config"), (r) => `The ${p(r, "component")} config lives in ${p(r, "format")} files under the ${p(r, "env")} folder`),
  T("correction", tagsOf("correction"), (r) => `Correction: the ${p(r, "component")} deploy happens on ${p(r, "day")}, not ${p(r, "day")}`),
  T("correction", tagsOf("correction"), (r) => `Actually ${p(r, "person")} works in ${p(r, "city")}, not ${p(r, "city")}`),
  T("correction", tagsOf("correction"), (r) => `Fix: ${p(r, "component")} uses ${p(r, "db")} now, the old ${p(r, "db")} note is wrong`),
  T("observation", tagsOf("observation", "incident"), (r) => `Customer ${p(r, "company")} reported ${p(r, "issue")} in the ${p(r, "component")} dashboard`),
  T("observation", tagsOf("observation", "ci"), (r) => `The ${p(r, "component")} tests are ${p(r, "adj")} on ${p(r, "env")} since ${p(r, "month")}`),
  T("observation", tagsOf("observation", "perf"), (r) => `${cap(p(r, "component"))} latency went up after the ${p(r, "tool")} upgrade on ${p(r, "day")}`),
  T("observation", tagsOf("observation"), (r) => `${cap(p(r, "person"))} mentioned ${p(r, "issue")} when using ${p(r, "tool")}`),
  T("general", tagsOf("personal"), (r) => `${cap(p(r, "person"))} lives in ${p(r, "city")} and enjoys ${p(r, "hobby")} on weekends`),
  T("general", tagsOf("meetings"), (r) => `Meeting with ${p(r, "person")} about the ${p(r, "topic")} is on ${p(r, "day")} at ${p(r, "time")}`),
  T("general", tagsOf("travel"), (r) => `${cap(p(r, "person"))} is travelling to ${p(r, "city")} in ${p(r, "month")} for the ${p(r, "topic")} offsite`),
  T("general", tagsOf("contacts"), (r) => `${cap(p(r, "person"))} from ${p(r, "company")} is the contact for ${p(r, "component")} questions`),
  T("general", tagsOf("notes"), (r) => `Remember that the ${p(r, "topic")} review with ${p(r, "company")} needs a ${p(r, "format")} summary`),
];

const QUERIES: ((r: Rng) => string)[] = [
  (r) => `what language does ${p(r, "person")} prefer for ${p(r, "task")}`,
  (r) => `which database does the ${p(r, "component")} service use`,
  (r) => `when does ${p(r, "component")} deploy`,
  (r) => `who owns the ${p(r, "component")} module`,
  () => `editor theme preference`,
  (r) => `what food does ${p(r, "person")} like`,
  (r) => `${p(r, "company")} complaints about ${p(r, "component")}`,
  (r) => `rate limit of the ${p(r, "component")} api`,
  (r) => `where does ${p(r, "person")} live`,
  (r) => `meeting about ${p(r, "topic")} with ${p(r, "person")}`,
  (r) => `why did we move ${p(r, "component")} to ${p(r, "db")}`,
  (r) => `${p(r, "component")} tests flaky`,
  (r) => `which port does ${p(r, "component")} run on in ${p(r, "env")}`,
  (r) => `deploy ${p(r, "component")} to ${p(r, "cloud")}`,
  (r) => `corrections about ${p(r, "person")}`,
];

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const NAMESPACES = ["default", "default", "default", "work", "work", "personal", "project-atlas", "project-zephyr"];

export interface SyntheticMemory {
  content: string;
  memory_type: MemoryType;
  namespace: string;
  tags: string[];
  importance: number;
  session_id: string | null;
  agent_id: string | null;
  pinned: boolean;
  /** how long before "now" it was created, in ms (0..180 days) */
  age_ms: number;
}

/** The i-th memory of a stream seeded with `seed` (pass a fresh rng per stream and call in order). */
export function syntheticMemory(rng: Rng): SyntheticMemory {
  const fields = pick(rng, TEMPLATES)(rng);
  return {
    ...fields,
    namespace: pick(rng, NAMESPACES),
    importance: Math.round((0.2 + rng() * 0.8) * 100) / 100,
    session_id: rng() < 0.3 ? `session-${int(rng, 1, 400)}` : null,
    agent_id: rng() < 0.4 ? pick(rng, ["planner", "coder", "reviewer", "assistant"]) : null,
    pinned: rng() < 0.02,
    age_ms: Math.floor(rng() * 180 * 86_400_000),
  };
}

export function syntheticQuery(rng: Rng): string {
  return pick(rng, QUERIES)(rng);
}

/**
 * Fills a wallet below the API with `count` synthetic memories and random `dim`-d vectors (no
 * model: for benches of the store's own work), in batches of 500; `progress` hears each batch.
 */
export async function fillRandomVectors(store: Pick<MemoryStore, "insertMemories">, userId: string, count: number, dim: number, rng: Rng, now: number, progress?: (done: number) => void): Promise<void> {
  for (let done = 0; done < count; done += 500) {
    const batch = Array.from({ length: Math.min(500, count - done) }, () => {
      const s = syntheticMemory(rng);
      const memory = newMemory({ user_id: userId, content: s.content, namespace: s.namespace, memory_type: s.memory_type, importance: s.importance }, new Date(now - s.age_ms).toISOString());
      return { memory, embedding: Float32Array.from({ length: dim }, () => rng() - 0.5), content_hash: memory.id };
    });
    await store.insertMemories(batch);
    progress?.(done + batch.length);
  }
}
