import type { HistoryEntry } from "../../src/domain/history";
import type { Memory } from "../../src/domain/memory";
import type { Relation } from "../../src/domain/relation";
import { Keys, LegacyKeys } from "../../src/store/redis/keys";
import { docJson, expiresMs, toDoc } from "../../src/store/redis/memory-doc";
import type { Command, Commands } from "../../src/store/redis/nodes";
import { hasCommand } from "./redis-commands";

/**
 * Writes a store as the engine wrote it in key layout 1 (no hash tags, one global sequence), for
 * the tests and the benchmark of the move to the current layout (src/store/redis/layout.ts).
 */

export interface LegacyWallet {
  address: string;
  userId: string;
  freeCallsUsed: number;
  memories: LegacyMemory[];
  relations: Relation[];
}

export interface LegacyMemory {
  memory: Memory;
  embedding: Float32Array;
  contentHash: string;
  /** oldest first, as layout 1 appended them */
  history: HistoryEntry[];
  /** the access hash field, when the memory was recalled */
  access?: { count: number; at: string };
}

/** Commands sent at most this many at a time (one pipeline each). */
const CHUNK = 2000;

/**
 * An access field takes its memory's expiry where the server has hash field expiry (Redis 7.4+), as
 * layout 1's engine gave it; without, the field has none, as that engine left it there too.
 */
export async function writeLayout1(node: Commands, prefix: string, wallets: LegacyWallet[]): Promise<void> {
  const legacy = new LegacyKeys(prefix);
  const keys = new Keys(prefix);
  const fieldExpiry = await hasCommand(node, "HPEXPIREAT");
  const total = wallets.reduce((n, w) => n + w.memories.length, 0);
  const last = Number(await node.sendCommand(["INCRBY", legacy.seq, String(total)]));
  let seq = last - total;
  const commands: Command[] = [];
  for (const wallet of wallets) {
    commands.push(["HSET", keys.wallet(wallet.address), "user_id", wallet.userId, "free_calls_used", String(wallet.freeCallsUsed)]);
    for (const m of wallet.memories) commands.push(...memoryCommands(legacy, wallet.userId, m, ++seq, fieldExpiry));
    const expiries = new Map(wallet.memories.map((m) => [m.memory.id, expiresMs(m.memory)]));
    for (const r of wallet.relations) commands.push(...relationCommands(legacy, wallet.userId, r, expiries));
  }
  for (let i = 0; i < commands.length; i += CHUNK) await Promise.all(commands.slice(i, i + CHUNK).map((c) => node.sendCommand(c)));
}

function memoryCommands(legacy: LegacyKeys, userId: string, m: LegacyMemory, seq: number, fieldExpiry: boolean): Command[] {
  const key = legacy.memory(m.memory.id);
  const [, , history] = legacy.sideKeys(m.memory.id);
  const expires = expiresMs(m.memory);
  const commands: Command[] = [["JSON.SET", key, "$", docJson(toDoc(m.memory, m.embedding, m.contentHash, seq))]];
  if (m.history.length > 0) commands.push(["RPUSH", history, ...m.history.map((h) => JSON.stringify(h))]);
  if (m.access) {
    commands.push(["HSET", legacy.access(userId), m.memory.id, `${m.access.count} ${m.access.at}`]);
    if (expires !== null && fieldExpiry) commands.push(["HPEXPIREAT", legacy.access(userId), String(expires), "FIELDS", "1", m.memory.id]);
  }
  if (expires !== null) {
    commands.push(["PEXPIREAT", key, String(expires)]);
    if (m.history.length > 0) commands.push(["PEXPIREAT", history, String(expires)]);
  }
  return commands;
}

/** As layout 1's CREATE_RELATION: each adjacency set takes its memory's expiry, the record the earlier of the two. */
function relationCommands(legacy: LegacyKeys, userId: string, r: Relation, expiries: Map<string, number | null>): Command[] {
  const [out] = legacy.sideKeys(r.source_id);
  const [, inc] = legacy.sideKeys(r.target_id);
  const created = String(Date.parse(r.created_at));
  const commands: Command[] = [
    ["HSET", legacy.relation(r.id), "user_id", userId, "source_id", r.source_id, "target_id", r.target_id, "relation_type", r.relation_type, "metadata", JSON.stringify(r.metadata), "created_at", r.created_at],
    ["ZADD", out, created, r.id],
    ["ZADD", inc, created, r.id],
  ];
  const source = expiries.get(r.source_id) ?? null;
  const target = expiries.get(r.target_id) ?? null;
  if (source !== null) commands.push(["PEXPIREAT", out, String(source)]);
  if (target !== null) commands.push(["PEXPIREAT", inc, String(target)]);
  const first = [source, target].filter((t): t is number => t !== null).sort((a, b) => a - b)[0];
  if (first !== undefined) commands.push(["PEXPIREAT", legacy.relation(r.id), String(first)]);
  return commands;
}
