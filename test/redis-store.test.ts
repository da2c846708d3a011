import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectRaw, dropPrefix, ENGINES } from "./helpers/engines";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newMemory, type Memory } from "../src/domain/memory";
import { contentHash, cosine, queryTerms } from "../src/domain/text";
import type { MemoryFilter, MemoryStore, StoredMemory } from "../src/domain/store-port";
import { EmbeddingModelMismatch } from "../src/store/model-binding";
import { SqliteStore } from "../src/store/sqlite/sqlite-store";
import { RedisStore } from "../src/store/redis/redis-store";
import { Keys } from "../src/store/redis/keys";
import type { RedisNodes } from "../src/store/redis/nodes";

/**
 * Store-level checks of the redis engine that the HTTP contract suite cannot see: hostile filter
 * values (compared with the sqlite engine on the same data), real key expiry and the cleanup of
 * what it leaves behind, atomic free-call accounting, model re-binding, walks. Needs REDIS_URL
 * (a Redis Stack); skipped otherwise.
 */
const REDIS_URL = process.env.REDIS_URL;
const DIM = 8;
const MODEL = { id: "test-model", dimension: DIM };

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
function unit(): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => rand() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function memory(userId: string, fields: Partial<Memory> & { content: string }, at = Date.now()): Memory {
  return newMemory({ ...fields, user_id: userId }, new Date(at).toISOString());
}

const stored = (m: Memory, embedding = unit()): StoredMemory => ({ memory: m, embedding, content_hash: contentHash(m.content) });
const idsOf = (list: { id: string }[]) => list.map((m) => m.id).sort();

/** Hostile strings used as namespace, session, agent and tag values, and as search text. */
const HOSTILE = [
  "",
  " ",
  "  padded  ",
  "a,b",
  "a|b",
  "x}|{y",
  "@user_id:{x}",
  "-neg",
  "*",
  "a*",
  "%fuzzy%",
  "$param",
  "~opt",
  "(x)=>[KNN 1 @embedding $vec]",
  '"quoted"',
  "it's",
  "back\\slash\\",
  "tab\tand\nnewline",
  "nul\u0000byte",
  "unit\u001fsep",
  "~~61",
  "Work",
  "work",
  "日本語",
  "café",
  "emoji 🚀🔥",
  "ZWJ 👩‍💻",
  "\ud800lone",
];

// Same reachability rule as the contract suite (test/helpers/engines.ts prints why redis is skipped).
const REDIS_REACHABLE = ENGINES.some((engine) => engine.name === "redis");

