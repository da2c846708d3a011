import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, startService, type TestService } from "../helpers/harness";
import { describeEngines } from "../helpers/engines";
import { storeOne, uniqueNs } from "../helpers/contract";

/**
 * Dedup never merges two different facts (a merge drops the second one), and still merges true
 * paraphrases, on every write path: store, batch store, ingest. Most near-miss pairs below have an
 * embedding cosine at or above DEDUP_SIMILARITY with the default model, so only the fact check
 * keeps them apart; "C++" / "C#" and "$5" / "€5" even share a content hash.
 */
const NEAR_MISSES: [string, string][] = [
  ["Bulk delete target about zebras", "Bulk delete target about giraffes"],
  ["The API runs on Postgres 15", "The API runs on Postgres 16"],
  ["User has two cats", "User has three cats"],
  ["The standup is on Monday", "The standup is on Tuesday"],
  ["User prefers tabs over spaces", "User prefers spaces over tabs"],
  ["User drinks coffee", "User never drinks coffee"],
  ["The subscription costs $5 per month", "The subscription costs €5 per month"],
  ["User writes C++", "User writes C#"],
  ["User has a dog", "User had a dog"],
  ["Deploys run before the tests", "Deploys run after the tests"],
];

describeEngines("dedup keeps different facts apart", (engine) => {
  let service: TestService;
  let client: Client;
  beforeAll(async () => {
    service = await startService(engine);
    client = new Client(service);
  });
  afterAll(() => service.stop());

  const contentsOf = async (namespace: string) =>
    ((await client.get(`/v1/memories?namespace=${namespace}&limit=100`)).body.memories as { content: string }[]).map((m) => m.content).sort();

  test("store: a near-miss of an existing memory is a new memory; both stay retrievable", async () => {
    const namespace = uniqueNs("zebras");
    const zebras = await storeOne(client, { content: "Bulk delete target about zebras", namespace });
    const giraffes = await client.post("/v1/store", { content: "Bulk delete target about giraffes", namespace });
    expect(giraffes.status).toBe(201);
    expect(giraffes.body.deduplicated).toBe(false);
    expect(giraffes.body.id).not.toBe(zebras);
    expect((await client.get(`/v1/memories/${zebras}`)).body.content).toBe("Bulk delete target about zebras");
    expect((await client.get(`/v1/memories/${giraffes.body.id}`)).body.content).toBe("Bulk delete target about giraffes");
    expect(await contentsOf(namespace)).toEqual(["Bulk delete target about giraffes", "Bulk delete target about zebras"]);
  });

  test("concurrent stores of the same fact give one memory: every answer names it", async () => {
    const namespace = uniqueNs("concurrent");
    const content = "The on-call rotation switches every Thursday at noon";
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => client.post("/v1/store", { content, namespace })),
      ...Array.from({ length: 2 }, () => client.post("/v1/store/batch", { memories: [{ content, namespace }, { content: `${content}.`, namespace }] })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    const ids = new Set(answers.flatMap((a) => (a.body.ids as string[] | undefined) ?? [a.body.id as string]));
    expect(ids.size).toBe(1);
    expect(await contentsOf(namespace)).toEqual([content]);
  });

  test("store: every near-miss pair gives two memories", async () => {
    for (const [a, b] of NEAR_MISSES) {
      const namespace = uniqueNs("near-miss");
      const first = await storeOne(client, { content: a, namespace });
      const second = await client.post("/v1/store", { content: b, namespace });
      expect({ pair: [a, b], deduplicated: second.body.deduplicated }).toEqual({ pair: [a, b], deduplicated: false });
      expect(second.body.id).not.toBe(first);
      expect(await contentsOf(namespace)).toEqual([a, b].sort());
    }
  });

  test("store: a paraphrase merges into the original (same id, original content kept)", async () => {
    const namespace = uniqueNs("paraphrase");
    const id = await storeOne(client, { content: "User prefers dark mode in the editor", namespace });
    for (const paraphrase of ["The user prefers dark mode in the editor.", "User prefer dark mode in the editor", "In the editor, the user prefers dark mode"]) {
      const res = await client.post("/v1/store", { content: paraphrase, namespace });
      expect(res.status).toBe(201);
      expect({ paraphrase, ...res.body }).toMatchObject({ paraphrase, id, stored: true, deduplicated: true });
    }
    expect(await contentsOf(namespace)).toEqual(["User prefers dark mode in the editor"]);
  });

  test("store: a paraphrase finds its original even when a near-miss ties with it on cosine", async () => {
    // Pooled embeddings give the swapped sentence the very same vector: the nearest memory alone may be the wrong one.
    const namespace = uniqueNs("tie");
    const tabs = await storeOne(client, { content: "User prefers tabs over spaces", namespace });
    const spaces = await storeOne(client, { content: "User prefers spaces over tabs", namespace });
    const again = await client.post("/v1/store", { content: "The user prefers spaces over tabs.", namespace });
    expect(again.body).toMatchObject({ id: spaces, deduplicated: true });
    const other = await client.post("/v1/store", { content: "The user prefers tabs over spaces.", namespace });
    expect(other.body).toMatchObject({ id: tabs, deduplicated: true });
    expect(await contentsOf(namespace)).toHaveLength(2);
  });

  test("batch: near-miss items of one batch are all stored; paraphrases in it still merge", async () => {
    const namespace = uniqueNs("batch");
    const memories = [...NEAR_MISSES.flat(), "The user prefers tabs over spaces.", "the API runs on postgres 16!"].map((content) => ({ content, namespace }));
    const res = await client.post("/v1/store/batch", { memories });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(NEAR_MISSES.length * 2);
    expect(res.body.deduplicated_count).toBe(2);
    const ids = res.body.ids as string[];
    expect(new Set(ids).size).toBe(NEAR_MISSES.length * 2);
    const index = (content: string) => NEAR_MISSES.flat().indexOf(content);
    expect(ids[NEAR_MISSES.length * 2]).toBe(ids[index("User prefers tabs over spaces")]!);
    expect(ids[NEAR_MISSES.length * 2 + 1]).toBe(ids[index("The API runs on Postgres 16")]!);
    expect(await contentsOf(namespace)).toEqual(NEAR_MISSES.flat().sort());
  });

  test("batch: each item is checked against the stored memories; several may merge into one, near-misses are stored", async () => {
    const namespace = uniqueNs("batch-stored");
    const tabs = await storeOne(client, { content: "User prefers tabs over spaces", namespace });
    const spaces = await storeOne(client, { content: "User prefers spaces over tabs", namespace });
    const pg15 = await storeOne(client, { content: "The API runs on Postgres 15", namespace });
    const contents = ["The user prefers spaces over tabs.", "The API runs on Postgres 16", "the api runs on postgres 15!", "User prefers tabs over spaces", "In the API, Postgres 15 runs"];
    const res = await client.post("/v1/store/batch", { memories: contents.map((content) => ({ content, namespace })) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ count: 2, deduplicated_count: 3 });
    const [paraphrase, pg16, exact, same, swapped] = res.body.ids as string[];
    expect([paraphrase, exact, same]).toEqual([spaces, pg15, tabs]);
    expect(new Set([pg16, swapped, tabs, spaces, pg15]).size).toBe(5);
    expect(await contentsOf(namespace)).toEqual([...contents.filter((_, i) => i === 1 || i === 4), "User prefers tabs over spaces", "User prefers spaces over tabs", "The API runs on Postgres 15"].sort());
  });

  test("ingest: near-miss facts of one conversation, and of a known memory, are all stored", async () => {
    const namespace = uniqueNs("ingest");
    await storeOne(client, { content: "User has two cats", namespace });
    const messages = [
      { role: "user", content: "I like zebras. I like giraffes." },
      { role: "assistant", content: "Noted!" },
      { role: "user", content: "I use C++ at work. I use C# at work." },
      { role: "user", content: "Remember that the staging cluster runs Postgres 15. Remember that the staging cluster runs Postgres 16." },
      { role: "user", content: "I have three cats." },
    ];
    const res = await client.post("/v1/ingest", { messages, namespace });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ facts_extracted: 7, facts_stored: 7, facts_deduplicated: 0 });
    expect(await contentsOf(namespace)).toEqual([
      "The staging cluster runs Postgres 15",
      "The staging cluster runs Postgres 16",
      "User has three cats",
      "User has two cats",
      "User likes giraffes",
      "User likes zebras",
      "User uses C# at work",
      "User uses C++ at work",
    ]);
    // the same conversation again is all known facts
    const again = await client.post("/v1/ingest", { messages, namespace });
    expect(again.body).toMatchObject({ facts_extracted: 7, facts_stored: 0, facts_deduplicated: 7 });
  });
});
