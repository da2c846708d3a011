import { describe, expect, test } from "bun:test";
import {
  epochMs,
  escapeTagValue,
  fromTagForm,
  tagForm,
  escapeTextTerm,
  knnQuery,
  memoryFilterQuery,
  numericRange,
  tagAnyOf,
  textAnyOf,
} from "../src/store/redis/query";
import { globEscape, isRecordId, Keys, LegacyKeys } from "../src/store/redis/keys";
import calculateSlot from "cluster-key-slot";
import { docHead, docJson, fromBase64, NEVER, orderKey, toDoc, vectorBase64 } from "../src/store/redis/memory-doc";
import type { Memory } from "../src/domain/memory";
import { KnnPolicy } from "../src/store/redis/knn-policy";
import { requireModules } from "../src/store/redis/modules";

/** Strings that are query syntax somewhere in RediSearch, plus unicode that must pass through. */
const HOSTILE = [
  "@user_id:{x}",
  "{ } | - * \" ' ( ) : ~ % $ \\",
  "a|b",
  "-a",
  "a*",
  "*",
  "%fuzzy%",
  "$param",
  "~optional",
  "(x)=>[KNN 1 @embedding $vec]",
  "x}|{y",
  "back\\slash\\",
  "quote\"inside",
  "it's",
  "tab\tand\nnewline",
  "  padded  ",
  "semi;colon,comma.dot<>=!#^&+/?`",
  "[1 2]",
  "日本語のタグ",
  "café",
  "emoji 🚀🔥",
  "ZWJ 👩‍💻",
  "\u0000nul",
];

/**
 * Reads an escaped value the way the query lexer does: a backslash makes the next character a
 * literal. Returns the literal text, or null if an operator character appears unescaped.
 */
function unescapeStrict(escaped: string): string | null {
  let out = "";
  for (let i = 0; i < escaped.length; i++) {
    const c = escaped[i]!;
    if (c === "\\") {
      if (i + 1 >= escaped.length) return null; // dangling backslash would escape what follows
      out += escaped[++i];
      continue;
    }
    if (/[\x00-\x7f]/.test(c) && !/[A-Za-z0-9_]/.test(c)) return null;
    out += c;
  }
  return out;
}

describe("RediSearch escaping (no server)", () => {
  test("word characters pass through unchanged", () => {
    expect(escapeTagValue("abc_XYZ_019")).toBe("abc_XYZ_019");
    expect(escapeTextTerm("deploy")).toBe("deploy");
  });

  test("every ASCII punctuation character, space and control character is backslash-escaped", () => {
    for (let code = 0; code < 128; code++) {
      const c = String.fromCharCode(code);
      const expected = /[A-Za-z0-9_]/.test(c) ? c : `\\${c}`;
      expect(escapeTagValue(c)).toBe(expected);
      expect(escapeTextTerm(c)).toBe(expected);
    }
  });

  test("non-ASCII letters, CJK and emoji pass through (they are not operators)", () => {
    expect(escapeTagValue("日本語")).toBe("日本語");
    expect(escapeTagValue("café")).toBe("café");
    expect(escapeTagValue("🚀")).toBe("🚀");
    expect(escapeTagValue("👩‍💻")).toBe("👩‍💻");
  });

  test.each(HOSTILE)("hostile value %p stays one literal", (value) => {
    for (const escaped of [escapeTagValue(value), escapeTextTerm(value)]) {
      expect(unescapeStrict(escaped)).toBe(value);
    }
  });

  test("a UUID's dashes are escaped (a bare '-' is negation)", () => {
    expect(escapeTagValue("0b1e-42")).toBe("0b1e\\-42");
  });

  test("tag forms: printable values as they are; empty, control characters and the marker hex-encoded", () => {
    for (const plain of ["work", " padded ", "a,b", "日本", "🚀", "~single", "x~~"]) expect(tagForm(plain)).toBe(plain);
    expect(tagForm("")).toBe("~~");
    expect(tagForm("a\x1fb")).toBe("~~611f62");
    expect(tagForm("\u0000")).toBe("~~00");
    expect(tagForm("~~61")).toBe("~~7e7e3631");
    for (const v of ["", "a\x1fb", "\u0000", "~~61", "tab\tx", "work", "日本\n"]) {
      expect(fromTagForm(tagForm(v))).toBe(v);
      expect(unescapeStrict(escapeTagValue(tagForm(v)))).toBe(tagForm(v));
    }
    expect(new Set(["", "~~", "~~~~", "~~7e7e"].map(tagForm)).size).toBe(4);
  });
});

