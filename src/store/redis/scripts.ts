import { createHash } from "node:crypto";
import type { Commands } from "./nodes";

/**
 * Writes whose effect depends on the current state (ownership, limits, expiry of other keys)
 * run as Lua scripts: a script executes atomically, so the check and the write can never be
 * separated by another client, and every key it touches changes together or not at all.
 * Unconditional multi-key writes use MULTI/EXEC instead (redis-store.ts).
 *
 * Every script touches the keys of one wallet, which share its hash tag (keys.ts), so on a
 * cluster each runs on the one master holding the wallet. UPDATE_MEMORY reaches relation records
 * and the other ends of relations by names made of the wallet's key prefixes (Keys.memoriesOf,
 * Keys.relationsOf) given as arguments: the ids are only known inside the script, and the
 * prefixes keep those keys in the wallet's slot.
 */

/** Shared Lua helpers: owner check and "earliest of two PEXPIRETIMEs" (-1 none, -2 no key). */
const LIB = `
local function owned(key, user)
  local owner = redis.call('JSON.GET', key, '.ix.user_id')
  return owner and cjson.decode(owner) == user
end
local function earliest(a, b)
  if a > 0 and b > 0 then return math.min(a, b) end
  if a > 0 then return a end
  return b
end
local function expire_at(key, at)
  if at > 0 then redis.call('PEXPIREAT', key, at) else redis.call('PERSIST', key) end
end
`;

export class Script {
  readonly sha: string;
  readonly source: string;
  constructor(
    readonly name: string,
    body: string,
  ) {
    this.source = LIB + body;
    this.sha = createHash("sha1").update(this.source).digest("hex");
  }

  async run(client: Commands, keys: string[], args: (string | number)[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await client.sendCommand(["EVALSHA", this.sha, ...tail]);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return await client.sendCommand(["EVAL", this.source, ...tail]);
    }
  }
}

/**
 * KEYS: wallet. ARGV: limit, a fresh user id (kept only if the wallet is new).
 * Takes one free call if fewer than `limit` are used: returns the new count, or -1.
 */
export const RESERVE_FREE_CALL = new Script(
  "reserve_free_call",
  `
redis.call('HSETNX', KEYS[1], 'user_id', ARGV[2])
local used = tonumber(redis.call('HGET', KEYS[1], 'free_calls_used') or '0')
if used >= tonumber(ARGV[1]) then return -1 end
return redis.call('HINCRBY', KEYS[1], 'free_calls_used', 1)
`,
);

/** KEYS: wallet. Gives one call back, never below zero, never creating the wallet. */
export const RELEASE_FREE_CALL = new Script(
  "release_free_call",
  `
local used = tonumber(redis.call('HGET', KEYS[1], 'free_calls_used') or '0')
if used > 0 then redis.call('HINCRBY', KEYS[1], 'free_calls_used', -1) end
return 0
`,
);

/**
 * KEYS: memory, :out, :in, :history, the user's access hash.
 * ARGV: user id, document head (memory-doc.ts docHead), content hash JSON or '', embedding JSON
 * or '', expires ms or '', history entry JSON or '', the user's memory key prefix, the user's
 * relation key prefix, vec JSON string (with the embedding) or ''.
 *
 * Rewrites the document in one JSON.SET (keeping hash/seq/order/embedding/vec unless given; a
 * document written before `vec` existed stays without one, and readers use `embedding`), drops the
 * memory's access field (the record given carries the counts read through it: RECORD_ACCESS), appends
 * the history entry, and moves the expiry of the memory, its side keys and its relation records
 * (a relation expires with the first of its two ends). Returns 0 if the memory is not the user's.
 */
export const UPDATE_MEMORY = new Script(
  "update_memory",
  `
local mem, out, inc, hist = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if not owned(mem, ARGV[1]) then return 0 end
redis.call('HDEL', KEYS[5], string.sub(mem, #ARGV[7] + 1))
local hash = ARGV[3]
if hash == '' then hash = redis.call('JSON.GET', mem, '.hash') end
local emb, vec = ARGV[4], ARGV[9]
if emb == '' then
  emb = redis.call('JSON.GET', mem, '.embedding')
  vec = redis.pcall('JSON.GET', mem, '.vec')
  if type(vec) ~= 'string' then vec = nil end
end
local vectors = ',"embedding":' .. emb
if vec then vectors = vectors .. ',"vec":' .. vec end
local seq = redis.call('JSON.GET', mem, '.seq')
local order = redis.call('JSON.GET', mem, '.order')
redis.call('JSON.SET', mem, '$', ARGV[2] .. ',"hash":' .. hash .. ',"seq":' .. seq .. ',"order":' .. order .. vectors .. '}')
if ARGV[6] ~= '' then redis.call('RPUSH', hist, ARGV[6]) end
local at = tonumber(ARGV[5]) or -1
for _, key in ipairs({mem, out, inc, hist}) do expire_at(key, at) end
local function relations(zset, other_field)
  for _, rid in ipairs(redis.call('ZRANGE', zset, 0, -1)) do
    local rel = ARGV[8] .. rid
    local other = redis.call('HGET', rel, other_field)
    if other then expire_at(rel, earliest(at, redis.call('PEXPIRETIME', ARGV[7] .. other))) end
  end
end
relations(out, 'target_id')
relations(inc, 'source_id')
return 1
`,
);

