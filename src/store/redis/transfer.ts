import type { HistoryEntry } from "../../domain/history";
import type { Memory } from "../../domain/memory";
import type { Relation } from "../../domain/relation";
import type { EmbeddingModelInfo } from "../../domain/store-port";
import { CopyRefused, WalletConflict, type StoreTransfer, type TransferCounts, type TransferredMemory, type WalletRecord } from "../../domain/store-transfer";
import type { RedisClient } from "./client";
import type { Keys } from "./keys";
import { docJson, expiresMs, fromBase64, toDoc, toVector } from "./memory-doc";
import { memoryFilterQuery, numericRange, tagAnyOf } from "./query";
import { parseAggregate, parseSearch } from "./replies";
import { CREATE_RELATION } from "./scripts";
import { withAccess } from "./redis-store";

/** Keys per SCAN page, ids per FT.CURSOR read, commands per pipeline. */
const PAGE = 1000;

/** A memory document's parts a copy reads (memory-doc.ts). */
interface DocParts {
  key: string;
  memory: Memory;
  hash: string;
  order: number;
  vector: Float32Array | null;
}

/**
 * The Redis engine's side of a whole-store copy (src/domain/store-transfer.ts). A user's memories are
 * read through the index by `order` (the list's sort key: creation ms, then the insertion sequence),
 * ascending; a position is the last `order` read. Imports write each document whole (toDoc, with the
 * memory's `tie` as its sequence, so memories created in the same millisecond keep their list order),
 * the history list, and the expiry, in one MULTI per batch.
 */
export class RedisTransfer implements StoreTransfer {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  async boundModel(): Promise<EmbeddingModelInfo | null> {
    const [id, dimension] = (await this.client.sendCommand(["HMGET", this.keys.meta, "embedding_model", "embedding_dimension"])) as (string | null)[];
    return id && dimension ? { id, dimension: Number(dimension) } : null;
  }

  async storedSessionSecret(): Promise<string | null> {
    return (await this.client.sendCommand(["HGET", this.keys.meta, "session_secret"])) as string | null;
  }

  /** Walks every memory document (not the index: one whose vector has another dimension is not in it). */
  async countUnembedded(dimension: number): Promise<number> {
    let unembedded = 0;
    for await (const keys of this.scan(this.keys.memoryScanPattern(), "ReJSON-RL")) {
      const documents = keys.filter((key) => this.keys.memoryIdOf(key) !== null);
      const lengths = await this.pipeline(documents.map((key) => ["JSON.ARRLEN", key, "$.embedding"]));
      for (const reply of lengths) if (Number((reply as unknown[])[0] ?? -1) !== dimension) unembedded++;
    }
    return unembedded;
  }