describe("query building (no server)", () => {
  test("tagAnyOf: exact values joined by |, in their tag form", () => {
    expect(tagAnyOf("tags", ["a b", "c|d"])).toBe("@tags:{a\\ b | c\\|d}");
    expect(tagAnyOf("session_id", [""])).toBe("@session_id:{\\~\\~}");
    expect(() => tagAnyOf("tags", [])).toThrow();
  });

  test("numericRange: exclusive bounds, open ends, integers without exponent", () => {
    expect(numericRange("expires_at", { above: 1_700_000_000_123 })).toBe("@expires_at:[(1700000000123 +inf]");
    expect(numericRange("created_at", { below: 5 })).toBe("@created_at:[-inf (5]");
    expect(numericRange("created_at", { above: 1, below: 2 })).toBe("@created_at:[(1 (2]");
    expect(numericRange("expires_at", { atMost: 7 })).toBe("@expires_at:[-inf 7]");
    expect(numericRange("expires_at", { above: NEVER })).toBe("@expires_at:[(8640000000000000 +inf]");
    expect(numericRange("x", { above: 1e21 })).toBe("@x:[(1000000000000000000000 +inf]");
    expect(() => numericRange("x", { above: Number.NaN })).toThrow();
  });

  test("textAnyOf: distinct, non-empty, escaped terms OR-ed inside @content", () => {
    expect(textAnyOf(["deploy", "tuesday", "deploy", ""])).toBe("@content:(deploy | tuesday)");
    expect(textAnyOf(["ok", "nul\u0000", "bell\x07"])).toBe("@content:(ok)");
    expect(textAnyOf(["a-b", "x*"])).toBe("@content:(a\\-b | x\\*)");
    expect(textAnyOf([])).toBeNull();
    expect(textAnyOf([""])).toBeNull();
  });

  test("memoryFilterQuery: user, expiry to the ms and not deleted are always there", () => {
    expect(memoryFilterQuery("u-1", {}, 1000)).toBe("@user_id:{u\\-1} -@expires_at:[-inf 1000] -@deleted:{1}");
  });

  test("memoryFilterQuery: every filter, each value escaped", () => {
    const q = memoryFilterQuery(
      "u",
      {
        namespace: "work space",
        session_id: "s:1",
        agent_id: "a|b",
        memory_type: "decision",
        pinned: false,
        tags: ["x", "y z"],
        created_after: "2024-01-01T00:00:00.000Z",
        created_before: "2024-02-01T00:00:00.000Z",
      },
      5,
    );
    expect(q).toBe(
      "@user_id:{u} -@expires_at:[-inf 5] -@deleted:{1} @namespace:{work\\ space} @session_id:{s\\:1} @agent_id:{a\\|b} " +
        "@memory_type:{decision} @pinned:{0} @tags:{x | y\\ z} @created_at:[(1704067200000 (1706745600000]",
    );
  });

  test("memoryFilterQuery: include_deleted drops the state clause; pinned true; empty tag list is no filter", () => {
    expect(memoryFilterQuery("u", { include_deleted: true, pinned: true, tags: [] }, 0)).toBe("@user_id:{u} -@expires_at:[-inf 0] @pinned:{1}");
  });

  test("an invalid date is an error, never a dropped filter", () => {
    expect(() => memoryFilterQuery("u", { created_after: "yesterday" }, 0)).toThrow(/created_after/);
    expect(() => epochMs("nope", "x")).toThrow();
  });

  test("knnQuery: pre-filter in parentheses, vector and k as parameters", () => {
    expect(knnQuery("@user_id:{u}")).toBe("(@user_id:{u})=>[KNN $k @embedding $vec AS dist]");
    expect(knnQuery("@user_id:{u}", " HYBRID_POLICY BATCHES")).toBe("(@user_id:{u})=>[KNN $k @embedding $vec HYBRID_POLICY BATCHES AS dist]");
  });
});

