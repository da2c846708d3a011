import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { ExtractedFact, type ExtractInput } from "../src/domain/ingest/extractor.ts";
import { OfflineExtractor } from "../src/domain/ingest/offline-extractor.ts";
import { chunkText, splitSentences } from "../src/domain/ingest/offline/sentences.ts";
import { expandContractions, rewritePerson } from "../src/domain/ingest/offline/rewrite.ts";
import { STOPWORDS, lemma } from "../src/domain/ingest/offline/lexicon.ts";
import { attributeOf, inferRelation, subjectOf } from "../src/domain/ingest/relate.ts";
import { conversations, holdout, holdout2, type ConversationFixture } from "./fixtures/conversations.ts";

const extractor = new OfflineExtractor();
const extract = (input: ExtractInput) => extractor.extractSync(input);
const contents = (input: ExtractInput) => extract(input).map((f) => f.content);
const one = (content: string, role: "user" | "assistant" | "system" = "user") => extract({ messages: [{ role, content }] });

// ── fuzzy matching ──────────────────────────────────────────────────────────
/**
 * Facts are compared as sets of content words: lower-cased, contractions
 * expanded, stopwords dropped (negations kept), crude lemmas ("prefers" = "prefer").
 * An extracted fact matches an expected one when their token Jaccard is ≥ 0.5,
 * or when ≥ 75% of the expected words appear in it and it is at most twice as
 * long (+1 word) — so detail is allowed but a run-on sentence can't match
 * everything. Matching is one-to-one, best pairs first.
 */
