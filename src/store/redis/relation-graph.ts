import type { Relation } from "../../domain/relation";
import { isRecordId, type Keys } from "./keys";
import type { Commands, RedisNodes } from "./nodes";
import type { IndexFields } from "./memory-doc";
import { NO } from "./query";
import { CREATE_RELATION } from "./scripts";

const RELATION_FIELDS = ["user_id", "source_id", "target_id", "relation_type", "metadata", "created_at"] as const;

type Presence = "active" | "inactive" | "gone";

interface Edge {
  relationId: string;
  /** the adjacency sets it was found in: [key, member] */
  seenIn: string[];
}

/**
 * Relations: a hash per relation and, per memory, an `:out` and an `:in` sorted set of relation
 * ids scored by creation time.
 *
 * Expiry cleanup. An expiring memory takes its own adjacency sets with it (same PEXPIREAT), and
 * a relation record expires with the first of its two ends (scripts.ts keeps that true when an
 * expiry is set, moved or cleared). What can be left behind is an entry in the *other* end's
 * adjacency set naming a relation whose record is gone, or, when a memory key disappears
 * another way (eviction under a volatile-* maxmemory policy, a manual DEL), a record whose end
 * is gone.
 * Readers treat both as absent: relationsOf/relationsAmong count a relation only when its
 * record exists and both ends are active at `now`, and they delete what they met dangling
 * (the adjacency entries, and the record once an end no longer exists) in one MULTI.
 * Soft-deleted or logically expired ends (key still present) are skipped but not cleaned.
 */
export class RelationGraph {
  constructor(
    private readonly nodes: RedisNodes,
    private readonly keys: Keys,
  ) {}

  /** The wallet's keys all share its slot (keys.ts): one connection serves every read and write below. */
  private wallet(userId: string): Commands {
    return this.nodes.at(this.keys.slot(userId));
  }

  /** `node`: the wallet's commands, or a connection of their own to its master (RedisNodes.exclusive). */
  async create(userId: string, r: Relation, node: Commands = this.wallet(userId)): Promise<void> {
    await CREATE_RELATION.run(node, this.createKeys(userId, r), this.createArgs(userId, r));
  }

  /**
   * CREATE_RELATION for each relation, in one pipeline led by SCRIPT LOAD (so no EVALSHA can miss the
   * script on the wallet's master): the whole-store copy's import (transfer.ts).
   */
  async createAll(userId: string, relations: Relation[]): Promise<void> {
    if (relations.length === 0) return;
    const pipeline = this.wallet(userId).multi().addCommand(["SCRIPT", "LOAD", CREATE_RELATION.source]);
    for (const r of relations) {
      pipeline.addCommand(["EVALSHA", CREATE_RELATION.sha, "5", ...this.createKeys(userId, r), ...this.createArgs(userId, r).map(String)]);
    }
    await pipeline.execAsPipeline();
  }

  /** CREATE_RELATION's KEYS (scripts.ts). */
  private createKeys(userId: string, r: Relation): string[] {
    const k = this.keys;
    return [k.relation(userId, r.id), k.memory(userId, r.source_id), k.memory(userId, r.target_id), k.out(userId, r.source_id), k.in(userId, r.target_id)];
  }

  /** CREATE_RELATION's ARGV. */
  private createArgs(userId: string, r: Relation): (string | number)[] {
    return [r.id, Date.parse(r.created_at), userId, r.source_id, r.target_id, r.relation_type, JSON.stringify(r.metadata), r.created_at];
  }

  /** `node` as for `create`; the record is read through the wallet's commands, the MULTI sent through `node`. */
  async delete(userId: string, memoryId: string, relationId: string, node: Commands = this.wallet(userId)): Promise<boolean> {
    if (!isRecordId(relationId)) return false;
    const record = await this.record(userId, relationId);
    if (!record || record.user_id !== userId || (record.source_id !== memoryId && record.target_id !== memoryId)) return false;
    const k = this.keys;
    const [deleted] = (await node
      .multi()
      .addCommand(["DEL", k.relation(userId, relationId)])
      .addCommand(["ZREM", k.out(userId, record.source_id), relationId])
      .addCommand(["ZREM", k.in(userId, record.target_id), relationId])
      .exec()) as unknown[];
    return Number(deleted) === 1;
  }