describe("keys and documents (no server)", () => {
  test("layout under the prefix: every key of a wallet carries its user id as hash tag", () => {
    const k = new Keys("engram:");
    expect(k.index).toBe("engram:idx:memories");
    expect(k.memory("u1", "m1")).toBe("engram:mem:{u1}:m1");
    expect(k.out("u1", "m1")).toBe("engram:mem:{u1}:m1:out");
    expect(k.in("u1", "m1")).toBe("engram:mem:{u1}:m1:in");
    expect(k.history("u1", "m1")).toBe("engram:mem:{u1}:m1:history");
    expect(k.relation("u1", "r1")).toBe("engram:rel:{u1}:r1");
    expect(k.seq("u1")).toBe("engram:seq:{u1}");
    expect(k.access("u1")).toBe("engram:access:{u1}");
    expect(k.slot("u1")).toBe("{u1}");
    expect(k.memoriesOf("u1") + "m1").toBe(k.memory("u1", "m1"));
    expect(k.relationsOf("u1") + "r1").toBe(k.relation("u1", "r1"));
    expect(k.wallet("0xABC")).toBe("engram:wallet:0xabc");
    expect(k.documentOf("engram:mem:{u1}:m1")).toEqual({ userId: "u1", id: "m1" });
    expect(k.documentOf("engram:mem:{u1}:m1:out")).toBeNull();
    expect(k.documentOf("engram:mem:m1")).toBeNull();
    expect(k.documentOf("other:mem:{u1}:m1")).toBeNull();
    expect(() => k.memory("u}1", "m1")).toThrow(/brace/);
  });

  test("one wallet, one slot: its keys hash alike, and the index prefix covers every wallet's documents", () => {
    const k = new Keys("engram:");
    const keys = [k.memory("u1", "m1"), k.out("u1", "m1"), k.history("u1", "m2"), k.relation("u1", "r"), k.seq("u1"), k.access("u1"), k.slot("u1")];
    expect(new Set(keys.map((key) => calculateSlot(key))).size).toBe(1);
    expect(calculateSlot(k.memory("u2", "m1"))).not.toBe(calculateSlot(k.memory("u1", "m1")));
    for (const user of ["u1", "u2"]) expect(k.memory(user, "m").startsWith(k.memoryPrefix)).toBe(true);
  });

  test("layout 1's keys, for the move to the current layout", () => {
    const legacy = new LegacyKeys("engram:");
    expect(legacy.memory("m1")).toBe("engram:mem:m1");
    expect(legacy.sideKeys("m1")).toEqual(["engram:mem:m1:out", "engram:mem:m1:in", "engram:mem:m1:history"]);
    expect(legacy.relation("r1")).toBe("engram:rel:r1");
    expect(legacy.access("u1")).toBe("engram:access:u1");
    expect(legacy.seq).toBe("engram:seq");
    expect(legacy.memoryIdOf("engram:mem:m1")).toBe("m1");
    expect(legacy.memoryIdOf("engram:mem:m1:out")).toBeNull();
    expect(legacy.memoryIdOf("engram:mem:{u1}:m1")).toBeNull();
    expect(legacy.relationIdOf("engram:rel:r1")).toBe("r1");
    expect(legacy.accessUserOf("engram:access:{u1}")).toBeNull();
    expect(new LegacyKeys("t[1]:").memoryScanPattern()).toBe("t\\[1\\]:mem:[^{]*");
  });

  test("SCAN patterns escape glob characters of the prefix; ids with ':' are not record ids", () => {
    expect(globEscape("a*b?[c]\\")).toBe("a\\*b\\?\\[c\\]\\\\");
    expect(new Keys("t[1]:").memoryScanPattern()).toBe("t\\[1\\]:mem:*");
    expect(isRecordId("0b1e0000-0000-4000-8000-000000000000")).toBe(true);
    expect(isRecordId("x:out")).toBe(false);
    expect(isRecordId("")).toBe(false);
  });

  const memory: Memory = {
    id: "m1",
    user_id: "u1",
    namespace: "default",
    content: "Café déjà-vu: the team's deploy_window is Tuesday!",
    metadata: { tags: ["a"] },
    importance: 0.5,
    memory_type: "general",
    session_id: null,
    agent_id: null,
    pinned: true,
    immutable: false,
    expires_at: "2030-01-01T00:00:00.000Z",
    created_at: "2024-01-01T00:00:00.000Z",
    updated_at: "2024-01-01T00:00:00.000Z",
    accessed_at: "2024-01-01T00:00:00.000Z",
    access_count: 0,
    deleted_at: null,
  };

  test("a document keeps the record verbatim and indexes the normalized words", () => {
    const doc = toDoc(memory, Float32Array.from([0.1, 0.2]), "h", 7);
    expect(doc.m).toEqual(memory);
    expect(doc.text).toBe("cafe deja vu the team s deploy window is tuesday");
    expect(doc.ix).toEqual({
      user_id: "u1",
      namespace: "default",
      session_id: null,
      agent_id: null,
      tags: ["a"],
      created: 1704067200000,
      expires: 1893456000000,
      deleted: "0",
      pinned: "1",
      memory_type: memory.memory_type,
      importance: memory.importance,
      access_count: memory.access_count,
    });
    expect(doc.embedding).toEqual([Math.fround(0.1), Math.fround(0.2)]);
    expect(Float32Array.from(doc.embedding)).toEqual(Float32Array.from([0.1, 0.2]));
  });

  test("docHead + the server's splice is the same document", () => {
    const doc = toDoc(memory, Float32Array.from([0.5]), "h", 3);
    const spliced = `${docHead(memory)},"hash":"h","seq":3,"order":${doc.order},"embedding":[0.5],"vec":${JSON.stringify(vectorBase64(Float32Array.from([0.5])))}}`;
    expect(JSON.parse(spliced)).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  test("vec: the vector's FLOAT32 bytes as base64, read back to the same values; null stays null", () => {
    const v = Float32Array.from([0.1, -2.5, 1e-30, 3.4e38, -0]);
    expect(Array.from(fromBase64(vectorBase64(v))!)).toEqual(Array.from(v));
    expect(Array.from(fromBase64(vectorBase64(v.subarray(1, 3)))!)).toEqual([-2.5, Math.fround(1e-30)]);
    expect(fromBase64(null)).toBeNull();
  });

  test("documents are well-formed JSON for RedisJSON: lone surrogates become U+FFFD (values and keys)", () => {
    const text = docJson({ a: "x\ud800y", ["k\udc00"]: ["\ud83d"], ok: "🚀" });
    expect(text).not.toMatch(/\\ud[89a-f]/i);
    expect(JSON.parse(text)).toEqual({ a: "x\ufffdy", "k\ufffd": ["\ufffd"], ok: "🚀" });
  });

  test("order: newer creation first, insertion order within one millisecond", () => {
    expect(orderKey(2, 0)).toBeGreaterThan(orderKey(1, 1023));
    expect(orderKey(1, 6)).toBeGreaterThan(orderKey(1, 5));
    expect(Number.isSafeInteger(orderKey(Date.parse("2200-01-01T00:00:00Z"), 1023))).toBe(true);
  });
});

describe("KNN hybrid policy (no server)", () => {
  /**
   * A deployment of `masters` masters whose index holds `indexSize` documents in all, answering the
   * count queries from fixed numbers: the whole index (`*`), the wallet, the wallet in a namespace.
   */
  function fakeClient(indexSize: number, namespaces: Record<string, number>, masters = 1) {
    const calls: string[] = [];
    const client = {
      sendCommand: async (args: string[]) => {
        calls.push(args[0]!);
        if (args[0] === "FT.SEARCH" && args[2] === "*") return [indexSize];
        if (args[0] === "FT.SEARCH" && args.slice(3, 6).join(" ") === "LIMIT 0 0") {
          const ns = /@namespace:\{(.*)\}$/.exec(args[2]!)?.[1];
          const counts = Object.entries(namespaces).filter(([name]) => ns === undefined || escapeTagValue(tagForm(name)) === ns);
          return [counts.reduce((sum, [, n]) => sum + n, 0)];
        }
        throw new Error(`unexpected ${args.join(" ")}`);
      },
    };
    const nodes = { cluster: masters > 1, at: () => client, masters: async () => Array.from({ length: masters }, (_, i) => ({ name: `m${i}`, commands: client })) };
    return { client: nodes as unknown as ConstructorParameters<typeof KnnPolicy>[0], calls };
  }

  test("never waits: the engine's choice until the estimates are loaded, then BATCHES only for large unfiltered shares", async () => {
    const { client, calls } = fakeClient(1000, { default: 700, small: 10, "": 50 });
    const policy = new KnnPolicy(client, new Keys("t:"));
    expect(policy.hint("u", {})).toBe("");
    await Bun.sleep(5);
    expect(calls.sort()).toEqual(["FT.SEARCH", "FT.SEARCH"]);
    expect(policy.hint("u", {})).toBe(" HYBRID_POLICY BATCHES");
    // a namespace is counted on first use
    for (const namespace of ["default", "small", "missing"]) expect(policy.hint("u", { namespace })).toBe("");
    await Bun.sleep(5);
    expect(policy.hint("u", { namespace: "default" })).toBe(" HYBRID_POLICY BATCHES");
    expect(policy.hint("u", { namespace: "small" })).toBe("");
    expect(policy.hint("u", { namespace: "missing" })).toBe("");
    expect(policy.hint("u", { namespace: "default", memory_type: "decision" })).toBe("");
    expect(policy.hint("u", { tags: ["x"] })).toBe("");
    expect(policy.hint("u", { tags: [] })).toBe(" HYBRID_POLICY BATCHES");
    expect(policy.hint("u", { pinned: false })).toBe("");
    expect(policy.hint("u", { include_deleted: true })).toBe("");
    expect(calls.length).toBe(5); // cached
  });

  test("on a cluster the share is of a master's mean: the whole index over the masters", async () => {
    // 70 of 1000: 7% of the index, 21% of a master's mean (1000 / 3)
    const { client } = fakeClient(1000, { default: 70 }, 3);
    const policy = new KnnPolicy(client, new Keys("t:"));
    policy.hint("u", {});
    await Bun.sleep(5);
    expect(policy.hint("u", {})).toBe(" HYBRID_POLICY BATCHES");
    const { client: one } = fakeClient(1000, { default: 70 }, 1);
    const single = new KnnPolicy(one, new Keys("t:"));
    single.hint("u", {});
    await Bun.sleep(5);
    expect(single.hint("u", {})).toBe("");
  });

  test("a wallet that is a small share of the index keeps the engine's choice", async () => {
    const { client } = fakeClient(100_000, { default: 5000 });
    const policy = new KnnPolicy(client, new Keys("t:"));
    policy.hint("u", {});
    await Bun.sleep(5);
    expect(policy.hint("u", {})).toBe("");
    policy.reset();
    expect(policy.hint("u", {})).toBe("");
  });
});

describe("capability check (no server)", () => {
  /** A fake server: MODULE LIST's reply (or "denied"), which module commands exist, and how many PINGs answer LOADING first. */
  const server = (modules: [string, number][] | "denied", has: { search?: boolean; json?: boolean } = {}, loadingPings = 0) => {
    const seen: string[] = [];
    const client = {
      sendCommand: async (args: string[]) => {
        seen.push(args[0]!);
        if (args[0] === "PING") {
          if (loadingPings-- > 0) throw new Error("LOADING Redis is loading the dataset in memory");
          return "PONG";
        }
        if (args[0] === "MODULE") {
          if (modules === "denied") throw new Error("NOPERM this user has no permissions to run the 'module|list' command");
          return modules.map(([name, ver]) => ["name", name, "ver", ver, "path", "/x.so", "args", []]);
        }
        if (args[0] === "FT._LIST" && has.search !== false) return [];
        if (args[0] === "JSON.TYPE" && has.json !== false) return null;
        throw new Error(`ERR unknown command '${args[0]}', with args beginning with: `);
      },
    } as unknown as Parameters<typeof requireModules>[0];
    return { client, seen };
  };

  test("both capabilities, recent enough: fine (Redis Stack 7.4 and Redis 8 module lists, unknown names, MODULE LIST denied)", async () => {
    await requireModules(server([["search", 21032], ["ReJSON", 20405]]).client);
    await requireModules(server([["search", 80205], ["ReJSON", 80201], ["bf", 80201], ["vectorset", 1]]).client);
    await requireModules(server([["bf", 79990]]).client); // names it does not know: the probes decide
    await requireModules(server([]).client); // built in, nothing listed
    await requireModules(server("denied").client);
  });

  test("a missing capability is named from the probe's answer, whatever MODULE LIST says", async () => {
    await expect(requireModules(server([], { search: false, json: false }).client)).rejects.toThrow(
      /no query engine \(RediSearch\): FT._LIST answered "ERR unknown command.*no JSON \(RedisJSON\): JSON.TYPE answered "ERR unknown command/,
    );
    await expect(requireModules(server([["search", 21032]], { json: false }).client)).rejects.toThrow(/no JSON \(RedisJSON\).*\(MODULE LIST: search 2\.10\.32\)/);
    await expect(requireModules(server([["search", 80000], ["ReJSON", 80000]], { search: false }).client)).rejects.toThrow(/no query engine/);
  });

  test("a module older than the engine needs is named", async () => {
    await expect(requireModules(server([["search", 20820], ["ReJSON", 20609]]).client)).rejects.toThrow(/RediSearch 2\.8\.20 is older than 2\.10\.0/);
    await expect(requireModules(server([["search", 21032], ["ReJSON", 20309]]).client)).rejects.toThrow(/RedisJSON 2\.3\.9 is older than 2\.4\.0/);
  });

  test("waits while the server answers LOADING, then probes; gives up after the limit", async () => {
    const loading = server([], {}, 3);
    await requireModules(loading.client, { pollMs: 1 });
    expect(loading.seen.slice(0, 4)).toEqual(["PING", "PING", "PING", "PING"]);
    expect(loading.seen).toContain("FT._LIST");
    await expect(requireModules(server([], {}, 1_000_000).client, { pollMs: 1, loadingMaxMs: 20 })).rejects.toThrow(/still loading/);
  });
});