function tokens(text: string): Set<string> {
  const words = expandContractions(text)
    .toLowerCase()
    .split(/[^\p{L}\p{N}.+#-]+/u)
    .map((w) => w.replace(/^[.-]+|[.-]+$/g, "").replace(/'s$/, ""))
    .filter((w) => w && !STOPWORDS.has(w));
  return new Set(words.map(lemma));
}

function similarity(expected: Set<string>, got: Set<string>): number {
  let common = 0;
  for (const w of expected) if (got.has(w)) common++;
  const jaccard = common / (expected.size + got.size - common || 1);
  const covered = common / (expected.size || 1);
  const boundedDetail = got.size <= 2 * expected.size + 1;
  return jaccard >= 0.5 || (covered >= 0.75 && boundedDetail) ? Math.max(jaccard, 0.5) : 0;
}

interface Score {
  expected: number;
  extracted: number;
  matched: number;
  misses: string[];
  extras: string[];
}

function score(fixture: ConversationFixture): Score {
  const got = extract(fixture.input).map((f) => f.content);
  const pairs: { e: number; g: number; s: number }[] = [];
  fixture.expected.forEach((e, ei) =>
    got.forEach((g, gi) => {
      const s = similarity(tokens(e), tokens(g));
      if (s > 0) pairs.push({ e: ei, g: gi, s });
    }),
  );
  const usedE = new Set<number>();
  const usedG = new Set<number>();
  for (const p of pairs.sort((x, y) => y.s - x.s)) {
    if (usedE.has(p.e) || usedG.has(p.g)) continue;
    usedE.add(p.e);
    usedG.add(p.g);
  }
  return {
    expected: fixture.expected.length,
    extracted: got.length,
    matched: usedE.size,
    misses: fixture.expected.filter((_, i) => !usedE.has(i)),
    extras: got.filter((_, i) => !usedG.has(i)),
  };
}

const emptyScore = (): Score => ({ expected: 0, extracted: 0, matched: 0, misses: [], extras: [] });
const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);

function row(name: string, s: Score): string {
  const cells = [s.expected, s.extracted, s.matched].map((n, i) => String(n).padStart([8, 9, 7][i] ?? 8));
  const p = ratio(s.matched, s.extracted).toFixed(2).padStart(9);
  return `${name.padEnd(14)} ${cells.join(" ")} ${p} ${ratio(s.matched, s.expected).toFixed(2).padStart(6)}`;
}

/** Score a fixture set, print a per-kind table with misses and extras, return the micro-averaged totals. */
function report(title: string, fixtures: ConversationFixture[]): { precision: number; recall: number } {
  const byKind = new Map<string, Score>();
  const total = emptyScore();
  for (const fixture of fixtures) {
    const s = score(fixture);
    const k = byKind.get(fixture.kind) ?? emptyScore();
    for (const acc of [k, total]) {
      acc.expected += s.expected;
      acc.extracted += s.extracted;
      acc.matched += s.matched;
      acc.misses.push(...s.misses.map((m) => `${fixture.name}: ${m}`));
      acc.extras.push(...s.extras.map((m) => `${fixture.name}: ${m}`));
    }
    byKind.set(fixture.kind, k);
  }
  const header = `${"kind".padEnd(14)} ${"expected".padStart(8)} ${"extracted".padStart(9)} ${"matched".padStart(7)} ${"precision".padStart(9)} ${"recall".padStart(6)}`;
  console.log(
    [
      `\n${title}: ${fixtures.length} conversations`,
      header,
      ...[...byKind.entries()].map(([k, s]) => row(k, s)),
      row("ALL", total),
      ...total.misses.map((m) => `  missed: ${m}`),
      ...total.extras.map((m) => `  extra:  ${m}`),
    ].join("\n"),
  );
  return { precision: ratio(total.matched, total.extracted), recall: ratio(total.matched, total.expected) };
}

/**
 * Floors, set from measured results with a small margin:
 *  - tuned set (the rules were written against it): precision 0.98, recall 0.98 → floors 0.93;
 *  - held-out sets: `holdout` scored 0.84 / 0.70 before the generic fixes it prompted
 *    (0.95 / 0.87 after), `holdout2` scored 0.87 / 0.87 on first run; together 0.92 / 0.87
 *    → floors 0.85 / 0.80. The held-out number is the one to quote.
 */
const PRECISION_FLOOR = 0.93;
const RECALL_FLOOR = 0.93;
const HOLDOUT_PRECISION_FLOOR = 0.85;
const HOLDOUT_RECALL_FLOOR = 0.8;

describe("offline extractor on the fixture conversations", () => {
  test("at least 30 conversations of every kind", () => {
    expect(conversations.length).toBeGreaterThanOrEqual(30);
    const kinds = new Set(conversations.map((c) => c.kind));
    for (const k of ["preference", "decision", "correction", "small-talk", "questions", "project", "multi-speaker", "mixed", "text"]) {
      expect(kinds.has(k as ConversationFixture["kind"])).toBe(true);
    }
  });

  test(`tuned set: precision ≥ ${PRECISION_FLOOR} and recall ≥ ${RECALL_FLOOR}`, () => {
    const { precision, recall } = report("tuned set (rules were written against it)", conversations);
    expect(precision).toBeGreaterThanOrEqual(PRECISION_FLOOR);
    expect(recall).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });

  test(`held-out set: precision ≥ ${HOLDOUT_PRECISION_FLOOR} and recall ≥ ${HOLDOUT_RECALL_FLOOR}`, () => {
    const { precision, recall } = report("held-out sets", [...holdout, ...holdout2]);
    expect(precision).toBeGreaterThanOrEqual(HOLDOUT_PRECISION_FLOOR);
    expect(recall).toBeGreaterThanOrEqual(HOLDOUT_RECALL_FLOOR);
  });

  test("every extracted fact satisfies the ExtractedFact schema", () => {
    for (const fixture of conversations) {
      for (const fact of extract(fixture.input)) {
        expect([...Value.Errors(ExtractedFact, fact)].map((e) => `${e.path} ${e.message}`)).toEqual([]);
      }
    }
  });
});

// ── unit rules ──────────────────────────────────────────────────────────────
describe("first-person rewrite", () => {
  const cases: [string, string][] = [
    ["I prefer tabs", "User prefers tabs"],
    ["my name is Ana", "User's name is Ana"],
    ["we decided to use Postgres", "The team decided to use Postgres"],
    ["I'm a nurse", "User is a nurse"],
    ["I don't drink coffee", "User does not drink coffee"],
    ["I really try to watch my weight", "User really tries to watch their weight"],
    ["I use Vim when I write Go", "User uses Vim when they write Go"],
    ["we're on version 2", "The team is on version 2"],
    ["our team is six people", "The team is six people"],
    ["For now our stack is Node", "For now the team's stack is Node"],
    // "their" would be read as the doctor's: only the subject gets it
    ["my doctor bumped my dose to 15mg", "User's doctor bumped the user's dose to 15mg"],
    ["I moved my money to Monzo", "User moved their money to Monzo"],
  ];
  for (const [input, expected] of cases) {
    test(`"${input}" → "${expected}"`, () => {
      expect(rewritePerson(expandContractions(input), "user")).toBe(expected);
    });
  }

  test("assistant's 'you/your' means the user", () => {
    expect(rewritePerson("your repo uses Bun and you prefer tabs", "assistant")).toBe("User's repo uses Bun and they prefer tabs");
  });

  test("extracted content uses the rewrite and drops the 'actually' marker", () => {
    expect(contents({ messages: [{ role: "user", content: "Actually, I no longer use Vim." }] })).toEqual(["User no longer uses Vim"]);
    expect(contents({ text: "My daughter starts school in September." })).toEqual(["User's daughter starts school in September"]);
  });
});

describe("memory_type, importance and tags", () => {
  const cases: [string, string, number][] = [
    ["Actually, I switched to Helix.", "correction", 0.8],
    ["We decided to use Postgres.", "decision", 0.75],
    ["I prefer tabs.", "preference", 0.7],
    ["The repo deploys from the main branch.", "project", 0.6],
    ["I live in Lisbon.", "observation", 0.5],
    ["Remember that I prefer tabs.", "preference", 0.8],
    ["Important: the deploy freezes on Fridays.", "project", 0.7],
    ["Remember: actually, I no longer use Vim.", "correction", 0.9],
  ];
  for (const [input, type, importance] of cases) {
    test(`"${input}" → ${type} ${importance}`, () => {
      const [fact] = one(input);
      expect(fact?.memory_type).toBe(type as never);
      expect(fact?.importance).toBe(importance);
    });
  }

  test("pronoun-led corrections resolve 'it' from the previous subject; otherwise general", () => {
    const facts = extract({
      messages: [
        { role: "user", content: "My name is Ana." },
        { role: "user", content: "Sorry, it's actually spelled Anna." },
      ],
    });
    expect(facts.map((f) => f.content)).toEqual(["User's name is Ana", "User's name is spelled Anna"]);
    expect(facts[1]?.memory_type).toBe("correction");
  });

  test("tags: type first, then category and salient terms, lower-case, 1..5", () => {
    const [fact] = one("I no longer use Vim for my Rust projects at Acme Corp in Berlin.");
    expect(fact?.tags[0]).toBe("correction");
    expect(fact?.tags).toContain("editor");
    expect(fact?.tags).toContain("vim");
    expect(fact?.tags.length).toBeLessThanOrEqual(5);
    for (const tag of fact?.tags ?? []) expect(tag).toBe(tag.toLowerCase());
    expect(fact?.tags).not.toContain("user");
  });

  test("subject and attribute are filled for auto-relate", () => {
    const [fact] = one("I prefer spaces.");
    expect(fact?.subject).toBe("user");
    expect(fact?.attribute).toBe("indentation");
  });
});

describe("what is dropped", () => {
  const dropped = [
    "Hi there!",
    "Thanks so much, that worked!",
    "ok sounds good",
    "Good morning",
    "How do I reverse a list in Python?",
    "what about in place",
    "Can you explain monads?",
    "Maybe we could try Deno.",
    "I think we should wait.",
    "I'm so tired today.",
    "Write a function that parses ISO dates.",
    "lol that's funny",
    "Have a great weekend!",
  ];
  for (const text of dropped) {
    test(`"${text}" → nothing`, () => expect(contents({ messages: [{ role: "user", content: text }] })).toEqual([]));
  }

  test("standing instructions are kept as preferences", () => {
    const [fact] = one("From now on, never use semicolons.");
    expect(fact?.content).toBe("User wants the assistant to never use semicolons");
    expect(fact?.memory_type).toBe("preference");
  });
});

describe("role mining", () => {
  test("tool output is ignored", () => {
    expect(contents({ messages: [{ role: "tool", content: "The repo uses Bun 1.1. I prefer tabs." }] })).toEqual([]);
  });

  test("assistant: project facts and decisions kept; suggestions, opinions and first person dropped", () => {
    const got = contents({
      messages: [
        { role: "assistant", content: "The repo's CI pipeline runs on GitHub Actions." },
        { role: "assistant", content: "Decision recorded: we'll use Redis for the cache." },
        { role: "assistant", content: "You could also consider Bun. Postgres is a solid choice. I can help with that." },
      ],
    });
    expect(got).toEqual(["The repo's CI pipeline runs on GitHub Actions", "The team will use Redis for the cache"]);
  });

  test("system: facts about the user kept, instructions to the model dropped", () => {
    const got = contents({
      messages: [{ role: "system", content: "You are a helpful assistant. The user is a data engineer at Acme. Always answer in French." }],
    });
    expect(got).toEqual(["The user is a data engineer at Acme", "The assistant should always answer in French"]);
  });

  test("source records message index and role; text input has nulls", () => {
    const facts = extract({
      messages: [
        { role: "user", content: "hello" },
        { role: "user", content: "I use Bun and I prefer tabs." },
      ],
      text: "The API is written in Go.",
    });
    expect(facts.map((f) => [f.content, f.source.message_index, f.source.role])).toEqual([
      ["User uses Bun", 1, "user"],
      ["User prefers tabs", 1, "user"],
      ["The API is written in Go", null, null],
    ]);
  });

  test("identical facts are kept once with the highest importance", () => {
    const facts = extract({
      messages: [
        { role: "user", content: "I prefer tabs." },
        { role: "user", content: "Remember: I prefer tabs!" },
      ],
    });
    expect(facts).toHaveLength(1);
    expect(facts[0]?.importance).toBe(0.8);
  });
});

describe("chunking", () => {
  const filler = (i: number) => `Service number ${i} listens on port ${8000 + i}.`;

  test("chunks end on sentence boundaries, stay within the limit and lose nothing", () => {
    const text = Array.from({ length: 200 }, (_, i) => filler(i)).join(" ");
    const chunks = [...chunkText(text, 500)];
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.join("")).toBe(text);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(500);
      expect(c.trimEnd()).toMatch(/\.$/);
    }
  });

  test("a fact straddling a chunk edge is found exactly once, whole", () => {
    const small = new OfflineExtractor({ chunkChars: 500 });
    const fact = "Actually, I no longer use Vim because Helix has better defaults for my Rust work.";
    let prefix = "";
    for (let i = 0; prefix.length + filler(i).length < 490; i++) prefix += `${filler(i)} `;
    const text = `${prefix}${fact} ${filler(900)}`;
    expect(prefix.length).toBeLessThan(500);
    expect(prefix.length + fact.length).toBeGreaterThan(500); // the fact crosses offset 500
    const facts = small.extractSync({ text });
    const hits = facts.filter((f) => f.content.includes("Vim"));
    expect(hits.map((f) => f.content)).toEqual([
      "User no longer uses Vim because Helix has better defaults for their Rust work",
    ]);
    expect(facts).toHaveLength(splitSentences(text).length);
  });

  test("200k characters: every distinct fact once", () => {
    const sentences = Array.from({ length: 5000 }, (_, i) => filler(i));
    const text = sentences.join(" ");
    expect(text.length).toBeGreaterThan(200_000);
    const facts = extract({ text });
    expect(facts).toHaveLength(sentences.length);
  });

  // Speed is measured by scripts/bench/extract.ts, not asserted here (a loaded machine would fail it).
  test("pathological input (punctuation runs, no spaces) yields no facts", () => {
    for (const text of [".".repeat(100_000), "a".repeat(200_000), "!? ".repeat(50_000)]) expect(extract({ text })).toEqual([]);
  });

  test("many messages, duplicates deduped", () => {
    const messages = Array.from({ length: 3000 }, (_, i) => ({ role: "user" as const, content: `I prefer tabs. ${filler(i % 1000)}` }));
    expect(extract({ messages })).toHaveLength(1001);
  });
});

describe("relate", () => {
  const cases: [string, string, string | null][] = [
    ["User no longer uses Vim", "User uses Vim", "contradicts"],
    ["User does not like Java", "User likes Java", "contradicts"],
    ["User is not vegetarian anymore", "User is vegetarian", "contradicts"],
    ["User switched to Helix", "User uses Vim", "supersedes"],
    ["User prefers spaces", "User prefers tabs", "supersedes"],
    ["User's name is Anna", "User's name is Ana", "supersedes"],
    ["The launch deadline is June 14, not June 7", "The launch deadline is June 7", "supersedes"],
    ["The team's stack is Bun with Elysia", "The team's stack is Node with Express", "supersedes"],
    ["User uses Vim with a custom config", "User uses Vim", "supports"],
    ["The team decided to use Postgres for the main database", "Postgres is the main database", "supports"],
    ["User lives in Lisbon", "User uses Vim", "related_to"],
    ["User loves TypeScript", "User hates Java's verbosity", "related_to"],
    ["The billing service talks to Stripe", "User uses Vim", null],
    ["User no longer uses Vim", "User uses Helix", "related_to"],
  ];
  for (const [newer, older, relation] of cases) {
    test(`"${newer}" vs "${older}" → ${relation}`, () => {
      expect(inferRelation({ content: newer }, { content: older })).toBe(relation as never);
    });
  }

  test("given subject/attribute are used as-is (e.g. from the extractor)", () => {
    const fact = { content: "Ana likes it", subject: "user", attribute: "editor", memory_type: "preference" as const };
    expect(inferRelation(fact, { content: "User uses Emacs", subject: "user", attribute: "editor" })).toBe("supersedes");
  });

  test("facets derive from content", () => {
    expect(subjectOf("The billing service runs on Node 20")).toBe("billing service");
    expect(subjectOf("The repo's .nvmrc pins Node 20")).toBe("project");
    expect(attributeOf("User always uses dark mode")).toBe("theme");
    expect(attributeOf("User's favorite font is JetBrains Mono")).toBe("favorite font");
    expect(attributeOf("User loves TypeScript")).toBeNull();
    expect(attributeOf("User moved to Berlin")).toBe("location");
  });
});
