import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectRaw, dropPrefix, ENGINES } from "./helpers/engines";
import { FIELD_EXPIRY, hasCommand, noticeMissing } from "./helpers/redis-commands";
import { RedisStore } from "../src/store/redis/redis-store";
import { Keys } from "../src/store/redis/keys";
import type { Batch, Command, Commands, RedisNodes } from "../src/store/redis/nodes";
import { newMemory, type Memory } from "../src/domain/memory";

/**
 * The redis engine's access bumps are written behind (src/store/access-log.ts), as sqlite's are
 * (test/unit/access-write-behind.test.ts): every read through the store sees them at once, Redis
 * gets them at the next flush (timer, size, updateMemory, stats, close), one write per memory however
 * many recalls returned it, into the wallet's access hash rather than the indexed document (a JSON
 * write re-indexes the whole document). Needs REDIS_URL (a Redis Stack); skipped otherwise.
 */
const REDIS_URL = process.env.REDIS_URL;
const REDIS_REACHABLE = ENGINES.some((engine) => engine.name === "redis");
/** Whether the server has hash field expiry (Redis 7.4+), which the access field's own expiry needs. */
const FIELD_EXPIRIES = REDIS_REACHABLE ? await fieldExpiries(REDIS_URL!) : false;
if (REDIS_REACHABLE && !FIELD_EXPIRIES) noticeMissing("access write-behind", FIELD_EXPIRY, "the check that an access field expires with its memory");

async function fieldExpiries(url: string): Promise<boolean> {
  const raw = await connectRaw(url);
  try {
    return await hasCommand((await raw.masters())[0]!.commands, FIELD_EXPIRY);
  } finally {
    await raw.close();
  }
}

