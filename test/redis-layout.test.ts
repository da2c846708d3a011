import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectRaw, dropPrefix, ENGINES } from "./helpers/engines";
import { writeLayout1, type LegacyWallet } from "./helpers/legacy-layout";
import { FIELD_EXPIRY, hasCommand, noticeMissing } from "./helpers/redis-commands";
import { newMemory } from "../src/domain/memory";
import type { HistoryEntry } from "../src/domain/history";
import { contentHash } from "../src/domain/text";
import { Keys, LAYOUT_VERSION, LegacyKeys } from "../src/store/redis/keys";
import { migrateLayout } from "../src/store/redis/layout";
import type { Commands, RedisNodes } from "../src/store/redis/nodes";
import { RedisStore } from "../src/store/redis/redis-store";

/**
 * A store written in key layout 1 (no hash tags) is moved to the current layout when the engine
 * starts: every memory, embedding, relation, history entry, access count, free-call counter and
 * expiry is there afterwards, and a move interrupted half-way continues at the next start. Needs
 * REDIS_URL naming a standalone server (layout 1 never ran on a cluster).
 */
const REDIS_URL = process.env.REDIS_URL;
const REDIS_REACHABLE = ENGINES.some((engine) => engine.name === "redis");
const RAW: RedisNodes | null = REDIS_REACHABLE ? await connectRaw(REDIS_URL!) : null;
if (RAW?.cluster) console.log("[layout] skipped: REDIS_URL names a cluster, and key layout 1 only ever ran on a standalone server");
/** Whether the server keeps an access field's own expiry (Redis 7.4+); without, that check alone is left out. */
const FIELD_EXPIRIES = RAW && !RAW.cluster ? await hasCommand(RAW.at("meta"), FIELD_EXPIRY) : false;
if (RAW && !RAW.cluster && !FIELD_EXPIRIES) noticeMissing("layout", FIELD_EXPIRY, "the check that a moved access field keeps its memory's expiry");
afterAll(async () => {
  await RAW?.close();
});

const MODEL = { id: "layout-test", dimension: 4 };
const HOUR = 3_600_000;

