import { describe, expect, test } from "bun:test";
import { compareUtf8 } from "../../src/store/redis/byte-order";

const bytewise = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

describe("compareUtf8 orders as UTF-8 bytes do", () => {
  test("ASCII keys, prefixes and equal strings", () => {
    expect(compareUtf8("engram:mem:{u}:a", "engram:mem:{u}:b")).toBeLessThan(0);
    expect(compareUtf8("abc", "ab")).toBeGreaterThan(0);
    expect(compareUtf8("", "a")).toBeLessThan(0);
    expect(compareUtf8("same", "same")).toBe(0);
  });

  test("a code point above U+FFFF sorts after U+E000–U+FFFF, unlike UTF-16 code units", () => {
    // "\uffff" < "😀" in UTF-8 (EF BF BF < F0 9F 98 80), but "\uffff" > "\ud83d" as code units
    expect("\uffff" > "😀").toBe(true);
    expect(compareUtf8("\uffff", "😀")).toBeLessThan(0);
    expect(compareUtf8("😀", "\ue000")).toBeGreaterThan(0);
    expect(compareUtf8("😀", "😁")).toBeLessThan(0);
  });

  test("agrees with Buffer.compare on random well-formed strings", () => {
    const alphabet = ["a", "Z", "0", "~", "é", "ß", "中", "\ue000", "\uffff", "😀", "𝄞", "\u0000", "\u07ff", "\u0800"];
    let seed = 1;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const word = () => Array.from({ length: Math.floor(rnd() * 5) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("");
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = rnd() < 0.3 ? a + word() : word();
      expect([a, b, Math.sign(compareUtf8(a, b))]).toEqual([a, b, bytewise(a, b)]);
    }
  });
});
