import type { HistoryEntry } from "../../domain/history";
import type { Memory } from "../../domain/memory";
import type { Relation } from "../../domain/relation";
import type { EmbeddingModelInfo } from "../../domain/store-port";
import { CopyRefused, WalletConflict, type StoreTransfer, type TransferCounts, type TransferredMemory, type WalletRecord } from "../../domain/store-transfer";
import type { Keys } from "./keys";
import type { Commands, RedisNodes } from "./nodes";
import { docJson, expiresMs, fromBase64, toDoc, toVector } from "./memory-doc";
import { memoryFilterQuery, numericRange, tagAnyOf } from "./query";
import { parseAggregate, parseSearch } from "./replies";
import type { RelationGraph } from "./relation-graph";
import type { SearchIndex } from "./schema";
import { withAccess } from "./access-field";
import { groupBy, scanMasters, WALK_PAGE as PAGE } from "./walk";

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
 *
 * Like the store (redis-store.ts), every command of a user goes through `wallet(user)`: the user's
 * keys share its slot (keys.ts), so on a cluster each MULTI, pipeline and search of a user reaches
 * the one master holding it. Wallet records (each in its own slot) and memory documents are found
 * by SCAN on every master.
 */
export class RedisTransfer implements StoreTransfer {
  constructor(
    private readonly nodes: RedisNodes,
    private readonly keys: Keys,
    private readonly index: SearchIndex,
    private readonly graph: RelationGraph,
    /** the bound model's dimension (0 until bound): a master without the index gets it at the first query (SearchIndex.query) */
    private readonly dimension: () => number,
  ) {}

  /** Commands for the user's keys, which share its slot. */
  private wallet(userId: string): Commands {
    return this.nodes.at(this.keys.slot(userId));
  }

  async boundModel(): Promise<EmbeddingModelInfo | null> {
    const meta = this.nodes.at(this.keys.meta);
    const [id, dimension] = (await meta.sendCommand(["HMGET", this.keys.meta, "embedding_model", "embedding_dimension"])) as (string | null)[];
    return id && dimension ? { id, dimension: Number(dimension) } : null;
  }

  async storedSessionSecret(): Promise<string | null> {
    return (await this.nodes.at(this.keys.meta).sendCommand(["HGET", this.keys.meta, "session_secret"])) as string | null;
  }

  /** Walks every memory document (not the index: one whose vector has another dimension is not in it). */
  async countUnembedded(dimension: number): Promise<number> {
    let unembedded = 0;
    for await (const keys of scanMasters(this.nodes, this.keys.memoryScanPattern(), "ReJSON-RL")) {
      const documents = keys.flatMap((key) => {
        const doc = this.keys.documentOf(key);
        return doc ? [{ key, userId: doc.userId }] : [];
      });
      const perWallet = await Promise.all(
        [...groupBy(documents, (d) => d.userId)].map(([userId, mine]) => this.pipeline(this.wallet(userId), mine.map(({ key }) => ["JSON.ARRLEN", key, "$.embedding"]))),
      );
      for (const reply of perWallet.flat()) if (Number((reply as unknown[])[0] ?? -1) !== dimension) unembedded++;
    }
    return unembedded;
  }