  async wallets(): Promise<WalletRecord[]> {
    const records = new Map<string, WalletRecord>();
    for await (const keys of this.scan(this.keys.walletScanPattern(), "hash")) {
      const replies = await this.pipeline(keys.map((key) => ["HMGET", key, "user_id", "free_calls_used"]));
      keys.forEach((key, i) => {
        const [user_id, used] = replies[i] as (string | null)[];
        const address = this.keys.walletAddressOf(key);
        if (address !== null && user_id) records.set(address, { address, user_id, free_calls_used: Number(used ?? 0) });
      });
    }
    return [...records.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
  }

  async users(now: number): Promise<{ user_id: string; memories: number }[]> {
    const counts = new Map<string, number>();
    for (const { user_id } of await this.wallets()) counts.set(user_id, 0);
    const rows = await this.aggregate(numericRange("expires_at", { above: now }), [
      "GROUPBY", "1", "@user_id", "REDUCE", "COUNT", "0", "AS", "n",
    ]);
    for (const row of rows) counts.set(row.get("user_id")!, Number(row.get("n")));
    return [...counts].map(([user_id, memories]) => ({ user_id, memories })).sort((a, b) => (a.user_id < b.user_id ? -1 : 1));
  }

  async memories(userId: string, after: string | null, limit: number, now: number): Promise<{ items: TransferredMemory[]; next: string | null }> {
    const user = tagAnyOf("user_id", [userId]);
    const range = after === null ? "" : ` ${numericRange("order", { above: Number(after) })}`;
    const { rows } = await this.search(`${user}${range}`, ["RETURN", "3", "$.order", "AS", "order", "SORTBY", "order", "ASC", "LIMIT", "0", String(limit)]);
    if (rows.length === 0) return { items: [], next: null };
    const last = Number(rows.at(-1)!.fields.get("order"));
    const next = rows.length === limit ? String(last) : null;
    let docs = await this.read(rows.map((r) => r.key));
    if (next !== null) docs = await this.withWholeLastOrder(user, docs, last);
    if (docs.length === 0) return { items: [], next };
    const ties = await this.ties(user, docs);
    const live = docs.filter((d) => d.memory.expires_at === null || Date.parse(d.memory.expires_at) > now);
    const [counts, histories] = await Promise.all([
      live.length === 0 ? [] : (this.client.sendCommand(["HMGET", this.keys.access(userId), ...live.map((d) => d.memory.id)]) as Promise<(string | null)[]>),
      this.pipeline(live.map((d) => ["LRANGE", this.keys.history(d.memory.id), "0", "-1"])),
    ]);
    const items = live.map((doc, i): TransferredMemory => {
      if (doc.vector === null) throw new CopyRefused(`memory ${doc.memory.id} has no vector (an interrupted re-embedding): finish it first with bun run reembed`);
      return {
        memory: withAccess(doc.memory, counts[i] ?? null),
        embedding: doc.vector,
        content_hash: doc.hash,
        history: (histories[i] as string[]).map((entry) => JSON.parse(entry) as HistoryEntry),
        tie: ties.get(doc.key)!,
      };
    });
    return { items, next };
  }

  /**
   * A page cut inside a run of equal `order`s (more than the sequence's 1024 slots in one
   * millisecond) would skip the rest of the run: the page takes all of it.
   */
  private async withWholeLastOrder(user: string, docs: DocParts[], last: number): Promise<DocParts[]> {
    const atLast = `${user} ${numericRange("order", { above: last - 1, below: last + 1 })}`;
    const { total } = await this.search(atLast, ["LIMIT", "0", "0"]);
    const held = docs.filter((d) => d.order === last).length;
    if (total === held) return docs;
    const { rows } = await this.search(atLast, ["NOCONTENT", "LIMIT", "0", String(total)], { noContent: true });
    const known = new Set(docs.map((d) => d.key));
    return [...docs, ...(await this.read(rows.map((r) => r.key).filter((key) => !known.has(key))))];
  }

  /** Each document's count of the user's documents with the same creation ms and a smaller `order`. */
  private async ties(user: string, docs: DocParts[]): Promise<Map<string, number>> {
    const created = (d: DocParts) => Date.parse(d.memory.created_at);
    const first = docs[0]!;
    const query = `${user} ${numericRange("created_at", { above: created(first) - 1, below: created(first) + 1 })} ${numericRange("order", { below: first.order })}`;
    let tie = (await this.search(query, ["LIMIT", "0", "0"])).total;
    const ties = new Map<string, number>();
    docs.forEach((doc, i) => {
      if (i > 0) tie = created(doc) === created(docs[i - 1]!) ? tie + 1 : 0;
      ties.set(doc.key, tie);
    });
    return ties;
  }

  /** The documents' record, content hash, `order` and vector (`vec`, or `embedding` where a document predates `vec`). */
  private async read(keys: string[]): Promise<DocParts[]> {
    if (keys.length === 0) return [];
    const paths = ["$.m", "$.hash", "$.order", "$.vec"];
    const [records, hashes, orders, vecs] = (await this.pipeline(paths.map((path) => ["JSON.MGET", ...keys, path]))) as (string | null)[][];
    const first = <T>(text: string | null | undefined): T | undefined => (text ? (JSON.parse(text) as T[])[0] : undefined);
    const docs: DocParts[] = [];
    const legacy: number[] = [];
    keys.forEach((key, i) => {
      const memory = first<Memory>(records![i]);
      if (!memory) return; // expired between the search and the read
      const vec = first<string | null>(vecs![i]);
      if (vec === undefined) legacy.push(docs.length);
      docs.push({ key, memory, hash: first<string>(hashes![i])!, order: first<number>(orders![i])!, vector: vec === undefined ? null : fromBase64(vec) });
    });
    if (legacy.length > 0) {
      const arrays = (await this.client.sendCommand(["JSON.MGET", ...legacy.map((i) => docs[i]!.key), "$.embedding"])) as (string | null)[];
      legacy.forEach((d, i) => {
        const values = first<number[] | null>(arrays[i]);
        docs[d]!.vector = values ? toVector(values) : null;
      });
    }
    return docs;
  }

  async relations(userId: string, now: number): Promise<Relation[]> {
    const ids = new Set(await this.memoryIds(userId, now));
    const relationIds = new Set<string>();
    for (const chunk of chunks([...ids])) {
      for (const members of await this.pipeline(chunk.map((id) => ["ZRANGE", this.keys.out(id), "0", "-1"]))) {
        for (const id of members as string[]) relationIds.add(id);
      }
    }
    const relations: Relation[] = [];
    for (const chunk of chunks([...relationIds])) {
      const fields = ["user_id", "source_id", "target_id", "relation_type", "metadata", "created_at"];
      const replies = await this.pipeline(chunk.map((id) => ["HMGET", this.keys.relation(id), ...fields]));
      chunk.forEach((id, i) => {
        const [owner, source_id, target_id, relation_type, metadata, created_at] = replies[i] as (string | null)[];
        if (owner !== userId || !ids.has(source_id!) || !ids.has(target_id!)) return;
        relations.push({ id, source_id: source_id!, target_id: target_id!, relation_type: relation_type as Relation["relation_type"], metadata: JSON.parse(metadata!), created_at: created_at! });
      });
    }
    return relations.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
  }

  async counts(userId: string, now: number): Promise<TransferCounts> {
    const { total: memories } = await this.search(memoryFilterQuery(userId, { include_deleted: true }, now), ["LIMIT", "0", "0"]);
    let history = 0;
    for (const chunk of chunks(await this.memoryIds(userId, now))) {
      for (const length of await this.pipeline(chunk.map((id) => ["LLEN", this.keys.history(id)]))) history += Number(length);
    }
    return { memories, relations: (await this.relations(userId, now)).length, history };
  }

  /** The ids of the user's memories (soft-deleted too) not expired at `now`, through an aggregate cursor. */
  private async memoryIds(userId: string, now: number): Promise<string[]> {
    const rows = await this.aggregate(memoryFilterQuery(userId, { include_deleted: true }, now), ["LOAD", "1", "@__key"]);
    return rows.flatMap((row) => {
      const id = this.keys.memoryIdOf(row.get("__key") ?? "");
      return id === null ? [] : [id];
    });
  }

  async importWallets(records: WalletRecord[]): Promise<void> {
    for (const chunk of chunks(records)) {
      const replies = await this.pipeline(
        chunk.flatMap(({ address, user_id }) => [
          ["HSETNX", this.keys.wallet(address), "user_id", user_id],
          ["HGET", this.keys.wallet(address), "user_id"],
        ]),
      );
      chunk.forEach(({ address, user_id }, i) => {
        const held = String(replies[2 * i + 1]);
        if (held !== user_id) throw new WalletConflict(address, user_id, held);
      });
      await this.pipeline(chunk.map(({ address, free_calls_used }) => ["HSET", this.keys.wallet(address), "free_calls_used", String(free_calls_used)]));
    }
  }

  /** The documents are built before the ownership check is sent: that work overlaps the batch before, still being written. */
  async importMemories(userId: string, items: TransferredMemory[]): Promise<void> {
    if (items.length === 0) return;
    const tx = this.client.multi();
    for (const { memory, embedding, content_hash, history, tie } of items) {
      const key = this.keys.memory(memory.id);
      const historyKey = this.keys.history(memory.id);
      tx.addCommand(["JSON.SET", key, "$", docJson(toDoc(memory, embedding, content_hash, tie))]);
      tx.addCommand(["HDEL", this.keys.access(userId), memory.id]); // the record carries its counts
      tx.addCommand(["DEL", historyKey]);
      if (history.length > 0) tx.addCommand(["RPUSH", historyKey, ...history.map((entry) => JSON.stringify(entry))]);
      const expires = expiresMs(memory);
      if (expires === null) tx.addCommand(["PERSIST", key]);
      else for (const k of history.length > 0 ? [key, historyKey] : [key]) tx.addCommand(["PEXPIREAT", k, String(expires)]);
    }
    const owners = (await this.client.sendCommand(["JSON.MGET", ...items.map((i) => this.keys.memory(i.memory.id)), "$.ix.user_id"])) as (string | null)[];
    owners.forEach((owner, i) => {
      const [held] = owner ? (JSON.parse(owner) as string[]) : [];
      if (held !== undefined && held !== userId) throw new CopyRefused(`memory ${items[i]!.memory.id} belongs to another user in the target (${held}); copy into an empty store`);
    });
    await tx.exec();
  }

  /** CREATE_RELATION per relation (the record and both adjacency entries, with their ends' expiry), pipelined. */
  async importRelations(userId: string, relations: Relation[]): Promise<void> {
    const k = this.keys;
    for (const chunk of chunks(relations)) {
      await this.pipeline([
        ["SCRIPT", "LOAD", CREATE_RELATION.source],
        ...chunk.map((r) => [
          "EVALSHA", CREATE_RELATION.sha, "5", k.relation(r.id), k.memory(r.source_id), k.memory(r.target_id), k.out(r.source_id), k.in(r.target_id),
          r.id, String(Date.parse(r.created_at)), userId, r.source_id, r.target_id, r.relation_type, JSON.stringify(r.metadata), r.created_at,
        ]),
      ]);
    }
  }

  // ---- plumbing --------------------------------------------------------------------------

  /** Keys matching `pattern` of one type, a SCAN page at a time (a key may come twice). */
  private async *scan(pattern: string, type: string): AsyncIterable<string[]> {
    let cursor = "0";
    do {
      const [next, keys] = (await this.client.sendCommand(["SCAN", cursor, "MATCH", pattern, "COUNT", String(PAGE), "TYPE", type])) as [string, string[]];
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== "0");
  }

  private async pipeline(commands: string[][]): Promise<unknown[]> {
    if (commands.length === 0) return [];
    const pipeline = this.client.multi();
    for (const command of commands) pipeline.addCommand(command);
    return (await pipeline.execAsPipeline()) as unknown[];
  }

  /** TIMEOUT 0: a query that runs out of time must fail, not answer with part of the documents. */
  private async search(query: string, args: string[], shape: { noContent?: boolean } = {}) {
    return parseSearch(await this.client.sendCommand(["FT.SEARCH", this.keys.index, query, ...args, "TIMEOUT", "0", "DIALECT", "2"]), shape);
  }

  /** Every row of an FT.AGGREGATE, read through a cursor. */
  private async aggregate(query: string, steps: string[]): Promise<Map<string, string>[]> {
    const rows: Map<string, string>[] = [];
    let reply = (await this.client.sendCommand([
      "FT.AGGREGATE", this.keys.index, query, "TIMEOUT", "0", ...steps, "WITHCURSOR", "COUNT", String(PAGE), "DIALECT", "2",
    ])) as [unknown[], number];
    for (;;) {
      const [page, cursor] = reply;
      rows.push(...parseAggregate(page));
      if (Number(cursor) === 0) return rows;
      reply = (await this.client.sendCommand(["FT.CURSOR", "READ", this.keys.index, String(cursor)])) as [unknown[], number];
    }
  }
}

function chunks<T>(items: T[], size = PAGE): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
