import { afterEach, describe, expect, test } from "bun:test";
import { factSignature } from "../../src/domain/fact-signature";
import { FactThread } from "../../src/embed/fact-thread";

const TEXTS = ["User doesn't use Vim", "The user does not use vim.", "Postgres 15 runs the API", "User has two cats", "User had 2 cats", "", "C++ over C#"];
const expected = (texts: string[]) => texts.map((t) => [...factSignature(t)]);
const idText = (i: number) => `Ticket ${i}-${crypto.randomUUID().slice(0, 8)} was closed on Tuesday.`;

let thread: FactThread;
afterEach(() => thread?.close());

describe("the fact thread", () => {
  test("answers what factSignature reads on this thread, in order, and [] for no texts without a worker", async () => {
    thread = new FactThread();
    expect(await thread.factSignatures([])).toEqual([]);
    expect(thread.started).toBe(0);
    const answers = await Promise.all([thread.factSignatures(TEXTS), thread.factSignatures(TEXTS.slice(2)), thread.factSignatures([TEXTS[0]!])]);
    expect(answers).toEqual([expected(TEXTS), expected(TEXTS.slice(2)), expected([TEXTS[0]!])]);
    expect(thread.started).toBe(1);
  });

  test("hands over to a fresh worker after `textsPerWorker` texts, answering every request meanwhile", async () => {
    thread = new FactThread({ textsPerWorker: 10 });
    const asked = Array.from({ length: 12 }, (_, i) => [idText(i), idText(i + 100), TEXTS[i % TEXTS.length]!]);
    // all sent at once: the successor warms up while the first worker still has requests to answer
    const answers = await Promise.all(asked.map((texts) => thread.factSignatures(texts)));
    expect(answers).toEqual(asked.map(expected));
    expect(thread.started).toBeGreaterThanOrEqual(2);
    // later requests reach the successor once it is warm, and read the same
    for (let waited = 0; thread.handovers < 1 && waited < 100; waited++) await Bun.sleep(20);
    expect(thread.handovers).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect(await thread.factSignatures(TEXTS)).toEqual(expected(TEXTS));
  });

  test("an idle thread ends its worker; the next request starts a fresh one and reads the same", async () => {
    thread = new FactThread({ idleEndMs: 50 });
    expect(await thread.factSignatures(TEXTS.slice(0, 4))).toEqual(expected(TEXTS.slice(0, 4)));
    const worker = (thread as unknown as { current: { worker: Worker } | null }).current!.worker;
    let ended = false;
    worker.addEventListener("close", () => (ended = true));
    for (let waited = 0; !ended && waited < 100; waited++) await Bun.sleep(20);
    expect(ended).toBe(true);
    expect((thread as unknown as { current: unknown }).current).toBeNull();
    expect(thread.started).toBe(1);
    expect(await thread.factSignatures(TEXTS)).toEqual(expected(TEXTS));
    expect(thread.started).toBe(2);
  });

  test("a thread asked again before idleEndMs keeps its worker", async () => {
    thread = new FactThread({ idleEndMs: 400 });
    for (let i = 0; i < 4; i++) {
      expect(await thread.factSignatures(TEXTS)).toEqual(expected(TEXTS));
      await Bun.sleep(100);
    }
    expect(thread.started).toBe(1);
  });

  test("a text the worker cannot read fails its own request only", async () => {
    thread = new FactThread();
    const bad = thread.factSignatures([42 as unknown as string]);
    const good = thread.factSignatures(TEXTS);
    await expect(bad).rejects.toThrow("fact signatures failed");
    expect(await good).toEqual(expected(TEXTS));
    expect(thread.started).toBe(1);
  });

  test("a worker that exits fails the requests it had, and the next request starts another", async () => {
    thread = new FactThread();
    await thread.factSignatures(["warm"]);
    const lost = thread.factSignatures(Array.from({ length: 200 }, (_, i) => idText(i)));
    (thread as unknown as { current: { worker: Worker } }).current.worker.terminate(); // as a crash would end it
    await expect(lost).rejects.toThrow(/fact worker/);
    expect(await thread.factSignatures(TEXTS)).toEqual(expected(TEXTS));
    expect(thread.started).toBe(2);
  });

  test("after close, requests are refused", async () => {
    thread = new FactThread();
    await thread.factSignatures(["warm"]);
    await thread.close();
    await expect(thread.factSignatures(TEXTS)).rejects.toThrow("closed");
  });
});