function unit(seed: number): Float32Array {
  const v = Float32Array.from({ length: 4 }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Three wallets of 40 memories: every fourth expires in an hour, every third has history, every fifth was recalled; relations along each wallet. */
function fixture(now: number): LegacyWallet[] {
  return [0, 1, 2].map((w) => {
    const userId = crypto.randomUUID();
    const memories = Array.from({ length: 40 }, (_, i) => {
      const created = new Date(now - (40 - i) * 1000).toISOString();
      const expires_at = i % 4 === 0 ? new Date(now + HOUR + i).toISOString() : null;
      const memory = newMemory({ user_id: userId, content: `wallet ${w} fact ${i} about deploys`, namespace: i % 2 ? "work" : "home", expires_at }, created);
      const history = i % 3 === 0 ? [0, 1].map((h) => ({ id: crypto.randomUUID(), memory_id: memory.id, changes: { importance: h / 2 }, created_at: created }) as unknown as HistoryEntry) : [];
      const access = i % 5 === 0 ? { count: i + 1, at: new Date(now - i).toISOString() } : undefined;
      return { memory, embedding: unit(w * 100 + i), contentHash: contentHash(memory.content), history, access };
    });
    const relations = memories.slice(1).map(({ memory }, i) => ({
      id: crypto.randomUUID(),
      source_id: memories[i]!.memory.id,
      target_id: memory.id,
      relation_type: "related_to" as const,
      metadata: { n: i },
      created_at: new Date(now - i).toISOString(),
    }));
    return { address: `0x${crypto.randomUUID().replaceAll("-", "").padEnd(40, "0")}`, userId, freeCallsUsed: w + 3, memories, relations };
  });
}

/**
 * The connection as a process stopped mid-move would leave it: SCAN pages made small (so the move
 * takes many), and the first SCAN after `moves` memories moved fails, as if the process died there.
 */
function stoppingAfter(nodes: RedisNodes, moves: number): RedisNodes {
  let moved = 0;
  const failing = (commands: Commands): Commands => ({
    sendCommand: (args) => {
      const name = String(args[0]);
      if (name === "SCAN") {
        if (moved >= moves) return Promise.reject(new Error("connection lost (test)"));
        return commands.sendCommand(args.map((arg, i) => (args[i - 1] === "COUNT" ? "20" : arg)));
      }
      const reply = commands.sendCommand(args);
      return name === "EVALSHA" || name === "EVAL" ? reply.then((r) => ((moved += Number(r)), r)) : reply;
    },
    multi: () => commands.multi(),
  });
  return {
    cluster: nodes.cluster,
    at: (key) => failing(nodes.at(key)),
    exclusive: (key, work) => nodes.exclusive(key, (own) => work(failing(own))),
    nodeOf: (key) => nodes.nodeOf(key),
    masters: () => nodes.masters(),
    close: async () => {},
  };
}

describe.skipIf(!RAW || RAW.cluster)("redis engine: moving a layout 1 store at start-up", () => {
  const prefix = `engram-test:layout-${crypto.randomUUID().slice(0, 8)}:`;
  const keys = new Keys(prefix);
  const legacy = new LegacyKeys(prefix);
  const now = Date.now();
  const wallets = fixture(now);
  const raw = RAW!;
  const cmd = (args: string[]) => raw.at(args[1]!).sendCommand(args);
  let store: RedisStore;

  /** Keys matching a SCAN pattern. */
  async function scan(pattern: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, page] = (await raw.at(keys.meta).sendCommand(["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"])) as [string, string[]];
      cursor = next;
      found.push(...page);
    } while (cursor !== "0");
    return found;
  }

  beforeAll(async () => {
    // a layout 1 store: the index and the bound model in meta (as layout 1 left them), then its keys
    const first = await RedisStore.connect(REDIS_URL!, { keyPrefix: prefix });
    await first.bindEmbeddingModel(MODEL);
    await first.close();
    await cmd(["HDEL", keys.meta, "layout"]);
    await writeLayout1(raw.at(keys.meta), prefix, wallets);
  });

  afterAll(async () => {
    await store?.close();
    await dropPrefix(REDIS_URL!, prefix);
  });

  test("a move stopped half-way leaves every memory whole in one layout or the other, and the layout unrecorded", async () => {
    await expect(migrateLayout(stoppingAfter(raw, 30), prefix)).rejects.toThrow("connection lost (test)");
    const moved = (await scan(`${prefix}mem:{*`)).filter((key) => keys.documentOf(key) !== null);
    const left = (await scan(legacy.memoryScanPattern())).filter((key) => legacy.memoryIdOf(key) !== null);
    expect(moved.length).toBeGreaterThan(0);
    expect(left.length).toBeGreaterThan(0);
    expect(moved.length + left.length).toBe(120);
    expect(await cmd(["HGET", keys.meta, "layout"])).toBeNull();
  });

  test("the next start finishes the move: nothing of layout 1 is left, and the layout is recorded", async () => {
    store = await RedisStore.connect(REDIS_URL!, { keyPrefix: prefix });
    await store.bindEmbeddingModel(MODEL);
    expect(await cmd(["HGET", keys.meta, "layout"])).toBe(LAYOUT_VERSION);
    for (const pattern of [legacy.memoryScanPattern(), legacy.relationScanPattern(), legacy.accessScanPattern()]) expect(await scan(pattern)).toEqual([]);
    expect(await cmd(["EXISTS", legacy.seq])).toBe(0);
  });

  test("every memory, embedding, history entry, access count and expiry is there, and found by the index", async () => {
    for (const { userId, memories } of wallets) {
      const records = new Map((await store.getMemories(userId, memories.map((m) => m.memory.id), now)).map((m) => [m.id, m]));
      const vectors = await store.embeddings(userId, memories.map((m) => m.memory.id));
      for (const { memory, embedding, history, access } of memories) {
        expect(records.get(memory.id)).toEqual(access ? { ...memory, access_count: access.count, accessed_at: access.at } : memory);
        expect(vectors.get(memory.id)).toEqual(embedding);
        expect(await store.history(userId, memory.id)).toEqual([...history].reverse());
        const expires = memory.expires_at === null ? -1 : Date.parse(memory.expires_at);
        expect(await cmd(["PEXPIRETIME", keys.memory(userId, memory.id)])).toBe(expires);
        if (history.length > 0) expect(await cmd(["PEXPIRETIME", keys.history(userId, memory.id)])).toBe(expires);
        if (access && FIELD_EXPIRIES) expect(await cmd([FIELD_EXPIRY, keys.access(userId), "FIELDS", "1", memory.id])).toEqual([expires]);
      }
      const listed = await store.listMemories(userId, {}, { limit: 100, offset: 0 }, now);
      expect(listed.total).toBe(40);
      // newest first, as layout 1 ordered them (creation time, then the global sequence)
      expect(listed.memories.map((m) => m.id)).toEqual(memories.map((m) => m.memory.id).reverse());
      expect(await store.countText(userId, ["deploy"], {}, now)).toBe(40);
      const [nearest] = await store.nearest(userId, memories[7]!.embedding, {}, 1, now);
      expect(nearest?.memory.id).toBe(memories[7]!.memory.id);
    }
  });

  test("relations, free-call counters, wallet ids and the sequence moved too", async () => {
    const globalSeq = 120;
    for (const { address, userId, freeCallsUsed, memories, relations } of wallets) {
      for (const r of relations.slice(0, 5)) {
        expect((await store.relationsOf(userId, r.source_id, now)).find((x) => x.id === r.id)).toEqual(r);
        const source = memories.find((m) => m.memory.id === r.source_id)!.memory;
        const target = memories.find((m) => m.memory.id === r.target_id)!.memory;
        const ends = [source, target].flatMap((m) => (m.expires_at === null ? [] : [Date.parse(m.expires_at)]));
        expect(await cmd(["PEXPIRETIME", keys.relation(userId, r.id)])).toBe(ends.length ? Math.min(...ends) : -1);
      }
      expect(await store.freeCallsUsed(address)).toBe(freeCallsUsed);
      expect(await store.userIdForWallet(address)).toBe(userId);
      expect(Number(await cmd(["GET", keys.seq(userId)]))).toBe(globalSeq);
    }
  });

  test("a new memory in a moved wallet lists first; a second start moves nothing more", async () => {
    const { userId } = wallets[0]!;
    const fresh = newMemory({ user_id: userId, content: "after the move" }, new Date(now).toISOString());
    await store.insertMemories([{ memory: fresh, embedding: unit(999), content_hash: contentHash(fresh.content) }]);
    expect((await store.listMemories(userId, {}, { limit: 1, offset: 0 }, now)).memories[0]?.id).toBe(fresh.id);
    const again = await RedisStore.connect(REDIS_URL!, { keyPrefix: prefix });
    await again.close();
    expect((await store.listMemories(userId, {}, { limit: 100, offset: 0 }, now)).total).toBe(41);
  });
});