describe.skipIf(!REDIS_REACHABLE)("redis engine, store level", () => {
  const prefix = `engram-test:store-${crypto.randomUUID().slice(0, 8)}:`;
  const k = new Keys(prefix);
  let raw: RedisNodes;
  let redis: MemoryStore;
  let sqlite: MemoryStore;
  let dataDir: string;
  /** A raw command, sent to the master holding its first key (a cluster's, or the one server). */
  const cmd = (args: string[]) => raw.at(args[1]!).sendCommand(args) as Promise<unknown>;

  beforeAll(async () => {
    raw = await connectRaw(REDIS_URL!);
    redis = await RedisStore.connect(REDIS_URL!, { keyPrefix: prefix });
    await redis.bindEmbeddingModel(MODEL);
    dataDir = mkdtempSync(join(tmpdir(), "engram-redis-parity-"));
    sqlite = new SqliteStore(dataDir);
    await sqlite.bindEmbeddingModel(MODEL);
  });

  afterAll(async () => {
    await redis?.close();
    await sqlite?.close();
    if (raw) {
      for (const p of [prefix, `${prefix}rebind:`]) await dropPrefix(REDIS_URL!, p);
      await raw.close();
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("hostile filter values and search text: no error, and exactly the sqlite engine's results", async () => {
    const user = crypto.randomUUID();
    const items: StoredMemory[] = [];
    HOSTILE.forEach((value, i) => {
      items.push(
        stored(
          memory(user, {
            content: `record ${i} about ${value} deploy`,
            namespace: value === "" ? "empty-ns" : value,
            session_id: value,
            agent_id: value,
            metadata: { tags: [value, "common"] },
          }),
        ),
      );
    });
    items.push(stored(memory(user, { content: "decoy deploy note", namespace: "decoy", session_id: "decoy", agent_id: "decoy", metadata: { tags: ["decoy"] } })));
    // both engines get the very same records (both store a lone surrogate as U+FFFD; compare by id only)
    await redis.insertMemories(items);
    await sqlite.insertMemories(items);
    const now = Date.now();
    const page = { limit: 100, offset: 0 };

    for (const value of HOSTILE) {
      const filters: MemoryFilter[] = [
        { namespace: value },
        { session_id: value },
        { agent_id: value },
        { tags: [value] },
        { tags: [value, "decoy"] },
      ];
      for (const filter of filters) {
        const fromRedis = await redis.listMemories(user, filter, page, now);
        const fromSqlite = await sqlite.listMemories(user, filter, page, now);
        // a lone surrogate is stored as U+FFFD by both (UTF-8 text) and the filter compares its U+FFFD form too
        expect([value, filter, idsOf(fromRedis.memories)]).toEqual([value, filter, idsOf(fromSqlite.memories)]);
        expect(fromRedis.total).toBe(fromRedis.memories.length);
        const near = await redis.nearest(user, unit(), filter, 40, now);
        const nearSqlite = await sqlite.nearest(user, unit(), filter, 40, now);
        expect(idsOf(near.map((h) => h.memory))).toEqual(idsOf(nearSqlite.map((h) => h.memory)));
      }
      // raw hostile terms (the port says plain words; a caller bug must still never error or widen)
      const terms = [value, ...queryTerms(value)];
      const text = await redis.searchText(user, terms, {}, 100, now);
      const textSqlite = await sqlite.searchText(user, queryTerms(value), {}, 100, now);
      for (const hit of text) expect(textSqlite.map((h) => h.memory.id)).toContain(hit.memory.id);
      expect(idsOf(text.map((h) => h.memory))).toEqual(idsOf(textSqlite.map((h) => h.memory)));
    }
    const namespaces = await redis.namespaces(user, now);
    expect(namespaces).toEqual(await sqlite.namespaces(user, now).then((list) => list.map((n) => ({ ...n, namespace: n.namespace.toWellFormed() }))));
  });

  test("stats agree with the sqlite engine", async () => {
    const user = crypto.randomUUID();
    const base = Date.parse("2024-03-01T10:00:00.000Z");
    const items = [0.1, 0.2, 0.7, 0.33].map((importance, i) =>
      stored(memory(user, { content: `stat ${i}`, importance, pinned: i === 1, namespace: i % 2 ? "b" : "a", memory_type: i ? "decision" : "general" }, base + i * 1000)),
    );
    await redis.insertMemories(items);
    await sqlite.insertMemories(items);
    await redis.recordAccess(user, [items[0]!.memory.id], base + 10_000);
    await sqlite.recordAccess(user, [items[0]!.memory.id], base + 10_000);
    await redis.softDelete(user, [items[3]!.memory.id], base + 20_000);
    await sqlite.softDelete(user, [items[3]!.memory.id], base + 20_000);
    const now = base + 30_000;
    const [a, b] = [await redis.stats(user, now), await sqlite.stats(user, now)];
    expect({ ...a, avg_importance: 0 }).toEqual({ ...b, avg_importance: 0 });
    expect(a.avg_importance).toBeCloseTo(b.avg_importance, 12);
    expect(a.total_memories).toBe(3);
    // one namespace's (the accessed memory is in "a"), and one agent's namespaces
    const [na, nb] = [await redis.stats(user, now, { namespace: "a" }), await sqlite.stats(user, now, { namespace: "a" })];
    expect({ ...na, avg_importance: 0 }).toEqual({ ...nb, avg_importance: 0 });
    expect([na.total_memories, na.total_accesses, na.by_namespace]).toEqual([2, 1, [{ namespace: "a", count: 2 }]]);
    expect(await redis.namespaces(user, now, { agent_id: "nobody" })).toEqual([]);
  });

  test("newest first with insertion order inside one millisecond, deep offsets, totals", async () => {
    const user = crypto.randomUUID();
    const at = Date.parse("2024-05-01T00:00:00.000Z");
    const items = Array.from({ length: 250 }, (_, i) => stored(memory(user, { content: `same ms ${i}` }, at)));
    for (let i = 0; i < items.length; i += 100) await redis.insertMemories(items.slice(i, i + 100));
    const expected = items.map((s) => s.memory.id).reverse();
    const seen: string[] = [];
    for (let offset = 0; offset < 250; offset += 100) {
      const page = await redis.listMemories(user, {}, { limit: 100, offset }, at + 1);
      expect(page.total).toBe(250);
      seen.push(...page.memories.map((m) => m.id));
    }
    expect(seen).toEqual(expected);
  });

  test("newest first on a selective filter: full pages and exact totals (RediSearch's newest-first walk can stop short)", async () => {
    const user = crypto.randomUUID();
    const at = Date.parse("2024-06-01T00:00:00.000Z");
    // 1 in 50 pinned: in about a third of the indexes built so, Redis 8.0's WITHOUTCOUNT walk
    // answered 18 or 19 of these 20 pinned memories (it depends on how the numeric index split)
    const items = Array.from({ length: 1000 }, (_, i) => stored(memory(user, { content: `walk ${i}`, pinned: i % 50 === 0 }, at + i * 1000)));
    for (let i = 0; i < items.length; i += 250) await redis.insertMemories(items.slice(i, i + 250));
    await sqlite.insertMemories(items);
    const pinned = items.filter((s) => s.memory.pinned).map((s) => s.memory.id).reverse();
    const now = at + 10_000_000;
    for (const [offset, limit] of [[0, 20], [0, 5], [3, 7], [15, 10], [19, 1], [20, 5]] as const) {
      const page = await redis.listMemories(user, { pinned: true }, { limit, offset }, now);
      expect([offset, limit, page.total, page.memories.map((m) => m.id)]).toEqual([offset, limit, 20, pinned.slice(offset, offset + limit)]);
      const fromSqlite = await sqlite.listMemories(user, { pinned: true }, { limit, offset }, now);
      expect(page.memories.map((m) => m.id)).toEqual(fromSqlite.memories.map((m) => m.id));
    }
    const unpinned = await redis.listMemories(user, { pinned: false }, { limit: 50, offset: 930 }, now);
    expect([unpinned.total, unpinned.memories.length]).toEqual([980, 50]);
  });

  test("a memory's key expires at expires_at; its relations do not dangle and are cleaned when met", async () => {
    const user = crypto.randomUUID();
    const now = Date.now();
    const expiring = memory(user, { content: "short lived", expires_at: new Date(now + 400).toISOString() });
    const staying = memory(user, { content: "long lived" });
    const other = memory(user, { content: "another" });
    await redis.insertMemories([stored(expiring), stored(staying), stored(other)]);
    const rel = (source: Memory, target: Memory) => ({
      id: crypto.randomUUID(),
      source_id: source.id,
      target_id: target.id,
      relation_type: "related_to" as const,
      metadata: {},
      created_at: new Date().toISOString(),
    });
    const out = rel(staying, expiring);
    const inc = rel(expiring, staying);
    const kept = rel(staying, other);
    for (const r of [out, inc, kept]) await redis.createRelation(user, r);

    // the caller's clock decides, to the millisecond, before the key is gone
    expect((await redis.relationsOf(user, staying.id, now)).map((r) => r.id).sort()).toEqual([out.id, inc.id, kept.id].sort());
    expect(await redis.relationsOf(user, staying.id, now + 401)).toEqual([kept]);
    expect(await redis.getMemories(user, [expiring.id], now + 401)).toEqual([]);

    // side keys share the expiry; the relation records expire with their first end
    const pexpiretime = (key: string) => cmd(["PEXPIRETIME", key]);
    const expiresAt = Date.parse(expiring.expires_at!);
    expect(await pexpiretime(k.memory(user, expiring.id))).toBe(expiresAt);
    expect(await pexpiretime(k.in(user, expiring.id))).toBe(expiresAt);
    expect(await pexpiretime(k.out(user, expiring.id))).toBe(expiresAt);
    expect(await pexpiretime(k.relation(user, out.id))).toBe(expiresAt);
    expect(await pexpiretime(k.relation(user, kept.id))).toBe(-1);

    await Bun.sleep(Math.max(0, expiresAt - Date.now()) + 150);
    expect(await cmd(["EXISTS", k.memory(user, expiring.id), k.in(user, expiring.id), k.relation(user, out.id)])).toBe(0);
    // staying's adjacency sets still name the expired relations until they are met
    expect(await cmd(["ZCARD", k.out(user, staying.id)])).toBe(2);
    expect(await redis.relationsAmong(user, [staying.id, other.id], Date.now())).toEqual([kept]);
    expect(await cmd(["ZRANGE", k.out(user, staying.id), "0", "-1"])).toEqual([kept.id]);
    expect(await cmd(["ZCARD", k.in(user, staying.id)])).toBe(0);
    expect(await redis.relationsOf(user, staying.id, Date.now())).toEqual([kept]);
  });

  test("a record whose other end vanished another way is deleted when met", async () => {
    const user = crypto.randomUUID();
    const [a, b] = [memory(user, { content: "end a" }), memory(user, { content: "end b" })];
    await redis.insertMemories([stored(a), stored(b)]);
    const r = { id: crypto.randomUUID(), source_id: a.id, target_id: b.id, relation_type: "supports" as const, metadata: { why: 1 }, created_at: new Date().toISOString() };
    await redis.createRelation(user, r);
    expect(await redis.relationsOf(user, a.id, Date.now())).toEqual([r]);
    await cmd(["DEL", k.memory(user, b.id)]); // e.g. evicted
    expect(await redis.relationsOf(user, a.id, Date.now())).toEqual([]);
    expect(await cmd(["EXISTS", k.relation(user, r.id), k.out(user, a.id)])).toBe(0);
  });

  test("updates: kept vector and hash, history newest first, expiry moved and cleared on every key", async () => {
    const user = crypto.randomUUID();
    const m = memory(user, { content: "original text" });
    const vector = unit();
    await redis.insertMemories([stored(m, vector)]);
    const peer = memory(user, { content: "peer" });
    await redis.insertMemories([stored(peer)]);
    const r = { id: crypto.randomUUID(), source_id: m.id, target_id: peer.id, relation_type: "related_to" as const, metadata: {}, created_at: new Date().toISOString() };
    await redis.createRelation(user, r);

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const h1 = { id: crypto.randomUUID(), memory_id: m.id, changes: { importance: 0.9, expires_at: later }, created_at: new Date().toISOString() };
    await redis.updateMemory(user, { memory: { ...m, importance: 0.9, expires_at: later }, history: h1 });
    expect((await redis.embeddings(user, [m.id])).get(m.id)).toEqual(vector);
    expect(await redis.findByContentHash(user, "default", contentHash("original text"), Date.now())).toMatchObject({ id: m.id, importance: 0.9 });
    const moved = [k.memory(user, m.id), k.out(user, m.id), k.history(user, m.id), k.relation(user, r.id)];
    for (const key of moved) expect([key, await cmd(["PEXPIRETIME", key])]).toEqual([key, Date.parse(later)]);

    const h2 = { id: crypto.randomUUID(), memory_id: m.id, changes: { content: "new text", expires_at: null }, created_at: new Date().toISOString() };
    const newVector = unit();
    await redis.updateMemory(user, { memory: { ...m, content: "new text", importance: 0.9, expires_at: null }, embedding: newVector, content_hash: contentHash("new text"), history: h2 });
    expect((await redis.embeddings(user, [m.id])).get(m.id)).toEqual(newVector);
    expect(await redis.history(user, m.id)).toEqual([h2, h1]);
    expect(await redis.history(crypto.randomUUID(), m.id)).toEqual([]);
    for (const key of moved) expect([key, await cmd(["PEXPIRETIME", key])]).toEqual([key, -1]);
    expect((await redis.searchText(user, ["new"], {}, 10, Date.now())).map((h) => h.memory.id)).toEqual([m.id]);
    expect(await redis.countText(user, ["original"], {}, Date.now())).toBe(0);

    // another user's update is a no-op
    await redis.updateMemory(crypto.randomUUID(), { memory: { ...m, content: "hijack" } });
    expect((await redis.getMemories(user, [m.id], Date.now()))[0]?.content).toBe("new text");
  });

  test("free calls: concurrent reservations never pass the limit; release never goes below zero", async () => {
    const wallet = `0x${crypto.randomUUID().replaceAll("-", "").padEnd(40, "0")}`;
    const results = await Promise.all(Array.from({ length: 60 }, () => redis.reserveFreeCall(wallet, 25)));
    const granted = results.filter((r) => r !== null).sort((a, b) => a! - b!);
    expect(granted).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await redis.freeCallsUsed(wallet)).toBe(25);
    expect(await redis.freeCallsUsed(wallet.toUpperCase().replace("0X", "0x"))).toBe(25);
    for (let i = 0; i < 30; i++) await redis.releaseFreeCall(wallet);
    expect(await redis.freeCallsUsed(wallet)).toBe(0);
    const user = await redis.userIdForWallet(wallet);
    expect(await Promise.all([redis.userIdForWallet(wallet), redis.userIdForWallet(wallet.toUpperCase())])).toEqual([user, user]);
    await redis.releaseFreeCall(`0x${"0".repeat(40)}`);
    expect(await redis.freeCallsUsed(`0x${"0".repeat(40)}`)).toBe(0);
  });

  test("keyword hits carry the cosine to the query vector, equal to the stored embedding's; none without a vector or with another size", async () => {
    const user = crypto.randomUUID();
    const items = ["the deploy runs on friday", "friday lunch with the team", "nothing in common"].map((content) => stored(memory(user, { content })));
    await redis.insertMemories(items);
    const query = unit();
    const now = Date.now();
    const hits = await redis.searchText(user, ["friday"], {}, 10, now, query);
    expect(hits.map((h) => h.memory.id).sort()).toEqual([items[0]!.memory.id, items[1]!.memory.id].sort());
    const vectors = await redis.embeddings(user, hits.map((h) => h.memory.id));
    for (const hit of hits) expect(hit.similarity).toBe(cosine(query, vectors.get(hit.memory.id)!));
    expect((await redis.searchText(user, ["friday"], {}, 10, now)).every((h) => h.similarity === undefined)).toBe(true);
    expect((await redis.searchText(user, ["friday"], {}, 10, now, new Float32Array([1, 2]))).every((h) => h.similarity === undefined)).toBe(true);
  });

  test("keyword hits read their vector from the base64 copy, or from the array in documents written without one; updates keep the two equal", async () => {
    const user = crypto.randomUUID();
    const items = ["alpha deploy note", "beta deploy note", "gamma deploy note"].map((content) => stored(memory(user, { content })));
    await redis.insertMemories(items);
    const [a, b, c] = items.map((i) => i.memory.id);
    const key = (id: string) => k.memory(user, id);
    const query = unit();
    const cosines = async () => new Map((await redis.searchText(user, ["deploy"], {}, 10, Date.now(), query)).map((h) => [h.memory.id, h.similarity]));
    const expected = (embedding: Float32Array) => cosine(query, embedding);
    // b as an earlier version wrote it (no `vec`), c's vector replaced by an update, a updated without a vector
    await cmd(["JSON.DEL", key(b!), "$.vec"]);
    const replacement = unit();
    await redis.updateMemory(user, { memory: { ...items[2]!.memory, importance: 0.9 }, embedding: replacement });
    await redis.updateMemory(user, { memory: { ...items[1]!.memory, importance: 0.8 } });
    await redis.updateMemory(user, { memory: { ...items[0]!.memory, importance: 0.7 } });
    const got = await cosines();
    expect([got.get(a!), got.get(b!), got.get(c!)]).toEqual([expected(items[0]!.embedding), expected(items[1]!.embedding), expected(replacement)]);
    expect(String(await cmd(["JSON.GET", key(b!), "$.vec"]))).toBe("[]"); // still without one: readers use the array
  });

  test("search hits carry the records' ranking fields and access counts, also from documents written before `ix` held them or without `vec`", async () => {
    const user = crypto.randomUUID();
    const items = [
      memory(user, { content: "alpha release note", importance: 0.2, memory_type: "decision", pinned: true }),
      memory(user, { content: "beta release note", importance: 0.9, memory_type: "preference" }),
      memory(user, { content: "gamma release note", importance: 0.5, memory_type: "correction" }),
      memory(user, { content: "delta release note", importance: 0.7 }),
    ].map((m) => stored(m));
    await redis.insertMemories(items);
    const [a, b, c, d] = items.map((i) => i.memory.id);
    const key = (id: string) => k.memory(user, id);
    // b and c as an earlier version wrote them (ranking fields only in `m`), c also without `vec`;
    // d updated since (its `ix` follows the new importance)
    for (const id of [b!, c!]) for (const path of ["$.ix.memory_type", "$.ix.importance", "$.ix.access_count"]) await cmd(["JSON.DEL", key(id), path]);
    await cmd(["JSON.DEL", key(c!), "$.vec"]);
    await redis.updateMemory(user, { memory: { ...items[3]!.memory, importance: 0.3, memory_type: "project" } });
    const now = Date.now();
    await redis.recordAccess(user, [a!, b!], now); // pending (written behind): hits must count it
    await redis.recordAccess(user, [b!], now + 1);
    const query = unit();
    const records = new Map((await redis.getMemories(user, [a!, b!, c!, d!], now + 2)).map((m) => [m.id, m]));
    const expected = (id: string) => {
      const m = records.get(id)!;
      return { id, created_at: m.created_at, memory_type: m.memory_type, pinned: m.pinned, importance: m.importance, access_count: m.access_count };
    };
    const fields = (ref: Record<string, unknown>) => ({
      id: ref.id,
      created_at: ref.created_at,
      memory_type: ref.memory_type,
      pinned: ref.pinned,
      importance: ref.importance,
      access_count: ref.access_count,
    });
    expect(records.get(b!)!.access_count).toBe(2);
    const text = await redis.searchText(user, ["releas"], {}, 10, now + 2, query);
    const near = await redis.nearest(user, query, {}, 10, now + 2);
    for (const hits of [text, near]) {
      expect(hits.map((h) => h.memory.id).sort()).toEqual([a!, b!, c!, d!].sort());
      for (const hit of hits) expect(fields(hit.memory)).toEqual(expected(hit.memory.id));
    }
    const vectors = new Map(items.map((i) => [i.memory.id, i.embedding]));
    for (const hit of text) expect(hit.similarity).toBe(cosine(query, vectors.get(hit.memory.id)!));
  });

  test("model binding: same model is a no-op, another one throws unless forced; forcing rebuilds the index and keeps the documents", async () => {
    const p = `${prefix}rebind:`;
    let store = await RedisStore.connect(REDIS_URL!, { keyPrefix: p });
    await store.bindEmbeddingModel(MODEL);
    const user = crypto.randomUUID();
    const items = Array.from({ length: 5 }, (_, i) => stored(memory(user, { content: `doc ${i}` })));
    await store.insertMemories(items);
    await store.softDelete(user, [items[4]!.memory.id], Date.now());
    await store.close();

    store = await RedisStore.connect(REDIS_URL!, { keyPrefix: p });
    await store.bindEmbeddingModel(MODEL);
    expect((await store.listMemories(user, {}, { limit: 10, offset: 0 }, Date.now())).total).toBe(4);
    const other = { id: "other-model", dimension: 16 };
    await expect(store.bindEmbeddingModel(other)).rejects.toBeInstanceOf(EmbeddingModelMismatch);
    await expect(store.bindEmbeddingModel({ id: "other-model", dimension: DIM })).rejects.toBeInstanceOf(EmbeddingModelMismatch);
    await store.bindEmbeddingModel(other, true);
    const pk = new Keys(p);
    const info = (await cmd(["FT.INFO", pk.index])) as unknown[];
    expect(JSON.stringify(info)).toContain('"dim",16');
    // the documents are kept, listable and searchable by text; their vectors are cleared until re-embedded
    expect(await store.countAll()).toBe(4);
    expect((await store.listMemories(user, {}, { limit: 10, offset: 0 }, Date.now())).total).toBe(4);
    expect((await store.listMemories(user, { include_deleted: true }, { limit: 10, offset: 0 }, Date.now())).total).toBe(5);
    expect(await store.countText(user, ["doc"], {}, Date.now())).toBe(4);
    expect((await store.searchText(user, ["doc"], {}, 10, Date.now(), Float32Array.from({ length: 16 }, () => 0.25))).map((h) => h.similarity)).toEqual([undefined, undefined, undefined, undefined]);
    expect(await store.nearest(user, Float32Array.from({ length: 16 }, () => 0.25), {}, 10, Date.now())).toEqual([]);
    expect((await store.embeddings(user, [items[1]!.memory.id])).size).toBe(0);
    const walked = [];
    for await (const batch of store.scanAll(2)) {
      expect(batch.length).toBeLessThanOrEqual(2);
      walked.push(...batch);
    }
    expect(walked.map((w) => w.memory.id).sort()).toEqual(items.slice(0, 4).map((s) => s.memory.id).sort());
    expect(walked.every((w) => w.user_id === user)).toBe(true);
    // re-embedding one puts it back
    const back = items[0]!.memory;
    await store.updateMemory(user, { memory: back, embedding: Float32Array.from({ length: 16 }, (_, i) => (i === 0 ? 1 : 0)) });
    expect((await store.nearest(user, Float32Array.from({ length: 16 }, () => 0.25), {}, 10, Date.now())).map((h) => h.memory.id)).toEqual([back.id]);
    // an update that keeps the (cleared) vector works too
    await store.updateMemory(user, { memory: { ...items[1]!.memory, importance: 0.9 } });
    expect((await store.getMemories(user, [items[1]!.memory.id], Date.now()))[0]?.importance).toBe(0.9);
    // meta lost: an index of the requested dimension is adopted, another dimension is refused
    await cmd(["HDEL", pk.meta, "embedding_model", "embedding_dimension"]);
    await expect(store.bindEmbeddingModel(MODEL)).rejects.toBeInstanceOf(EmbeddingModelMismatch);
    await store.bindEmbeddingModel({ id: "adopted", dimension: 16 });
    expect(await cmd(["HGET", pk.meta, "embedding_model"])).toBe("adopted");
    await store.close();
  });
});