  /** Each wallet hash is in the slot of its address (keys.ts), so each is read on its own. */
  async wallets(): Promise<WalletRecord[]> {
    const records = new Map<string, WalletRecord>();
    for await (const keys of scanMasters(this.nodes, this.keys.walletScanPattern(), "hash")) {
      const replies = await Promise.all(keys.map((key) => this.nodes.at(key).sendCommand(["HMGET", key, "user_id", "free_calls_used"]) as Promise<(string | null)[]>));
      keys.forEach((key, i) => {
        const [user_id, used] = replies[i]!;
        const address = this.keys.walletAddressOf(key);
        if (address !== null && user_id) records.set(address, { address, user_id, free_calls_used: Number(used ?? 0) });
      });
    }
    return [...records.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
  }

  /**
   * Memory counts per user, aggregated on every master: Redis 8's coordinator answers each for the
   * whole cluster, a query engine without one answers each for its own keys. A wallet lives on one
   * master, so the largest count met is the wallet's either way.
   */
  async users(now: number): Promise<{ user_id: string; memories: number }[]> {
    const counts = new Map<string, number>();
    for (const { user_id } of await this.wallets()) counts.set(user_id, 0);
    for (const master of await this.nodes.masters()) {
      const rows = await this.aggregate(master.commands, numericRange("expires_at", { above: now }), [
        "GROUPBY", "1", "@user_id", "REDUCE", "COUNT", "0", "AS", "n",
      ]);
      for (const row of rows) {
        const user = row.get("user_id")!;
        counts.set(user, Math.max(counts.get(user) ?? 0, Number(row.get("n"))));
      }
    }
    return [...counts].map(([user_id, memories]) => ({ user_id, memories })).sort((a, b) => (a.user_id < b.user_id ? -1 : 1));
  }

  async memories(userId: string, after: string | null, limit: number, now: number): Promise<{ items: TransferredMemory[]; next: string | null }> {
    const wallet = this.wallet(userId);
    const user = tagAnyOf("user_id", [userId]);
    const range = after === null ? "" : ` ${numericRange("order", { above: Number(after) })}`;
    const { rows } = await this.search(wallet, `${user}${range}`, ["RETURN", "3", "$.order", "AS", "order", "SORTBY", "order", "ASC", "LIMIT", "0", String(limit)]);
    if (rows.length === 0) return { items: [], next: null };
    const last = Number(rows.at(-1)!.fields.get("order"));
    const next = rows.length === limit ? String(last) : null;
    let docs = await this.read(wallet, rows.map((r) => r.key));
    if (next !== null) docs = await this.withWholeLastOrder(wallet, user, docs, last);
    if (docs.length === 0) return { items: [], next };
    const ties = await this.ties(wallet, user, docs);
    const live = docs.filter((d) => d.memory.expires_at === null || Date.parse(d.memory.expires_at) > now);
    const [counts, histories] = await Promise.all([
      live.length === 0 ? [] : (wallet.sendCommand(["HMGET", this.keys.access(userId), ...live.map((d) => d.memory.id)]) as Promise<(string | null)[]>),
      this.pipeline(wallet, live.map((d) => ["LRANGE", this.keys.history(userId, d.memory.id), "0", "-1"])),
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
  private async withWholeLastOrder(wallet: Commands, user: string, docs: DocParts[], last: number): Promise<DocParts[]> {
    const atLast = `${user} ${numericRange("order", { above: last - 1, below: last + 1 })}`;
    const { total } = await this.search(wallet, atLast, ["LIMIT", "0", "0"]);
    const held = docs.filter((d) => d.order === last).length;
    if (total === held) return docs;
    const { rows } = await this.search(wallet, atLast, ["NOCONTENT", "LIMIT", "0", String(total)], { noContent: true });
    const known = new Set(docs.map((d) => d.key));
    return [...docs, ...(await this.read(wallet, rows.map((r) => r.key).filter((key) => !known.has(key))))];
  }

  /** Each document's count of the user's documents with the same creation ms and a smaller `order`. */
  private async ties(wallet: Commands, user: string, docs: DocParts[]): Promise<Map<string, number>> {
    const created = (d: DocParts) => Date.parse(d.memory.created_at);
    const first = docs[0]!;
    const query = `${user} ${numericRange("created_at", { above: created(first) - 1, below: created(first) + 1 })} ${numericRange("order", { below: first.order })}`;
    let tie = (await this.search(wallet, query, ["LIMIT", "0", "0"])).total;
    const ties = new Map<string, number>();
    docs.forEach((doc, i) => {
      if (i > 0) tie = created(doc) === created(docs[i - 1]!) ? tie + 1 : 0;
      ties.set(doc.key, tie);
    });
    return ties;
  }

  /** The documents' record, content hash, `order` and vector (`vec`, or `embedding` where a document predates `vec`). */
  private async read(wallet: Commands, keys: string[]): Promise<DocParts[]> {
    if (keys.length === 0) return [];
    const paths = ["$.m", "$.hash", "$.order", "$.vec"];
    const [records, hashes, orders, vecs] = (await this.pipeline(wallet, paths.map((path) => ["JSON.MGET", ...keys, path]))) as (string | null)[][];
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
      const arrays = (await wallet.sendCommand(["JSON.MGET", ...legacy.map((i) => docs[i]!.key), "$.embedding"])) as (string | null)[];
      legacy.forEach((d, i) => {
        const values = first<number[] | null>(arrays[i]);
        docs[d]!.vector = values ? toVector(values) : null;
      });
    }
    return docs;
  }

  async relations(userId: string, now: number): Promise<Relation[]> {
    const wallet = this.wallet(userId);
    const ids = new Set(await this.memoryIds(userId, now));
    const relationIds = new Set<string>();
    for (const chunk of chunks([...ids])) {
      for (const members of await this.pipeline(wallet, chunk.map((id) => ["ZRANGE", this.keys.out(userId, id), "0", "-1"]))) {
        for (const id of members as string[]) relationIds.add(id);
      }
    }
    const relations: Relation[] = [];
    for (const chunk of chunks([...relationIds])) {
      const fields = ["user_id", "source_id", "target_id", "relation_type", "metadata", "created_at"];
      const replies = await this.pipeline(wallet, chunk.map((id) => ["HMGET", this.keys.relation(userId, id), ...fields]));
      chunk.forEach((id, i) => {
        const [owner, source_id, target_id, relation_type, metadata, created_at] = replies[i] as (string | null)[];
        if (owner !== userId || !ids.has(source_id!) || !ids.has(target_id!)) return;
        relations.push({ id, source_id: source_id!, target_id: target_id!, relation_type: relation_type as Relation["relation_type"], metadata: JSON.parse(metadata!), created_at: created_at! });
      });
    }
    return relations.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
  }

  async counts(userId: string, now: number): Promise<TransferCounts> {
    const wallet = this.wallet(userId);
    const { total: memories } = await this.search(wallet, memoryFilterQuery(userId, { include_deleted: true }, now), ["LIMIT", "0", "0"]);
    let history = 0;
    for (const chunk of chunks(await this.memoryIds(userId, now))) {
      for (const length of await this.pipeline(wallet, chunk.map((id) => ["LLEN", this.keys.history(userId, id)]))) history += Number(length);
    }
    return { memories, relations: (await this.relations(userId, now)).length, history };
  }

  /** The ids of the user's memories (soft-deleted too) not expired at `now`, through an aggregate cursor. */
  private async memoryIds(userId: string, now: number): Promise<string[]> {
    const rows = await this.aggregate(this.wallet(userId), memoryFilterQuery(userId, { include_deleted: true }, now), ["LOAD", "1", "@__key"]);
    return rows.flatMap((row) => {
      const doc = this.keys.documentOf(row.get("__key") ?? "");
      return doc === null ? [] : [doc.id];
    });
  }

  /** Each wallet hash in its own slot: claimed and read back in one MULTI, then its free-call count set. */
  async importWallets(records: WalletRecord[]): Promise<void> {
    for (const chunk of chunks(records)) {
      const held = await Promise.all(
        chunk.map(({ address, user_id }) => {
          const key = this.keys.wallet(address);
          return this.nodes.at(key).multi().addCommand(["HSETNX", key, "user_id", user_id]).addCommand(["HGET", key, "user_id"]).exec();
        }),
      );
      chunk.forEach(({ address, user_id }, i) => {
        const owner = String(held[i]![1]);
        if (owner !== user_id) throw new WalletConflict(address, user_id, owner);
      });
      await Promise.all(
        chunk.map(({ address, free_calls_used }) => {
          const key = this.keys.wallet(address);
          return this.nodes.at(key).sendCommand(["HSET", key, "free_calls_used", String(free_calls_used)]);
        }),
      );
    }
  }

  /**
   * One MULTI in the user's slot. A memory's keys carry its user (keys.ts), so an import can only
   * replace that user's memory of the same id, never another user's.
   */
  async importMemories(userId: string, items: TransferredMemory[]): Promise<void> {
    if (items.length === 0) return;
    const tx = this.wallet(userId).multi();
    for (const { memory, embedding, content_hash, history, tie } of items) {
      const key = this.keys.memory(userId, memory.id);
      const historyKey = this.keys.history(userId, memory.id);
      tx.addCommand(["JSON.SET", key, "$", docJson(toDoc(memory, embedding, content_hash, tie))]);
      tx.addCommand(["HDEL", this.keys.access(userId), memory.id]); // the record carries its counts
      tx.addCommand(["DEL", historyKey]);
      if (history.length > 0) tx.addCommand(["RPUSH", historyKey, ...history.map((entry) => JSON.stringify(entry))]);
      const expires = expiresMs(memory);
      if (expires === null) tx.addCommand(["PERSIST", key]);
      else for (const k of history.length > 0 ? [key, historyKey] : [key]) tx.addCommand(["PEXPIREAT", k, String(expires)]);
    }
    await tx.exec();
  }

  /** CREATE_RELATION per relation (the record and both adjacency entries, with their ends' expiry), as the store writes one. */
  async importRelations(userId: string, relations: Relation[]): Promise<void> {
    for (const chunk of chunks(relations)) await this.graph.createAll(userId, chunk);
  }

  // ---- plumbing --------------------------------------------------------------------------

  private async pipeline(node: Commands, commands: string[][]): Promise<unknown[]> {
    if (commands.length === 0) return [];
    const pipeline = node.multi();
    for (const command of commands) pipeline.addCommand(command);
    return (await pipeline.execAsPipeline()) as unknown[];
  }

  /** TIMEOUT 0: a query that runs out of time must fail, not answer with part of the documents. */
  private async search(node: Commands, query: string, args: string[], shape: { noContent?: boolean } = {}) {
    return parseSearch(await this.index.query(node, "FT.SEARCH", [query, ...args, "TIMEOUT", "0", "DIALECT", "2"], this.dimension()), shape);
  }

  /** Every row of an FT.AGGREGATE on `node`, read through a cursor (which lives on that node). */
  private async aggregate(node: Commands, query: string, steps: string[]): Promise<Map<string, string>[]> {
    const rows: Map<string, string>[] = [];
    let reply = (await this.index.query(node, "FT.AGGREGATE", [query, "TIMEOUT", "0", ...steps, "WITHCURSOR", "COUNT", String(PAGE), "DIALECT", "2"], this.dimension())) as [unknown[], number];
    for (;;) {
      const [page, cursor] = reply;
      rows.push(...parseAggregate(page));
      if (Number(cursor) === 0) return rows;
      reply = (await node.sendCommand(["FT.CURSOR", "READ", this.keys.index, String(cursor)])) as [unknown[], number];
    }
  }
}

function chunks<T>(items: T[], size = PAGE): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
