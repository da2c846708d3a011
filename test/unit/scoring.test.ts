import { describe, expect, test } from "bun:test";
import { accessBoost, contextImportance, hybrid, keywordMatch, recency, score } from "../../src/domain/scoring";
import { relationStretch, typeDecay } from "../../src/domain/decay";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-01T00:00:00.000Z");
const createdDaysAgo = (days: number) => new Date(NOW - days * DAY).toISOString();

describe("recall scoring signals (hand-computed)", () => {
  test("recency = exp(-age_days/30)", () => {
    expect(recency(0)).toBe(1);
    expect(recency(30)).toBeCloseTo(0.367879, 6);
    expect(recency(90)).toBeCloseTo(0.049787, 6);
  });

  test("access_boost = min(1 + 0.1·count, 2)", () => {
    expect(accessBoost(0)).toBe(1);
    expect(accessBoost(3)).toBeCloseTo(1.3, 10);
    expect(accessBoost(10)).toBe(2);
    expect(accessBoost(50)).toBe(2);
  });

  test("hybrid weights 0.55/0.25/0.20, switching to 0.45/0.35/0.20 above keyword 0.3", () => {
    expect(hybrid(0.8, 0.2, 0.5)).toBeCloseTo(0.8 * 0.55 + 0.2 * 0.25 + 0.5 * 0.2, 12); // 0.59
    expect(hybrid(0.8, 0.3, 0.5)).toBeCloseTo(0.8 * 0.55 + 0.3 * 0.25 + 0.5 * 0.2, 12); // at 0.3: not above
    expect(hybrid(0.8, 0.31, 0.5)).toBeCloseTo(0.8 * 0.45 + 0.31 * 0.35 + 0.5 * 0.2, 12);
  });

  test("keyword match: BM25 relative to the best hit, times query-term coverage", () => {
    expect(keywordMatch(10, 10, 1)).toBe(1);
    expect(keywordMatch(5, 10, 1)).toBe(0.5);
    expect(keywordMatch(5, 10, 0.5)).toBe(0.25);
    expect(keywordMatch(0, 10, 1)).toBe(0);
    expect(keywordMatch(3, 0, 1)).toBe(0);
  });

  test("context importance lifts importance halfway to 1 at full relevance", () => {
    expect(contextImportance(0.5, 0)).toBe(0.5);
    expect(contextImportance(0.5, 1)).toBe(0.75);
    expect(contextImportance(0.2, 0.5)).toBeCloseTo(0.2 + 0.8 * 0.5 * 0.5, 12); // 0.4
    expect(contextImportance(1, 1)).toBe(1);
  });

  test("type decay halves at the type's half-life; pinned never decays", () => {
    const m = (memory_type: "observation" | "preference" | "general", days: number, pinned = false) => ({ memory_type, created_at: createdDaysAgo(days), pinned });
    expect(typeDecay(m("observation", 14), 0, NOW)).toBeCloseTo(0.5, 10);
    expect(typeDecay(m("preference", 360), 0, NOW)).toBeCloseTo(0.25, 10);
    expect(typeDecay(m("general", 60), 0, NOW)).toBeCloseTo(0.5, 10);
    expect(typeDecay(m("observation", 1000, true), 0, NOW)).toBe(1);
  });

  test("relations stretch the half-life by 20% each, up to 3x", () => {
    expect(relationStretch(0)).toBe(1);
    expect(relationStretch(5)).toBe(2);
    expect(relationStretch(10)).toBe(3);
    expect(relationStretch(40)).toBe(3);
    // observation with 5 relations: half-life 28 days
    expect(typeDecay({ memory_type: "observation", created_at: createdDaysAgo(28), pinned: false }, 5, NOW)).toBeCloseTo(0.5, 10);
  });

  test("final score multiplies hybrid, context importance, access boost and decay", () => {
    // general memory, 60 days old (decay 0.5, recency e^-2), importance 0.6, accessed 4 times, 0 relations.
    const memory = { created_at: createdDaysAgo(60), memory_type: "general" as const, pinned: false, importance: 0.6, access_count: 4 };
    const { similarity, signals } = score({ memory, cosine: 0.7, keyword: 0.4, relationCount: 0 }, NOW);
    const rec = Math.exp(-2);
    const hyb = 0.7 * 0.45 + 0.4 * 0.35 + rec * 0.2; // keyword > 0.3
    const ctx = 0.6 + 0.4 * 0.5 * 0.7; // relevance = max(0.7, 0.4)
    expect(signals).toEqual({
      vector: 0.7,
      keyword: 0.4,
      recency: expect.closeTo(rec, 12),
      base_importance: 0.6,
      effective_importance: expect.closeTo(0.3, 10),
      context_importance: expect.closeTo(ctx, 12),
      relation_count: 0,
      type_decay: expect.closeTo(0.5, 10),
    });
    expect(similarity).toBeCloseTo(hyb * ctx * 1.4 * 0.5, 10);
  });

  test("negative cosine counts as no vector similarity", () => {
    const memory = { created_at: createdDaysAgo(0), memory_type: "general" as const, pinned: true, importance: 1, access_count: 0 };
    const { signals, similarity } = score({ memory, cosine: -0.4, keyword: 0, relationCount: 0 }, NOW);
    expect(signals.vector).toBe(0);
    expect(similarity).toBeCloseTo(0.2, 10); // only recency 1 × 0.2
  });
});