const at = "2026-01-01T00:00:00.000Z";
const t1 = Date.parse("2026-01-02T00:00:00.000Z");
const t2 = Date.parse("2026-01-03T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** The commands the store sends in pipelines / transactions; `failNext` makes the next pipeline fail as a lost connection would. */
interface Spy {
  sent: string[][];
  failNext: boolean;
}

describe.skipIf(!REDIS_REACHABLE)("redis engine: access counts written behind", () => {
  const prefix = `engram-test:access-${crypto.randomUUID().slice(0, 8)}:`;
  const k = new Keys(prefix);
  let raw: RedisNodes;
  const stores: RedisStore[] = [];
  /** A raw command, sent to the master holding its first key. */
  const cmd = (args: string[]) => raw.at(args[1]!).sendCommand(args);

  beforeAll(async () => {
    raw = await connectRaw(REDIS_URL!);
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    await dropPrefix(REDIS_URL!, prefix);
    await raw.close();
  });

  async function open(): Promise<{ store: RedisStore; spy: Spy }> {
    const store = await RedisStore.connect(REDIS_URL!, { keyPrefix: prefix });
    stores.push(store);
    await store.bindEmbeddingModel({ id: "test", dimension: 4 });
    const spy: Spy = { sent: [], failNext: false };
    const nodes = (store as unknown as { nodes: RedisNodes }).nodes;
    const at = nodes.at.bind(nodes);
    nodes.at = (key: string): Commands => {
      const commands = at(key);
      return { sendCommand: (args) => commands.sendCommand(args), multi: () => spied(commands.multi(), spy) };
    };
    return { store, spy };
  }

  /** The batch, with its commands recorded and its pipeline failing when the spy says so. */
  function spied(batch: Batch, spy: Spy): Batch {
    const add = batch.addCommand.bind(batch);
    const exec = batch.execAsPipeline.bind(batch);
    batch.addCommand = (args: Command) => {
      spy.sent.push(args.map(String));
      add(args);
      return batch;
    };
    batch.execAsPipeline = () => {
      if (!spy.failNext) return exec();
      spy.failNext = false;
      return Promise.reject(new Error("connection lost (test)"));
    };
    return batch;
  }

  /** The counters in the document itself. */
  async function inDocument(id: string, user: string): Promise<{ access_count: number; accessed_at: string }> {
    const text = (await cmd(["JSON.GET", k.memory(user, id), "$.m"])) as string;
    const [m] = JSON.parse(text) as Memory[];
    return { access_count: m!.access_count, accessed_at: m!.accessed_at };
  }

  /** The counters Redis holds: the wallet's access hash field when there is one, else the document's. */
  async function committed(id: string, user: string): Promise<{ access_count: number; accessed_at: string }> {
    const field = (await cmd(["HGET", k.access(user), id])) as string | null;
    if (field === null) return inDocument(id, user);
    const [count, at] = field.split(" ");
    return { access_count: Number(count), accessed_at: at! };
  }

  async function seed(store: RedisStore, user: string, n: number): Promise<Memory[]> {
    const memories = Array.from({ length: n }, (_, i) => newMemory({ user_id: user, content: `memory number ${i}` }, at));
    await store.insertMemories(memories.map((m) => ({ memory: m, embedding: new Float32Array([1, 0, 0, 0]), content_hash: m.id })));
    return memories;
  }

  const accessWrites = (spy: Spy) => spy.sent.filter((args) => args[0] === "EVALSHA");

  test("reads see pending bumps at once; several recalls of a memory become one write; close flushes", async () => {
    const { store, spy } = await open();
    const user = crypto.randomUUID();
    const [a, b] = await seed(store, user, 2);
    await store.recordAccess(user, [a!.id, b!.id], t1);
    await store.recordAccess(user, [a!.id], t2);
    await store.recordAccess(crypto.randomUUID(), [b!.id], t2); // another wallet's id: no effect
    const [ra, rb] = await store.getMemories(user, [a!.id, b!.id], t2);
    expect([ra!.access_count, ra!.accessed_at, rb!.access_count, rb!.accessed_at]).toEqual([2, iso(t2), 1, iso(t1)]);
    const listed = await store.listMemories(user, {}, { limit: 10, offset: 0 }, t2);
    expect(listed.memories.map((m) => m.access_count).sort()).toEqual([1, 2]);
    const hits = await store.nearest(user, new Float32Array([1, 0, 0, 0]), {}, 2, t2);
    expect(hits.map((h) => h.memory.access_count).sort()).toEqual([1, 2]);
    const text = await store.searchText(user, ["memori"], {}, 10, t2);
    expect(text.map((h) => h.memory.access_count).sort()).toEqual([1, 2]);
    expect((await committed(a!.id, user)).access_count).toBe(0); // still pending: no write per recall
    expect(accessWrites(spy)).toHaveLength(0);
    // after the checks above: a walk of a large database can outlast the flush interval (counts are the same either way)
    const walked = [];
    for await (const batch of store.scanAll(100)) walked.push(...batch.filter((x) => x.user_id === user).map((x) => x.memory.access_count));
    expect(walked.sort()).toEqual([1, 2]);

    await store.close(); // a clean stop flushes
    stores.splice(stores.indexOf(store), 1);
    expect(await committed(a!.id, user)).toEqual({ access_count: 2, accessed_at: iso(t2) });
    expect(await committed(b!.id, user)).toEqual({ access_count: 1, accessed_at: iso(t1) });
    // one pipeline: the script load, then one call per memory (a's two recalls as one count of 2) and one for the stranger's bump
    const writes = accessWrites(spy);
    expect(writes).toHaveLength(3);
    const access = k.access(user);
    expect(writes.filter((args) => args[5] === user).map((args) => args.slice(3).join(" ")).sort()).toEqual(
      [`${k.memory(user, a!.id)} ${access} ${user} ${a!.id} 2 ${iso(t2)}`, `${k.memory(user, b!.id)} ${access} ${user} ${b!.id} 1 ${iso(t1)}`].sort(),
    );
    // the indexed documents were not written (no re-index per access)
    expect((await inDocument(a!.id, user)).access_count).toBe(0);
    const reopened = (await open()).store;
    expect((await reopened.getMemories(user, [a!.id], t2))[0]!.access_count).toBe(2);
  });

  test("an update of a memory with pending bumps counts them once; stats see them", async () => {
    const { store } = await open();
    const user = crypto.randomUUID();
    const [a, b] = await seed(store, user, 2);
    await store.recordAccess(user, [a!.id], t1);
    const read = (await store.getMemories(user, [a!.id], t1))[0]!;
    expect(read.access_count).toBe(1);
    await store.updateMemory(user, { memory: { ...read, importance: 0.9, updated_at: iso(t1) } });
    expect((await committed(a!.id, user)).access_count).toBe(1);
    // the update rewrote the document with the count and dropped the hash field
    expect(await inDocument(a!.id, user)).toEqual({ access_count: 1, accessed_at: iso(t1) });
    expect(Number(await cmd(["HEXISTS", k.access(user), a!.id]))).toBe(0);
    expect((await store.getMemories(user, [a!.id], t1))[0]!.access_count).toBe(1);
    await store.recordAccess(user, [a!.id], t2);
    const stats = await store.stats(user, t2);
    expect([stats.total_accesses, stats.never_accessed]).toEqual([2, 1]);
    expect((await committed(a!.id, user)).access_count).toBe(2);
    expect((await committed(b!.id, user)).access_count).toBe(0);
  });

  test("stats count hash-held accesses of active memories only, and clear fields of memories that are gone", async () => {
    const { store } = await open();
    const user = crypto.randomUUID();
    const [a, b, c, d] = await seed(store, user, 4);
    await store.recordAccess(user, [a!.id, b!.id, c!.id], t1);
    await store.recordAccess(user, [a!.id], t2);
    expect([(await store.stats(user, t2)).total_accesses, (await store.stats(user, t2)).never_accessed]).toEqual([4, 1]);
    await store.softDelete(user, [b!.id], t2); // deleted: its accesses leave the totals
    await cmd(["DEL", k.memory(user, c!.id)]); // gone (as an expired key is)
    const stats = await store.stats(user, t2);
    expect([stats.total_memories, stats.total_accesses, stats.never_accessed]).toEqual([2, 2, 1]);
    expect(Number(await cmd(["HEXISTS", k.access(user), c!.id]))).toBe(0);
    expect((await store.getMemories(user, [a!.id, d!.id], t2)).map((m) => m.access_count)).toEqual([2, 0]);
  });

  test.skipIf(!FIELD_EXPIRIES)("an access field expires with its memory", async () => {
    const { store } = await open();
    const user = crypto.randomUUID();
    const expires = Date.now() + 60_000;
    const m = newMemory({ user_id: user, content: "expiring", expires_at: iso(expires) }, at);
    await store.insertMemories([{ memory: m, embedding: new Float32Array([1, 0, 0, 0]), content_hash: m.id }]);
    await store.recordAccess(user, [m.id], t1);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    const ttl = (await cmd([FIELD_EXPIRY, k.access(user), "FIELDS", "1", m.id])) as number[];
    expect(ttl[0]).toBe(expires);
  });

  test("a read sent before a flush still counts the bumps that flush writes, once", async () => {
    const { store } = await open();
    const user = crypto.randomUUID();
    const [a] = await seed(store, user, 1);
    await store.recordAccess(user, [a!.id], t1);
    const before = store.getMemories(user, [a!.id], t1); // queued ahead of the flush's writes
    const stats = store.stats(user, t1); // flushes
    expect((await before)[0]!.access_count).toBe(1);
    expect((await stats).total_accesses).toBe(1);
    expect((await store.getMemories(user, [a!.id], t1))[0]!.access_count).toBe(1);
  });

  test("a failed flush keeps its bumps for the next one", async () => {
    const { store, spy } = await open();
    const user = crypto.randomUUID();
    const [a] = await seed(store, user, 1);
    await store.recordAccess(user, [a!.id], t1);
    spy.failNext = true;
    await expect(store.stats(user, t1)).rejects.toThrow("connection lost (test)");
    expect((await committed(a!.id, user)).access_count).toBe(0);
    expect((await store.getMemories(user, [a!.id], t1))[0]!.access_count).toBe(1);
    await store.recordAccess(user, [a!.id], t2);
    expect((await store.stats(user, t2)).total_accesses).toBe(2);
    expect(await committed(a!.id, user)).toEqual({ access_count: 2, accessed_at: iso(t2) });
  });

  test("pending bumps are written within the flush interval without any other call", async () => {
    const { store } = await open();
    const user = crypto.randomUUID();
    const [a] = await seed(store, user, 1);
    await store.recordAccess(user, [a!.id], t1);
    for (let i = 0; i < 100 && (await committed(a!.id, user)).access_count === 0; i++) await Bun.sleep(50);
    expect((await committed(a!.id, user)).access_count).toBe(1);
  });
});
