import { describe, expect, test } from "bun:test";
import { accessBoost, contextImportance, cosineBackground, FULL_TRUST_COVERAGE, hybrid, idf, keywordMatch, keywordTrust, queryMatch, recency, relativeRelevance, score, termCoverage, vectorSimilarity } from "../../src/domain/scoring";
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

  test("keyword match: BM25 relative to the best hit of the query", () => {
    expect(keywordMatch(10, 10)).toBe(1);
    expect(keywordMatch(5, 10)).toBe(0.5);
    expect(keywordMatch(12, 10)).toBe(1);
    expect(keywordMatch(0, 10)).toBe(0);
    expect(keywordMatch(3, 0)).toBe(0);
    expect(keywordMatch(5, 10, 0.5)).toBe(0.25); // times the query's keyword trust
  });

  test("keyword trust follows the share of the query's IDF mass the best hit holds", () => {
    // 1,000 memories: "maria" in 6 of them, "jog" in 2, "morning" in 300, "xyz" in none
    const stats = { documents: 1000, frequencies: [6, 2, 300, 0] };
    const w = (n: number) => Math.log(1 + (1000 - n + 0.5) / (n + 0.5));
    expect(idf(1000, 6)).toBeCloseTo(w(6), 12);
    expect(idf(1000, 1000)).toBeCloseTo(Math.log(1 + 0.5 / 1000.5), 12); // never negative
    const total = w(6) + w(2) + w(300) + w(0);
    expect(termCoverage(stats, [true, false, false, false])).toBeCloseTo(w(6) / total, 12); // the name only: about a quarter
    expect(termCoverage(stats, [true, true, true, true])).toBeCloseTo(1, 12);
    expect(termCoverage(stats, [false, false, true, false])).toBeLessThan(0.1); // a frequent word is weak evidence
    expect(termCoverage({ documents: 0, frequencies: [] }, [])).toBe(0);
    expect(keywordTrust(0.2)).toBeCloseTo(0.2 / FULL_TRUST_COVERAGE, 12);
    expect(keywordTrust(FULL_TRUST_COVERAGE)).toBe(1);
    expect(keywordTrust(0.9)).toBe(1);
    expect(keywordTrust(0)).toBe(0);
    expect(keywordTrust(0.3, 0.6)).toBeCloseTo(0.5, 12); // another full-trust coverage, as the calibration bench tries
    expect(keywordTrust(0.6, 0.6)).toBe(1);
  });

  test("vector similarity: cosine above the median neighbour's, scaled to 0..1 up to halfway between the best cosine and 1", () => {
    expect(cosineBackground([0.9, 0.5, 0.6, 0.7, 0.8], 5)).toBe(0.7);
    expect(cosineBackground([0.9, 0.5, 0.6, 0.7, 0.8, 0.4], 6)).toBe(0.6); // the lower middle of an even count
    expect(cosineBackground([0.9, 0.8], 40)).toBe(0); // a small wallet: missing neighbours count as 0
    expect(cosineBackground([0.9, 0.8, 0.7, 0.6], 6)).toBe(0.6);
    expect(cosineBackground([], 40)).toBe(0);
    expect(vectorSimilarity(0.85, 0.7, 1)).toBeCloseTo(0.5, 12); // a perfect best: the ceiling is 1
    expect(vectorSimilarity(0.8, 0.4, 0.8)).toBeCloseTo(0.8, 12); // ceiling (1 + 0.8) / 2 = 0.9
    expect(vectorSimilarity(0.6, 0.4, 0.6)).toBeCloseTo(0.5, 12); // a best barely above the background gets half
    expect(vectorSimilarity(0.6, 0.7, 0.9)).toBe(0);
    expect(vectorSimilarity(0.5, 0, 0.5)).toBeCloseTo(0.5 / 0.75, 12);
    expect(vectorSimilarity(0.3, 0.5, 0.2)).toBe(0); // a best below the background: the ceiling is measured from the background
    expect(vectorSimilarity(-0.3, -0.2, 0)).toBe(0); // a negative background counts as 0
    expect(vectorSimilarity(0.8, 0.4, 0.8, 0)).toBe(1); // ceiling share 0: the best cosine is the ceiling
    expect(vectorSimilarity(0.8, 0.4, 0.8, 1)).toBeCloseTo(0.4 / 0.6, 12); // share 1: the ceiling is 1
  });

  test("query match is hybrid without recency; relevance is relative to the best candidate", () => {
    expect(queryMatch(0.8, 0.2)).toBeCloseTo(0.8 * 0.55 + 0.2 * 0.25, 12);
    expect(queryMatch(0.8, 0.5)).toBeCloseTo(0.8 * 0.45 + 0.5 * 0.35, 12);
    expect(relativeRelevance(0.3, 0.6)).toBe(0.5);
    expect(relativeRelevance(0.6, 0.6)).toBe(1);
    expect(relativeRelevance(0, 0)).toBe(1); // nothing matches: no candidate is less relevant than another
  });

  test("context importance lifts importance halfway to 1 at full match, times relative relevance^4", () => {
    expect(contextImportance(0.5, 0, 1)).toBe(0.5);
    expect(contextImportance(0.5, 1, 1)).toBe(0.75);
    expect(contextImportance(0.2, 0.5, 1)).toBeCloseTo(0.2 + 0.8 * 0.5 * 0.5, 12); // 0.4
    expect(contextImportance(1, 1, 1)).toBe(1);
    expect(contextImportance(0.5, 1, 0.5)).toBeCloseTo(0.75 / 16, 12);
  });

  test("a maximal access boost never lifts a memory with under 84% of another's relevance above it", () => {
    const at = (access_count: number) => ({ created_at: createdDaysAgo(0), memory_type: "general" as const, pinned: false, importance: 0.5, access_count });
    const relevant = score({ memory: at(0), vector: 0.6, keyword: 0.5, relevance: 1, relationCount: 0 }, NOW).similarity;
    const match = queryMatch(0.6, 0.5);
    // the boosted memory matches with 83% of the best match, and gets access_boost 2
    const v = (0.83 * match - 0.5 * 0.35) / 0.45;
    const boosted = score({ memory: at(50), vector: v, keyword: 0.5, relevance: 0.83, relationCount: 0 }, NOW).similarity;
    expect(boosted).toBeLessThan(relevant);
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
    const { similarity, signals } = score({ memory, vector: 0.7, keyword: 0.4, relevance: 1, relationCount: 0 }, NOW);
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

  test("relative relevance scales the whole score through context importance", () => {
    const memory = { created_at: createdDaysAgo(0), memory_type: "general" as const, pinned: true, importance: 1, access_count: 0 };
    const full = score({ memory, vector: 0.4, keyword: 0, relevance: 1, relationCount: 0 }, NOW);
    const half = score({ memory, vector: 0.4, keyword: 0, relevance: 0.5, relationCount: 0 }, NOW);
    expect(half.signals.context_importance).toBeCloseTo(full.signals.context_importance / 16, 12);
    expect(half.similarity).toBeCloseTo(full.similarity / 16, 12);
  });
});