/**
 * KEYS: memory documents. ARGV: user id, ISO time.
 * Marks the user's not-yet-deleted memories deleted (deleted_at, updated_at, the `deleted` tag).
 * Returns how many it marked. (Path by path: JSON.MSET needs RedisJSON 2.6.)
 */
export const SOFT_DELETE = new Script(
  "soft_delete",
  `
local at = cjson.encode(ARGV[2])
local n = 0
for _, key in ipairs(KEYS) do
  if owned(key, ARGV[1]) and redis.call('JSON.GET', key, '.m.deleted_at') == 'null' then
    redis.call('JSON.SET', key, '$.m.deleted_at', at)
    redis.call('JSON.SET', key, '$.m.updated_at', at)
    redis.call('JSON.SET', key, '$.ix.deleted', '"1"')
    n = n + 1
  end
end
return n
`,
);

/**
 * KEYS: memory document, the user's access hash. ARGV: user id, memory id, count, ISO time.
 * Adds `count` accesses to the user's memory and keeps the later of its `accessed_at` and the given
 * time; returns 1, or 0 if it is not the user's (or gone). RedisStore runs it from its access log's
 * flush (../access-log.ts): one call per memory with a pending bump, all pipelined.
 *
 * The counters go to the access hash (field: memory id, value: "{count} {accessed_at}"), which
 * overrides the document's `m.access_count` / `m.accessed_at` on every read (access-field.ts), not to
 * the document: every JSON write makes RediSearch re-index the whole document, HNSW vector
 * included, about 1 ms per memory at 100k vectors, and a flush's pipeline of those held Redis for
 * every query queued behind it. The field takes the document's expiry (hash field TTLs, Redis 7.4+;
 * without them the field outlives an expired memory until stats clears it). UPDATE_MEMORY folds the
 * field back into the document it rewrites anyway.
 */
export const RECORD_ACCESS = new Script(
  "record_access",
  `
local key, hash, id = KEYS[1], KEYS[2], ARGV[2]
if not owned(key, ARGV[1]) then return 0 end
local count, at
local held = redis.call('HGET', hash, id)
if held then
  local space = string.find(held, ' ', 1, true)
  count, at = tonumber(string.sub(held, 1, space - 1)), string.sub(held, space + 1)
else
  count = tonumber(redis.call('JSON.GET', key, '.m.access_count'))
  at = cjson.decode(redis.call('JSON.GET', key, '.m.accessed_at'))
end
count = count + tonumber(ARGV[3])
if type(at) ~= 'string' or ARGV[4] > at then at = ARGV[4] end
redis.call('HSET', hash, id, string.format('%d', count) .. ' ' .. at)
local expires = redis.call('PEXPIRETIME', key)
if expires > 0 then redis.pcall('HPEXPIREAT', hash, expires, 'FIELDS', 1, id) end
return 1
`,
);

/**
 * KEYS: relation, source memory, target memory, source :out, target :in.
 * ARGV: relation id, created ms, user id, source id, target id, type, metadata JSON, created ISO.
 * Writes the record and both adjacency entries; the adjacency sets take their memory's expiry
 * and the record the earlier of the two.
 */
export const CREATE_RELATION = new Script(
  "create_relation",
  `
local rel, src, tgt, out, inc = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
redis.call('HSET', rel, 'user_id', ARGV[3], 'source_id', ARGV[4], 'target_id', ARGV[5], 'relation_type', ARGV[6], 'metadata', ARGV[7], 'created_at', ARGV[8])
redis.call('ZADD', out, ARGV[2], ARGV[1])
redis.call('ZADD', inc, ARGV[2], ARGV[1])
local s, t = redis.call('PEXPIRETIME', src), redis.call('PEXPIRETIME', tgt)
if s > 0 then redis.call('PEXPIREAT', out, s) end
if t > 0 then redis.call('PEXPIREAT', inc, t) end
expire_at(rel, earliest(s, t))
return 1
`,
);

export const SCRIPTS = [RESERVE_FREE_CALL, RELEASE_FREE_CALL, UPDATE_MEMORY, SOFT_DELETE, RECORD_ACCESS, CREATE_RELATION];
