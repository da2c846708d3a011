import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PARAPHRASE_SET, sharedTerms } from "../../scripts/bench/paraphrase-set";
import { contentHash, queryTerms, indexTerms } from "../../src/domain/text";
import { LIMITS } from "../../src/domain/memory";
import { Client, startService, type TestService } from "../helpers/harness";
import { storeMany } from "../helpers/contract";

/**
 * The paraphrase benchmark's set (scripts/bench/paraphrase-set.ts) measures what meaning adds to
 * keyword search, which holds only while no question shares a search term with its memory. These
 * tests hold every case to that with the keyword search's own analysis, and over HTTP.
 */

describe("sharedTerms reads text as the keyword search does", () => {
  test("a shared name or an inflected word is shared", () => {
    expect(sharedTerms("Which bird does Rosa keep at home?", "Rosa's parrot Kiwi sleeps in the living room")).toEqual(["rosa"]);
    expect(sharedTerms("Who keeps the parrot?", "Kiwi the parrot is kept by the neighbour who keeps bees")).toEqual(["keep", "parrot"]);
    expect(sharedTerms("Is the CAFÉ open?", "The cafe opens at eight")).toEqual(["cafe", "open"]);
  });

  test("stopwords and single letters are not search terms, so they are never shared", () => {
    expect(sharedTerms("What is my dog's name?", "My cat is the one that is black")).toEqual([]);
  });
});

describe("the paraphrase set", () => {
  test("has at least 200 cases with unique ids, every topic at least 10 times", () => {
    expect(PARAPHRASE_SET.length).toBeGreaterThanOrEqual(200);
    const ids = PARAPHRASE_SET.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const perTopic = new Map<string, number>();
    for (const c of PARAPHRASE_SET) perTopic.set(c.topic, (perTopic.get(c.topic) ?? 0) + 1);
    expect(Math.min(...perTopic.values())).toBeGreaterThanOrEqual(10);
  });

  test("no question shares a search term with its memory", () => {
    const overlapping = PARAPHRASE_SET.map((c) => ({ id: c.id, shared: sharedTerms(c.question, c.memory) })).filter((c) => c.shared.length > 0);
    expect(overlapping).toEqual([]);
  });

  test("every case has at least three hard distractors, one of them sharing a search term with the question", () => {
    const few = PARAPHRASE_SET.filter((c) => c.distractors.length < 3).map((c) => c.id);
    const noLure = PARAPHRASE_SET.filter((c) => {
      const terms = new Set(queryTerms(c.question));
      return !c.distractors.some((d) => indexTerms(d).some((t) => terms.has(t)));
    }).map((c) => c.id);
    expect({ few, noLure }).toEqual({ few: [], noLure: [] });
  });

  test("every memory and distractor is a distinct content that fits a memory", () => {
    const contents = PARAPHRASE_SET.flatMap((c) => [c.memory, ...c.distractors]);
    expect(new Set(contents.map(contentHash)).size).toBe(contents.length);
    expect(contents.filter((text) => text.length > LIMITS.content)).toEqual([]);
  });
});

describe("over HTTP, in one wallet holding every memory and distractor", () => {
  let service: TestService;
  let client: Client;
  const idOf = new Map<string, string>();

  beforeAll(async () => {
    service = await startService();
    client = new Client(service);
    const contents = PARAPHRASE_SET.flatMap((c) => [c.memory, ...c.distractors]);
    for (let i = 0; i < contents.length; i += LIMITS.batch) {
      const batch = contents.slice(i, i + LIMITS.batch);
      const ids = await storeMany(client, batch.map((content) => ({ content })));
      batch.forEach((content, j) => idOf.set(content, ids[j]!));
    }
  }, 60_000);
  afterAll(() => service.stop());

  test("/v1/search never returns a question's memory, and finds each memory by its own words", async () => {
    const foundByQuestion: string[] = [];
    const missedByOwnWords: string[] = [];
    for (const c of PARAPHRASE_SET) {
      const target = idOf.get(c.memory)!;
      const byQuestion = await client.post("/v1/search", { query: c.question, limit: 100 });
      expect(byQuestion.status).toBe(200);
      if ((byQuestion.body.memories as { id: string }[]).some((m) => m.id === target)) foundByQuestion.push(c.id);
      const byOwnWords = await client.post("/v1/search", { query: c.memory, limit: 100 });
      if (!(byOwnWords.body.memories as { id: string }[]).some((m) => m.id === target)) missedByOwnWords.push(c.id);
    }
    expect(foundByQuestion).toEqual([]);
    expect(missedByOwnWords).toEqual([]);
  });
});