  /** Relations touching the memory whose both ends are active at `now`, newest first. */
  async of(userId: string, memoryId: string, now: number): Promise<Relation[]> {
    const relations = await this.among(userId, [memoryId], now);
    return relations.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The user's relations touching any of `ids` with both ends active; cleans what it finds dangling. */
  async among(userId: string, ids: string[], now: number): Promise<Relation[]> {
    const memoryIds = [...new Set(ids)].filter(isRecordId);
    if (memoryIds.length === 0) return [];
    const edges = await this.edges(userId, memoryIds);
    if (edges.size === 0) return [];
    const records = await this.records(userId, [...edges.keys()]);
    const ends = new Set<string>();
    for (const r of records.values()) if (r) ends.add(r.source_id).add(r.target_id);
    const presence = await this.presence(userId, [...ends], now);

    const live: Relation[] = [];
    const cleanup = this.wallet(userId).multi();
    let dangling = 0;
    for (const [relationId, edge] of edges) {
      const record = records.get(relationId);
      if (!record) {
        // the record expired (or was deleted) but this adjacency entry remained
        for (let i = 0; i < edge.seenIn.length; i++) cleanup.addCommand(["ZREM", edge.seenIn[i]!, relationId]);
        dangling++;
        continue;
      }
      if (record.user_id !== userId) continue;
      const source = presence.get(record.source_id);
      const target = presence.get(record.target_id);
      if (source === "gone" || target === "gone") {
        cleanup
          .addCommand(["DEL", this.keys.relation(userId, relationId)])
          .addCommand(["ZREM", this.keys.out(userId, record.source_id), relationId])
          .addCommand(["ZREM", this.keys.in(userId, record.target_id), relationId]);
        dangling++;
        continue;
      }
      if (source === "active" && target === "active") {
        const { user_id: _owner, ...relation } = record;
        live.push(relation);
      }
    }
    if (dangling > 0) await cleanup.exec();
    return live;
  }

  /** relation id → the adjacency sets naming it, over the `:out` and `:in` sets of `memoryIds`. */
  private async edges(userId: string, memoryIds: string[]): Promise<Map<string, Edge>> {
    const zsets = memoryIds.flatMap((id) => [this.keys.out(userId, id), this.keys.in(userId, id)]);
    const wallet = this.wallet(userId);
    // An empty adjacency set does not exist: one EXISTS over all of them answers the common case
    // (no relation among the candidates) without a ZRANGE per key (80 per recall).
    if (Number(await wallet.sendCommand(["EXISTS", ...zsets])) === 0) return new Map();
    const pipeline = wallet.multi();
    for (const key of zsets) pipeline.addCommand(["ZRANGE", key, "0", "-1"]);
    const replies = (await pipeline.execAsPipeline()) as unknown as string[][];
    const edges = new Map<string, Edge>();
    replies.forEach((members, i) => {
      for (const relationId of members) {
        const edge = edges.get(relationId) ?? { relationId, seenIn: [] };
        edge.seenIn.push(zsets[i]!);
        edges.set(relationId, edge);
      }
    });
    return edges;
  }

  private async record(userId: string, relationId: string): Promise<Relation & { user_id: string } | null> {
    return (await this.records(userId, [relationId])).get(relationId) ?? null;
  }

  private async records(userId: string, relationIds: string[]): Promise<Map<string, (Relation & { user_id: string }) | null>> {
    const pipeline = this.wallet(userId).multi();
    for (const id of relationIds) pipeline.addCommand(["HMGET", this.keys.relation(userId, id), ...RELATION_FIELDS]);
    const replies = (await pipeline.execAsPipeline()) as unknown as (string | null)[][];
    return new Map(
      relationIds.map((id, i) => {
        const [user_id, source_id, target_id, relation_type, metadata, created_at] = replies[i]!;
        if (!user_id || !source_id || !target_id || !relation_type || !created_at) return [id, null];
        return [
          id,
          { id, user_id, source_id, target_id, relation_type: relation_type as Relation["relation_type"], metadata: JSON.parse(metadata ?? "{}"), created_at },
        ];
      }),
    );
  }

  /** Whether each memory is the user's and active at `now`, present but not active, or gone (no key). */
  private async presence(userId: string, memoryIds: string[], now: number): Promise<Map<string, Presence>> {
    if (memoryIds.length === 0) return new Map();
    const reply = (await this.wallet(userId).sendCommand(["JSON.MGET", ...memoryIds.map((id) => this.keys.memory(userId, id)), "$.ix"])) as (string | null)[];
    return new Map(
      memoryIds.map((id, i): [string, Presence] => {
        const text = reply[i];
        if (!text) return [id, "gone"];
        const [ix] = JSON.parse(text) as [IndexFields | undefined];
        if (!ix) return [id, "gone"];
        return [id, ix.user_id === userId && ix.deleted === NO && ix.expires > now ? "active" : "inactive"];
      }),
    );
  }
}
