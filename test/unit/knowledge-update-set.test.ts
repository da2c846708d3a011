import { describe, expect, test } from "bun:test";
import { CHANGE_CASES, DISTRACTORS_PER_WALLET, KNOWLEDGE_UPDATE_SET, STABLE_CASES, planWallet } from "../../scripts/bench/knowledge-update-set";

/**
 * The knowledge-update bench (scripts/bench/knowledge-update.ts) finds a case's values in memories
 * by case-insensitive substring, so its set must keep every value findable and unambiguous: these
 * tests hold the set to the shape the bench's scoring relies on.
 */

const lower = (s: string) => s.toLowerCase();
const holds = (text: string, value: string) => lower(text).includes(lower(value));

describe("the knowledge-update set", () => {
  test("has at least 200 change cases and 100 non-change cases, with unique ids", () => {
    expect(CHANGE_CASES.length).toBeGreaterThanOrEqual(200);
    expect(STABLE_CASES.length).toBeGreaterThanOrEqual(100);
    const ids = KNOWLEDGE_UPDATE_SET.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("most change cases are about the user, and they cover many attributes", () => {
    const aboutUser = CHANGE_CASES.filter((c) => c.subject === "user").length;
    expect(aboutUser).toBeGreaterThan(CHANGE_CASES.length / 2);
    expect(new Set(CHANGE_CASES.map((c) => c.attribute)).size).toBeGreaterThanOrEqual(40);
  });

  test("every chain has 2–4 values, and every case's values are distinct non-empty strings, none inside another", () => {
    const bad = KNOWLEDGE_UPDATE_SET.filter((c) => {
      if (c.kind === "change" && (c.values.length < 2 || c.values.length > 4)) return true;
      return c.values.some((v, i) => v.trim() === "" || c.values.some((w, j) => i !== j && holds(w, v)));
    });
    expect(bad.map((c) => c.id)).toEqual([]);
  });

  test("every question is non-empty and names none of its case's values", () => {
    const bad = KNOWLEDGE_UPDATE_SET.filter((c) => {
      const questions = c.kind === "change" ? [c.questions.current, c.questions.former] : [c.question];
      return questions.some((q) => q.trim() === "" || c.values.some((v) => holds(q, v)));
    });
    expect(bad.map((c) => c.id)).toEqual([]);
  });

  test("statement k holds value k and no later value, both as said and as stored", () => {
    const bad = KNOWLEDGE_UPDATE_SET.filter((c) =>
      c.statements.some((s, k) => [s.said, s.stored].some((text) => !holds(text, c.values[k]!) || c.values.slice(k + 1).some((v) => holds(text, v)))),
    );
    expect(bad.map((c) => c.id)).toEqual([]);
  });
});

describe("planWallet", () => {
  const seeds = [1, 2, 3];

  test("spreads a case's statements over sessions in order, days apart, with its distractors", () => {
    for (const seed of seeds) {
      for (const c of KNOWLEDGE_UPDATE_SET) {
        const sessions = planWallet(c, seed);
        const days = sessions.map((s) => s.day);
        expect(days.every((d, i) => i === 0 || d > days[i - 1]!)).toBe(true);
        const where = c.statements.map((_, k) => sessions.findIndex((s) => s.items.some((i) => i.value === k)));
        expect(where.every((at, k) => at >= 0 && (k === 0 || at > where[k - 1]!))).toBe(true);
        const items = sessions.flatMap((s) => s.items);
        expect(items.filter((i) => i.value !== null).length).toBe(c.statements.length);
        expect(items.filter((i) => i.value === null).length).toBe(DISTRACTORS_PER_WALLET);
      }
    }
  });

  test("no distractor or small talk holds one of the case's values", () => {
    const leaks: string[] = [];
    for (const seed of seeds) {
      for (const c of KNOWLEDGE_UPDATE_SET) {
        for (const item of planWallet(c, seed).flatMap((s) => s.items)) {
          // a case's own statement may name the value it replaces, never another one
          const allowed = item.value === null ? [] : [c.values[item.value]!, c.values[item.value - 1] ?? ""];
          const smallTalk = item.value === null ? item.said : item.said.replace(c.statements[item.value]!.said, "");
          const foreign = c.values.filter((v) => !allowed.includes(v) && (holds(item.said, v) || holds(item.stored, v)));
          if (foreign.length > 0 || c.values.some((v) => holds(smallTalk, v) && item.value !== null)) leaks.push(`${c.id} seed ${seed}: ${item.said}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });

  test("is deterministic for a seed, and the seed changes the wallet", () => {
    const c = CHANGE_CASES[0]!;
    expect(planWallet(c, 7)).toEqual(planWallet(c, 7));
    expect(planWallet(c, 7)).not.toEqual(planWallet(c, 8));
  });
});
