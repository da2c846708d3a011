import { log } from "../../log";
import { Keys, LAYOUT_VERSION, LegacyKeys } from "./keys";
import type { Commands, RedisNodes } from "./nodes";
import { Script } from "./scripts";
import { scanNode } from "./walk";

/** Progress is logged at most this often. */
const PROGRESS_EVERY_MS = 5000;

/**
 * KEYS: layout 1's document, :out, :in, :history, then the same four in the current layout, then
 * the wallet's sequence counter. ARGV: layout 1's global sequence value.
 * Renames the memory and whichever side keys exist (RENAME keeps the value, the expiry and the
 * index entry) and starts the wallet's counter at the global one. One script: the memory moves
 * whole or not at all, and a second process moving the same store finds nothing left to move.
 * Touches two slots, which only a standalone server allows: layout 1 never ran on a cluster.
 */
const MOVE_MEMORY = new Script(
  "move_memory",
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, 4 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('RENAME', KEYS[i], KEYS[i + 4]) end
end
redis.call('SET', KEYS[9], ARGV[1], 'NX')
return 1
`,
);

/** KEYS: a key, its new name. Renames it if it still exists. */
const MOVE_KEY = new Script(
  "move_key",
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
return 1
`,
);

/**
 * Brings the store under `prefix` to the current key layout (keys.ts) at start-up; `layout` in
 * meta records the version once done. A store written in layout 1 (keys without hash tags) is moved
 * memory by memory, each in one atomic script, so an interrupted move loses nothing acknowledged
 * and the next start continues with what is left (what has moved no longer matches layout 1's
 * patterns). Processes of an earlier version must be stopped first: they would keep writing layout 1.
 */
export async function migrateLayout(nodes: RedisNodes, prefix: string): Promise<void> {
  const keys = new Keys(prefix);
  const meta = nodes.at(keys.meta);
  const layout = (await meta.sendCommand(["HGET", keys.meta, "layout"])) as string | null;
  if (layout === LAYOUT_VERSION) return;
  if (layout !== null) throw new Error(`the store under "${prefix}" has key layout ${layout}, which this version does not know: run a newer engram`);
  // Layout 1's scripts and transactions crossed slots, so it could not run on a cluster: nothing to move there.
  if (!nodes.cluster) await new LayoutMove(nodes.at(keys.meta), keys, new LegacyKeys(prefix)).run();
  await meta.sendCommand(["HSET", keys.meta, "layout", LAYOUT_VERSION]);
}

/** One move of a standalone store from layout 1 (see migrateLayout). */
class LayoutMove {
  private moved = 0;
  private readonly started = Date.now();
  private logged = Date.now();
  private total = 0;

  constructor(
    private readonly node: Commands,
    private readonly keys: Keys,
    private readonly legacy: LegacyKeys,
  ) {}

  async run(): Promise<void> {
    // Layout 1 counted every insert in its global sequence, deleted last here: without it there is nothing to move.
    const seq = (await this.node.sendCommand(["GET", this.legacy.seq])) as string | null;
    if (seq === null) return;
    this.total = await this.indexedDocuments();
    log.warn(`[redis] moving the store under "${this.keys.prefix}" to key layout ${LAYOUT_VERSION} (about ${this.total} memories); do not stop engram meanwhile (a stopped move continues at the next start)`);
    for await (const page of scanNode(this.node, this.legacy.memoryScanPattern(), "ReJSON-RL")) await this.moveMemories(page, seq);
    for await (const page of scanNode(this.node, this.legacy.relationScanPattern(), "hash")) await this.moveRelations(page);
    for await (const page of scanNode(this.node, this.legacy.accessScanPattern(), "hash")) await this.moveAccessHashes(page);
    // what is left under layout 1's memory keys are side keys whose memory was already gone (no reader reached them)
    for await (const page of scanNode(this.node, this.legacy.memoryScanPattern())) await this.node.sendCommand(["UNLINK", ...page]);
    await this.node.sendCommand(["DEL", this.legacy.seq]);
    const seconds = (Date.now() - this.started) / 1000;
    log.warn(`[redis] key layout ${LAYOUT_VERSION}: ${this.moved} memories moved in ${seconds.toFixed(1)} s`);
  }

  /** The documents the index holds (moved or not), for the progress line; 0 without an index. */
  private async indexedDocuments(): Promise<number> {
    try {
      const info = (await this.node.sendCommand(["FT.INFO", this.keys.index])) as unknown[];
      return Number(info[info.findIndex((f) => String(f) === "num_docs") + 1] ?? 0);
    } catch {
      return 0;
    }
  }

  private async moveMemories(page: string[], seq: string): Promise<void> {
    const docs = page.flatMap((key) => {
      const id = this.legacy.memoryIdOf(key);
      return id === null ? [] : [{ key, id }];
    });
    if (docs.length === 0) return;
    const owners = (await this.node.sendCommand(["JSON.MGET", ...docs.map((d) => d.key), "$.m.user_id"])) as (string | null)[];
    const moves = docs.flatMap(({ key, id }, i) => {
      const [userId] = owners[i] ? (JSON.parse(owners[i]!) as string[]) : [];
      if (typeof userId !== "string") return [];
      const k = this.keys;
      const targets = [k.memory(userId, id), k.out(userId, id), k.in(userId, id), k.history(userId, id), k.seq(userId)];
      return [MOVE_MEMORY.run(this.node, [key, ...this.legacy.sideKeys(id), ...targets], [seq])];
    });
    const results = await Promise.all(moves);
    this.moved += results.filter((r) => Number(r) === 1).length;
    this.progress();
  }

  /** Relation records into their wallet's slot; a record without an owner was unreadable in layout 1 and is dropped. */
  private async moveRelations(page: string[]): Promise<void> {
    const records = page.flatMap((key) => {
      const id = this.legacy.relationIdOf(key);
      return id === null ? [] : [{ key, id }];
    });
    const owners = await Promise.all(records.map(({ key }) => this.node.sendCommand(["HGET", key, "user_id"]) as Promise<string | null>));
    await Promise.all(
      records.map(({ key, id }, i) => {
        const userId = owners[i];
        return userId ? MOVE_KEY.run(this.node, [key, this.keys.relation(userId, id)], []) : this.node.sendCommand(["UNLINK", key]);
      }),
    );
  }

  /** Access hashes are named by their user already; RENAME keeps their fields' expiries. */
  private async moveAccessHashes(page: string[]): Promise<void> {
    await Promise.all(
      page.flatMap((key) => {
        const userId = this.legacy.accessUserOf(key);
        return userId === null ? [] : [MOVE_KEY.run(this.node, [key, this.keys.access(userId)], [])];
      }),
    );
  }

  private progress(): void {
    const now = Date.now();
    if (now - this.logged < PROGRESS_EVERY_MS) return;
    this.logged = now;
    const rate = this.moved / Math.max((now - this.started) / 1000, 0.001);
    log.warn(`[redis] key layout ${LAYOUT_VERSION}: ${this.moved} of about ${this.total} memories moved (${Math.round(rate)}/s)`);
  }
}
