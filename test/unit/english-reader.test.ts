import { describe, expect, test } from "bun:test";
import { EnglishReader } from "../../src/domain/english";

/** What a test compares of a token: every field, the lazy stem included. */
const plain = (reader: EnglishReader, text: string) => reader.tokens(text).map(({ normal, lemma, pos, type, stem }) => ({ normal, lemma, pos, type, stem }));

describe("the English reader", () => {
  test("replaces its wink instance every `docsPerInstance` documents, reading the same tokens after as before", () => {
    const reader = new EnglishReader(20);
    const sentence = "The user prefers dark roast coffee, not tea, since 2024.";
    const before = plain(reader, sentence);
    expect(before.map((t) => t.normal)).toContain("prefers");
    expect(before.find((t) => t.normal === "prefers")!.lemma).toBe("prefer");
    // documents full of words the model does not know: what an instance would otherwise keep for good
    for (let i = 0; i < 45; i++) reader.tokens(`Ticket ${i}-${crypto.randomUUID().slice(0, 8)} was closed.`);
    expect(reader.instances).toBe(3);
    expect(plain(reader, sentence)).toEqual(before);
    expect(plain(new EnglishReader(), sentence)).toEqual(before);
  });
});
