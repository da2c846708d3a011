import { describe, expect, test } from "bun:test";
import { contentHash, queryTerms, estimateTokens } from "../../src/domain/text";
import { isDuplicate, merge } from "../../src/domain/dedup";
import { fitBudget, renderText, type ContextItem } from "../../src/domain/context";
import { newMemory, type Memory } from "../../src/domain/memory";

const memory = (over: Partial<Memory> = {}): Memory =>
  newMemory({ user_id: crypto.randomUUID(), content: "User prefers tabs", memory_type: "preference", ...over }, "2026-01-01T00:00:00.000Z");

describe("text", () => {
  test("content hash ignores case, accents, spacing and punctuation, not words", () => {
    expect(contentHash("User prefers  Tabs!")).toBe(contentHash("user prefers tabs"));
    expect(contentHash("Café au lait")).toBe(contentHash("cafe au LAIT"));
    expect(contentHash("User prefers tabs")).not.toBe(contentHash("User prefers spaces"));
  });

  test("query terms drop stopwords and operators, unless nothing else is left", () => {
    expect(queryTerms('what is the "editor" -theme* NEAR(a)')).toEqual(["editor", "theme", "near"]);
    expect(queryTerms("the")).toEqual(["the"]);
    expect(queryTerms("the user's editor, version 3")).toEqual(["user", "editor", "version", "3"]);
    expect(queryTerms("*** ()")).toEqual([]);
  });

  test("token estimate is ceil(chars/4)", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
  });
});

describe("dedup", () => {
  const v = (...xs: number[]) => new Float32Array(xs);
  test("same normal form or cosine at the threshold is a duplicate, only within a namespace", () => {
    const a = { memory: memory(), embedding: v(1, 0), content_hash: contentHash("User prefers tabs") };
    const sameText = { memory: memory({ content: "user prefers TABS." }), embedding: v(0, 1), content_hash: contentHash("user prefers TABS.") };
    const close = { memory: memory({ content: "User prefers tabs!!" }), embedding: v(0.96, 0.28), content_hash: "other" };
    const far = { memory: memory({ content: "User prefers tabs" }), embedding: v(0.6, 0.8), content_hash: "other2" };
    const elsewhere = { ...sameText, memory: memory({ namespace: "work" }) };
    expect(isDuplicate(a, sameText, 0.95)).toBe(true);
    expect(isDuplicate(a, close, 0.95)).toBe(true);
    expect(isDuplicate(a, far, 0.95)).toBe(false);
    expect(isDuplicate(a, elsewhere, 0.95)).toBe(false);
  });

  // The full near-miss / paraphrase tables are in dedup.test.ts.
  test("near-duplicates need the same word order as well as cosine", () => {
    const a = { memory: memory({ content: "User prefers tabs over spaces" }), embedding: v(1, 0), content_hash: "h1" };
    const b = { memory: memory({ content: "User prefers spaces over tabs" }), embedding: v(1, 0), content_hash: "h2" };
    const c = { memory: memory({ content: "The user prefers tabs over spaces." }), embedding: v(1, 0), content_hash: "h3" };
    expect(isDuplicate(a, b, 0.95)).toBe(false);
    expect(isDuplicate(a, c, 0.95)).toBe(true);
  });

  test("near-duplicates must carry the same facts: figures, and no extra word that narrows the claim", () => {
    const a = { memory: memory({ content: "The API runs on Postgres 15" }), embedding: v(1, 0), content_hash: "h1" };
    const b = { memory: memory({ content: "The API runs on Postgres 16" }), embedding: v(1, 0), content_hash: "h2" };
    const c = { memory: memory({ content: "The API runs on Postgres 15 today" }), embedding: v(1, 0), content_hash: "h3" };
    const d = { memory: memory({ content: "the API runs on postgres 15!" }), embedding: v(1, 0), content_hash: "h4" };
    expect(isDuplicate(a, b, 0.95)).toBe(false);
    expect(isDuplicate(a, c, 0.95)).toBe(false);
    expect(isDuplicate(a, d, 0.95)).toBe(true);
  });

  test("merge keeps identity, takes max importance, unions tags, incoming metadata wins, later expiry", () => {
    const existing = memory({ importance: 0.4, metadata: { tags: ["a"], source: "chat", keep: 1 }, expires_at: "2030-01-01T00:00:00.000Z" });
    const incoming = memory({ importance: 0.9, metadata: { tags: ["b", "a"], source: "email" }, pinned: true, expires_at: "2031-01-01T00:00:00.000Z" });
    const merged = merge(existing, incoming, "2026-02-02T00:00:00.000Z");
    expect(merged.id).toBe(existing.id);
    expect(merged.content).toBe(existing.content);
    expect(merged.created_at).toBe(existing.created_at);
    expect(merged.importance).toBe(0.9);
    expect(merged.metadata).toEqual({ tags: ["a", "b"], source: "email", keep: 1 });
    expect(merged.pinned).toBe(true);
    expect(merged.expires_at).toBe("2031-01-01T00:00:00.000Z");
    expect(merged.updated_at).toBe("2026-02-02T00:00:00.000Z");
    expect(merge(existing, memory({ expires_at: null }), "now").expires_at).toBeNull();
  });

  test("an immutable memory absorbs a duplicate unchanged", () => {
    const existing = memory({ immutable: true, importance: 0.1 });
    expect(merge(existing, memory({ importance: 1 }), "2026-02-02T00:00:00.000Z")).toBe(existing);
  });
});

describe("context budget", () => {
  const item = (content: string, source: ContextItem["source"] = "relevant"): ContextItem => ({
    id: crypto.randomUUID(),
    content,
    importance: 0.5,
    memory_type: "general",
    tags: [],
    source,
  });

  test("never exceeds max_tokens; skips an item that does not fit and takes later ones", () => {
    const items = [item("a".repeat(200)), item("b".repeat(2000)), item("c".repeat(100))];
    const request = { format: "text" as const, include_metadata: false, max_memories: 10, max_tokens: 100 };
    const chosen = fitBudget(items, request);
    expect(chosen.map((i) => i.content[0])).toEqual(["a", "c"]);
    expect(Math.ceil(renderText(chosen, false).length / 4)).toBeLessThanOrEqual(100);
  });

  test("the incremental count equals the final rendering's size exactly (text and structured)", () => {
    const items = Array.from({ length: 30 }, (_, i) => item(`memory number ${i} `.repeat(i % 5 + 1)));
    for (const format of ["text", "structured"] as const) {
      for (const max_tokens of [100, 150, 333, 1000]) {
        const chosen = fitBudget(items, { format, include_metadata: true, max_memories: 100, max_tokens });
        const rendered = format === "text" ? renderText(chosen, true) : JSON.stringify({ memories: chosen });
        expect(Math.ceil(rendered.length / 4)).toBeLessThanOrEqual(max_tokens);
        // one more item would not have fit, or there was none left
        const next = items.find((i) => !chosen.includes(i));
        if (next && chosen.length < items.length) {
          const withNext = format === "text" ? renderText([...chosen, next], true) : JSON.stringify({ memories: [...chosen, next] });
          expect(withNext.length).toBeGreaterThan(rendered.length);
        }
      }
    }
  });

  test("max_memories caps the count", () => {
    const items = Array.from({ length: 20 }, (_, i) => item(`m${i}`));
    expect(fitBudget(items, { format: "text", include_metadata: false, max_memories: 7, max_tokens: 16000 })).toHaveLength(7);
  });
});
