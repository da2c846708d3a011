import { describe, expect, test } from "bun:test";
import { EncoderReplacementJudge } from "../../src/domain/ingest/encoder-replacement.ts";
import type { TextEmbedder } from "../../src/domain/ports.ts";

/**
 * An embedder that places each text it knows (as the judge sends it: without its subject) at a
 * given angle in a plane; every other text gets an axis of its own, so unrelated texts have cosine
 * 0 (the judge's background), or (common² / (common² + 1)) with a common direction. Cosine of two
 * known texts = cos(angle difference) without one.
 */
function angled(angles: Record<string, number>, common = 0): TextEmbedder & { seen: string[][] } {
  const seen: string[][] = [];
  const axes = new Map<string, number>();
  return {
    modelId: "angled",
    dimension: 64,
    seen,
    async embed(texts: string[]) {
      seen.push(texts);
      const vectors = texts.map((t) => {
        const v = new Float32Array(64);
        const a = angles[t];
        if (a === undefined) v[3 + (axes.get(t) ?? axes.set(t, axes.size).get(t)!)] = 1;
        else [v[1], v[2]] = [Math.cos(a), Math.sin(a)];
        v[0] = common; // a direction every text shares, as anisotropic models have
        return v;
      });
      return { vectors, tokens: texts.map(() => 1) };
    },
  };
}

describe("the encoder's replacement judge", () => {
  // cos(0.5) = 0.88, cos(1.2) = 0.36; over a background of 0 the judge asks for 0.53
  const embedder = () => angled({ "laptop is on NixOS now": 0, "laptop runs Arch Linux": 0.5, "office is in Berlin": 1.2 });

  test("a new named value said to be current replaces the most alike fact of the same subject", async () => {
    const judge = new EncoderReplacementJudge(embedder());
    expect(await judge.replaced("The laptop is on NixOS now", ["The office is in Berlin", "The laptop runs Arch Linux"])).toEqual([1]);
  });

  test("the same thing of the same speaker counts however the sentence is built", async () => {
    const judge = () => new EncoderReplacementJudge(angled({ "CI is now Drone": 0, "CI runs on Buildkite": 0.5 }));
    // subject the team / subject the CI: the same thing, the team's
    expect(await judge().replaced("The team's CI is now Drone", ["The team's CI runs on Buildkite"])).toEqual([0]);
    // the user's CI is not the team's
    expect(await judge().replaced("User's CI is now Drone", ["The team's CI runs on Buildkite"])).toEqual([]);
  });

  test("nothing is alike enough: nothing replaced", async () => {
    const judge = new EncoderReplacementJudge(embedder());
    expect(await judge.replaced("The laptop is on NixOS now", ["The office is in Berlin"])).toEqual([]);
  });

  test("only a fact said to be current, with a named value, is judged; nothing is embedded otherwise", async () => {
    for (const fresh of ["The laptop runs NixOS", "The laptop is on something else now", "User wants to move the laptop to NixOS now", "The laptop is no longer on NixOS", "The laptop is also on NixOS now"]) {
      const e = embedder();
      expect(await new EncoderReplacementJudge(e).replaced(fresh, ["The laptop runs Arch Linux"])).toEqual([]);
      expect(e.seen).toEqual([]);
    }
  });

  test("a candidate about another subject, with the same name, or without a named value is never replaced", async () => {
    const e = embedder();
    const judge = new EncoderReplacementJudge(e);
    expect(await judge.replaced("The laptop is on NixOS now", ["User's sister runs Arch Linux", "The laptop runs NixOS 23.11", "The laptop runs hot"])).toEqual([]);
    expect(e.seen).toEqual([]);
  });

  test("two facts the model cannot tell apart are a restatement, not a change", async () => {
    const judge = new EncoderReplacementJudge(angled({ "laptop is on NixOS now": 0, "laptop is on Ubuntu now": 0 }));
    expect(await judge.replaced("The laptop is on NixOS now", ["The laptop is on Ubuntu now"])).toEqual([]);
  });

  test("how alike is alike enough follows the model's cosine between unrelated texts", async () => {
    // a common direction of weight 2: unrelated texts have cosine 0.8, so 0.53 of the way to 1 is 0.906
    const judge = (angle: number) => new EncoderReplacementJudge(angled({ "laptop is on NixOS now": 0, "laptop runs Arch Linux": angle }, 2));
    // cos 1.2 rad in the plane: a cosine of (4 + 0.36) / 5 = 0.87 overall, far above a fixed 0.6 but not above this model's background
    expect(await judge(1.2).replaced("The laptop is on NixOS now", ["The laptop runs Arch Linux"])).toEqual([]);
    // cos 0.5 rad: (4 + 0.88) / 5 = 0.98
    expect(await judge(0.5).replaced("The laptop is on NixOS now", ["The laptop runs Arch Linux"])).toEqual([0]);
  });

  test("an embedding server that fails leaves the rules' relations alone, and is asked again next time", async () => {
    const working = angled({ "laptop is on NixOS now": 0, "laptop runs Arch Linux": 0.5 });
    let down = true;
    const flaky = { ...working, embed: (texts: string[]) => (down ? Promise.reject(new Error("503")) : working.embed(texts)) };
    const warned: string[] = [];
    const judge = new EncoderReplacementJudge(flaky, (message) => warned.push(message));
    expect(await judge.replaced("The laptop is on NixOS now", ["The laptop runs Arch Linux"])).toEqual([]);
    expect(warned).toHaveLength(1);
    down = false;
    expect(await judge.replaced("The laptop is on NixOS now", ["The laptop runs Arch Linux"])).toEqual([0]);
  });
});
