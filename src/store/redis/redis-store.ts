import type { Memory, MemoryType } from "../../domain/memory";
import { isExpired } from "../../domain/memory";
import type { HistoryEntry } from "../../domain/history";
import type { Relation } from "../../domain/relation";
import type { Stats } from "../../domain/stats";
import type { EmbeddingModelInfo, MemoryFilter, MemoryRef, Page, QueryVector, StoredMemory, TermStatistics, TextHit, VectorHit } from "../../domain/store-port";
import { EmbeddingModelMismatch } from "../model-binding";
import { AccessLog, type AccessBump, type Counted } from "../access-log";
import { connectRedis } from "./client";
import { isRecordId, Keys } from "./keys";
import type { Batch, Commands, RedisNodes } from "./nodes";
import { migrateLayout } from "./layout";
import { Replication } from "./replication";
import { docHead, docJson, expiresMs, fromBase64, searchText, TEXT_FORM, toDoc, vectorBase64, vectorBlob, vectorJson, type IndexFields, type RankingFields } from "./memory-doc";
import { fromTagForm, knnQuery, memoryFilterQuery, tagAnyOf, textAnyOf, YES } from "./query";
import { jsonField, parseAggregate, parseSearch, type SearchReply, type SearchRow } from "./replies";
import { RelationGraph } from "./relation-graph";
import { RedisTransfer } from "./transfer";
import type { TransferableStore } from "../../domain/store-transfer";
import { SearchIndex } from "./schema";
import { groupBy, scanMasters, WALK_PAGE } from "./walk";
import { KnnPolicy } from "./knn-policy";
import { compareUtf8 } from "./byte-order";
import { MultiErrorReply } from "redis";
import { log } from "../../log";
import { cosine } from "../../domain/text";
import { WalletUsers } from "../wallet-users";
import { RECORD_ACCESS, RELEASE_FREE_CALL, RESERVE_FREE_CALL, SOFT_DELETE, UPDATE_MEMORY } from "./scripts";
import { parseAccess, withAccess } from "./access-field";

export interface RedisStoreOptions {
  /** Prefix of every key and of the index name; one prefix = one independent store. Default `engram:`. */
  keyPrefix?: string;
  /** Replicas that must have a write before it is acknowledged (Redis WAIT; replication.ts). Default 0. */
  waitReplicas?: number;
  /** How long a command may wait for its reply before the call fails as StoreUnavailable (round-trips.ts). Default 2 s. */
  commandTimeoutMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** The record returned by searches: the `m` part of the document. */
const MEMORY_PATH = "$.m";
/** The embedding in a memory document (memory-doc.ts): the indexed array, for documents written without `vec`. */
const VECTOR_PATH = "$.embedding";
/**
 * How far past a BM25 page's end its first read goes, to see whether hits tied with its last one
 * follow (bestByBm25): `limit` × TIE_READ + TIE_MARGIN hits. Memories of similar wording tie in
 * groups (at 10k synthetic memories in one wallet, limit 40: a tie across the page's end in 96% of
 * queries, 14 tied hits past the end at the median, 151 at most), and each doubling re-runs the
 * whole query, while a longer first read costs the server next to nothing (every match is scored
 * either way): reading 4× the page cut the searches per recall from 1.9 to about 1.1.
 */
const TIE_READ = 4;
const TIE_MARGIN = 8;
/**
 * What ranking reads of a search hit (MemoryRef): the document's `ix` (memory-doc.ts), and for keyword
 * hits with a query vector its base64 `vec` too, in one JSON.MGET sent together with the access hash
 * read, after a search that returns keys only. RETURNing the fields from FT.SEARCH instead made
 * RediSearch open each hit's document once per field on its single thread (measured at 100k in one
 * wallet, 40 hits: keyword 3.2 → 2.5 ms, KNN 0.73 → 0.35 ms; the JSON.MGET costs ~0.1 ms).
 */
const REF_PATH = "$.ix";
const REF_AND_VEC_PATH = '$["ix","vec"]';
/** The ranking fields `ix` lacks in documents written before it carried them. */
const LEGACY_REF_PATH = '$.m["memory_type","importance","access_count"]';

/** A search hit's ranking ref and, when asked for, its vector (null: cleared by a forced model change). */
interface HitRead {
  ref: MemoryRef & Counted;
  vector?: Float32Array | null;
}

/**
 * The production engine on Redis 8 (or Redis Stack), standalone or a cluster: each memory is a
 * RedisJSON document indexed by RediSearch (TAG/NUMERIC filters, BM25 over the content, HNSW cosine
 * KNN), so one query filters and ranks. Every key of a wallet is in the wallet's slot, and every
 * command below goes through `wallet(user)` (or the meta key's slot): on a cluster, to the one
 * master holding it. Key layout in keys.ts, document layout in memory-doc.ts, index in schema.ts,
 * conditional writes in scripts.ts, relations in relation-graph.ts, the cluster in cluster.ts.
 *
 * Expiry: `PEXPIREAT` at `expires_at` reclaims a memory and its side keys; every query also
 * requires `expires_at > now`, so results are exact to the millisecond (and follow the
 * caller's clock, not the server's).
 */
export class RedisStore implements TransferableStore {
  readonly engine = "redis" as const;
  private readonly index: SearchIndex;
  private readonly relations: RelationGraph;
  private readonly knnPolicy: KnnPolicy;
  /** recall's access bumps, written behind in batches (../access-log.ts) */
  private readonly accesses: AccessLog;
  /** the bound model's dimension (0 until bound): a query vector of another size gets no cosines */
  private dimension = 0;

  private readonly replication: Replication;
  private readonly walletUsers = new WalletUsers();

  private constructor(
    private readonly nodes: RedisNodes,
    private readonly keys: Keys,
    opts: RedisStoreOptions,
  ) {
    this.index = new SearchIndex(nodes, keys);
    this.relations = new RelationGraph(nodes, keys);
    this.knnPolicy = new KnnPolicy(nodes, keys);
    this.accesses = new AccessLog((bumps) => this.writeAccesses(bumps));
    this.replication = new Replication(nodes, opts.waitReplicas ?? 0);
  }

  /**
   * Connects (REDIS_URL: a server, or a cluster's seed nodes), checks the search and JSON modules on
   * every master, moves a store written in an earlier key layout to the current one (layout.ts), and
   * brings an existing index up to the current schema.
   */
  static async connect(url: string, opts: RedisStoreOptions = {}): Promise<RedisStore> {
    const nodes = await connectRedis(url, { commandTimeoutMs: opts.commandTimeoutMs });
    const store = new RedisStore(nodes, new Keys(opts.keyPrefix ?? "engram:"), opts);
    try {
      await migrateLayout(nodes, opts.keyPrefix ?? "engram:");
      const bound = await store.boundModel();
      if (bound) {
        await store.index.ensure(bound.dimension);
        store.dimension = bound.dimension;
        await store.ensureTextForm();
      }
    } catch (error) {
      await nodes.close().catch(() => {});
      throw error;
    }
    return store;
  }

  /** Commands for the wallet's keys, which share its slot (keys.ts). */
  private wallet(userId: string): Commands {
    return this.nodes.at(this.keys.slot(userId));
  }

  /** Commands for the global meta hash. */
  private get meta(): Commands {
    return this.nodes.at(this.keys.meta);
  }

  private async boundModel(): Promise<EmbeddingModelInfo | null> {
    const [id, dimension] = (await this.meta.sendCommand(["HMGET", this.keys.meta, "embedding_model", "embedding_dimension"])) as (string | null)[];
    return id && dimension ? { id, dimension: Number(dimension) } : null;
  }

  /**
   * Like the sqlite engine: a store embedded by another model (id or dimension) is refused
   * unless `force`. Forcing drops the index, clears every document's vector (as sqlite drops
   * its vector table: the memories stay listable and text-searchable, and have no neighbours
   * until re-embedded; a vector of the old dimension would keep the whole document out of the
   * new index), records the new model and recreates the index. Interrupted, the same call (or
   * `bun run reembed`) finishes the job. An index without a recorded model (meta lost) is
   * adopted when its dimension matches.
   */
  async bindEmbeddingModel(model: EmbeddingModelInfo, force = false): Promise<void> {
    const bound = await this.boundModel();
    const indexed = await this.index.existingDimension();
    const stored = bound ?? (indexed === null || indexed === model.dimension ? null : { id: "(unrecorded)", dimension: indexed });
    const changed = stored !== null && (stored.id !== model.id || stored.dimension !== model.dimension);
    if (changed && !force) throw new EmbeddingModelMismatch(stored, model);
    if (changed) {
      await this.index.drop();
      await this.clearVectors();
    }
    await this.meta.sendCommand(["HSET", this.keys.meta, "embedding_model", model.id, "embedding_dimension", String(model.dimension)]);
    await this.index.ensure(model.dimension);
    this.dimension = model.dimension;
    await this.ensureTextForm();
    this.knnPolicy.reset();
  }

  async sessionSecret(candidate: string): Promise<string> {
    await this.meta.sendCommand(["HSETNX", this.keys.meta, "session_secret", candidate]);
    const stored = (await this.meta.sendCommand(["HGET", this.keys.meta, "session_secret"])) as string | null;
    if (stored === null) throw new Error(`the session secret in ${this.keys.meta} vanished right after it was set`);
    return stored;
  }

  /**
   * Rewrites every document's indexed `text` when the domain's index terms changed form (earlier
   * versions indexed unstemmed words), so BM25 keeps matching the query terms. Idempotent; the
   * form is recorded in meta once every document is rewritten.
   */
  private async ensureTextForm(): Promise<void> {
    const form = (await this.meta.sendCommand(["HGET", this.keys.meta, "text_form"])) as string | null;
    if (form === TEXT_FORM) return;
    for await (const page of this.walkDocuments<string>("$.m.content")) {
      await this.perWallet(page, (pipeline, { key, value }) => pipeline.addCommand(["JSON.SET", key, "$.text", JSON.stringify(searchText(value))]));
    }
    await this.meta.sendCommand(["HSET", this.keys.meta, "text_form", TEXT_FORM]);
  }

  /** Sets every memory document's vector to null (not indexed, document still indexed). */
  private async clearVectors(): Promise<void> {
    for await (const page of this.walkDocuments<unknown>("$.ix")) {
      await this.perWallet(page, (pipeline, { key }) => {
        pipeline.addCommand(["JSON.SET", key, "$.embedding", "null"]);
        pipeline.addCommand(["JSON.SET", key, "$.vec", "null"]);
      });
    }
  }

  /** One pipeline per wallet of a walked page (a pipeline reaches one slot), sent together. */
  private async perWallet<T>(page: WalkedDoc<T>[], add: (pipeline: Batch, doc: WalkedDoc<T>) => void): Promise<void> {
    await Promise.all(
      [...groupBy(page, (doc) => doc.userId)].map(([userId, docs]) => {
        const pipeline = this.wallet(userId).multi();
        for (const doc of docs) add(pipeline, doc);
        return pipeline.execAsPipeline();
      }),
    );
  }

  /** The whole-store copy's access to this store (transfer.ts), with every pending access bump written. */
  async transfer(): Promise<RedisTransfer> {
    await this.accesses.flush();
    return new RedisTransfer(this.nodes, this.keys, this.index, this.relations, () => this.dimension);
  }

  async close(): Promise<void> {
    await this.accesses.close();
    await this.nodes.close();
  }

  // ---- wallets ---------------------------------------------------------------------------

  /**
   * A wallet's user id never changes once set (HSETNX), and every request asks for it: remembered in
   * the process, else one HGET, and only a wallet seen for the first time pays for the transaction
   * that creates it. A new wallet's user id is acknowledged only once replicated
   * (REDIS_WAIT_REPLICAS): losing it would orphan the wallet's memories.
   */
  userIdForWallet(wallet: string): Promise<string> {
    return this.walletUsers.get(wallet, (address) => this.lookUpWallet(address));
  }

  private async lookUpWallet(wallet: string): Promise<string> {
    const key = this.keys.wallet(wallet);
    const node = this.nodes.at(key);
    const known = (await node.sendCommand(["HGET", key, "user_id"])) as string | null;
    if (known !== null) return known;
    const [, userId] = await this.replication.write(
      key,
      async (own) => (await own.multi().addCommand(["HSETNX", key, "user_id", crypto.randomUUID()]).addCommand(["HGET", key, "user_id"]).exec()) as unknown[],
      ([created]) => Number(created) === 1,
    );
    return String(userId);
  }

  /**
   * The free-call counter is not waited for (REDIS_WAIT_REPLICAS): a failover that loses the last
   * increments gives those calls back to the wallet, and a release must not fail after its call did.
   */
  async reserveFreeCall(wallet: string, limit: number): Promise<number | null> {
    const key = this.keys.wallet(wallet);
    const used = Number(await RESERVE_FREE_CALL.run(this.nodes.at(key), [key], [limit, crypto.randomUUID()]));
    return used < 0 ? null : used;
  }

  async releaseFreeCall(wallet: string): Promise<void> {
    const key = this.keys.wallet(wallet);
    await RELEASE_FREE_CALL.run(this.nodes.at(key), [key], []);
  }

  async freeCallsUsed(wallet: string): Promise<number> {
    const key = this.keys.wallet(wallet);
    return Number((await this.nodes.at(key).sendCommand(["HGET", key, "free_calls_used"])) ?? 0);
  }

  /**
   * SET NX with the claim's lifetime as its expiry: one command, atomic on the key's master, seen by
   * every replica of the service. Not waited for (REDIS_WAIT_REPLICAS), as the free-call counter: a
   * failover that loses a claim lets one replay reach the facilitator, where the chain still
   * settles a nonce once and the replay's writes, applied only after settlement, are dropped.
   */
  async claimPaymentNonce(key: string, untilMs: number, now: number): Promise<boolean> {
    const redisKey = this.keys.paymentNonce(key);
    const reply = await this.nodes.at(redisKey).sendCommand(["SET", redisKey, "1", "NX", "PX", String(Math.max(1, Math.ceil(untilMs - now)))]);
    return reply !== null;
  }

  async releasePaymentNonce(key: string): Promise<void> {
    const redisKey = this.keys.paymentNonce(key);
    await this.nodes.at(redisKey).sendCommand(["DEL", redisKey]);
  }

  // ---- memories --------------------------------------------------------------------------

  /** A wallet's documents (and their expiries) in one MULTI/EXEC: no reader ever sees part of a batch. */
  async insertMemories(items: StoredMemory[]): Promise<void> {
    await Promise.all([...groupBy(items, (item) => item.memory.user_id)].map(([userId, mine]) => this.insertOwn(userId, mine)));
  }

  private async insertOwn(userId: string, items: StoredMemory[]): Promise<void> {
    const last = Number(await this.wallet(userId).sendCommand(["INCRBY", this.keys.seq(userId), String(items.length)]));
    await this.replication.write(this.keys.slot(userId), (own) => {
      const tx = own.multi();
      items.forEach(({ memory, embedding, content_hash }, i) => {
        const key = this.keys.memory(userId, memory.id);
        tx.addCommand(["JSON.SET", key, "$", docJson(toDoc(memory, embedding, content_hash, last - items.length + 1 + i))]);
        tx.addCommand(["HDEL", this.keys.access(userId), memory.id]); // the new record's counts, not an earlier one's
        const expires = expiresMs(memory);
        if (expires !== null) tx.addCommand(["PEXPIREAT", key, String(expires)]);
      });
      return tx.exec();
    });
  }

  async updateMemory(userId: string, update: { memory: Memory; embedding?: Float32Array; content_hash?: string; history?: HistoryEntry }): Promise<void> {
    const { memory, history } = update;
    if (!isRecordId(memory.id)) return;
    // the record carries the access count read with its pending bumps: write those first, or they would count twice
    await this.accesses.flush();
    const k = this.keys;
    const keys = [k.memory(userId, memory.id), k.out(userId, memory.id), k.in(userId, memory.id), k.history(userId, memory.id), k.access(userId)];
    const args = [
      userId,
      docHead(memory),
      update.content_hash === undefined ? "" : JSON.stringify(update.content_hash),
      update.embedding === undefined ? "" : vectorJson(update.embedding),
      expiresMs(memory) ?? "",
      history ? JSON.stringify(history) : "",
      k.memoriesOf(userId),
      k.relationsOf(userId),
      update.embedding === undefined ? "" : JSON.stringify(vectorBase64(update.embedding)),
    ];
    await this.replication.write(k.slot(userId), (own) => UPDATE_MEMORY.run(own, keys, args));
  }

  async getMemories(userId: string, ids: string[], now: number): Promise<Memory[]> {
    const byId = await this.records(userId, ids);
    return ids.flatMap((id) => {
      const memory = byId.get(id);
      return memory && memory.deleted_at === null && !isExpired(memory, now) ? [memory] : [];
    });
  }

  /** The user's records by id (any state), read straight from the documents, with their pending access bumps. */
  private async records(userId: string, ids: string[]): Promise<Map<string, Memory>> {
    const unique = [...new Set(ids)].filter(isRecordId);
    if (unique.length === 0) return new Map();
    const seen = this.accesses.view(); // just before the reads are sent (AccessLog.view)
    const [reply, counts] = (await this.wallet(userId)
      .multi()
      .addCommand(["JSON.MGET", ...unique.map((id) => this.keys.memory(userId, id)), MEMORY_PATH])
      .addCommand(["HMGET", this.keys.access(userId), ...unique])
      .execAsPipeline()) as unknown as [(string | null)[], (string | null)[]];
    const found = new Map<string, Memory>();
    reply.forEach((text, i) => {
      const [memory] = text ? (JSON.parse(text) as Memory[]) : [];
      if (memory && memory.user_id === userId) found.set(memory.id, seen(withAccess(memory, counts[i] ?? null)));
    });
    return found;
  }

  async findByContentHash(userId: string, namespace: string, contentHash: string, now: number): Promise<Memory | null> {
    const query = `${memoryFilterQuery(userId, { namespace }, now)} ${tagAnyOf("content_hash", [contentHash])}`;
    const { rows } = await this.search(userId, query, ["RETURN", "1", MEMORY_PATH, "SORTBY", "order", "ASC", "LIMIT", "0", "1"]);
    const [memory] = await this.counted(userId, rows.map((row) => jsonField<Memory>(row, MEMORY_PATH)));
    return memory ?? null;
  }

  async softDelete(userId: string, ids: string[], now: number): Promise<void> {
    const keys = [...new Set(ids)].filter(isRecordId).map((id) => this.keys.memory(userId, id));
    if (keys.length === 0) return;
    await this.replication.write(this.keys.slot(userId), (own) => SOFT_DELETE.run(own, keys, [userId, iso(now)]));
  }

  /**
   * The page and the total as two queries sent together (one write; a standalone server runs them
   * back to back): the page WITHOUTCOUNT, which lets RediSearch walk the `order` index from the
   * newest end and stop once the page is full, and a `LIMIT 0 0` count. One query that sorts and
   * counts made RediSearch load every match's sort key (measured at 10k memories in one wallet:
   * 5.3 ms of server time per list, now about 1). Not a MULTI: a cluster's coordinator refuses
   * FT.SEARCH there ("Cannot block"). RediSearch's walk sometimes stops short of a full page on a
   * selective filter (Redis 8.0: 17 of 20 when 2% of the wallet matches); what it returns is then
   * the page's first part, so a page shorter than the count allows is read again the long way.
   */
  async listMemories(userId: string, filter: MemoryFilter, page: Page, now: number): Promise<{ memories: Memory[]; total: number }> {
    const query = memoryFilterQuery(userId, filter, now);
    const pageArgs = ["RETURN", "1", MEMORY_PATH, "SORTBY", "order", "DESC", "LIMIT", String(page.offset), String(page.limit)];
    let [{ rows }, { total }] = await Promise.all([this.search(userId, query, [...pageArgs, "WITHOUTCOUNT"]), this.search(userId, query, ["LIMIT", "0", "0"])]);
    if (rows.length < Math.min(page.limit, total - page.offset)) ({ rows, total } = await this.search(userId, query, pageArgs));
    return { memories: await this.counted(userId, rows.map((row) => jsonField<Memory>(row, MEMORY_PATH))), total };
  }

  /**
   * Hits as MemoryRef (`readHits`). With `vector` (recall), each hit's embedding is read with its
   * ranking fields and its cosine computed here, as `embeddings` + cosine would: recall then needs no
   * second round trip for the keyword-only candidates. The search and the hits' read are sent
   * without waiting for the vector (recall is still embedding its query meanwhile): waiting for it
   * put the read in the way of the vector search that follows the embedding.
   */
  async searchText(userId: string, terms: string[], filter: MemoryFilter, limit: number, now: number, queryVector?: QueryVector): Promise<TextHit[]> {
    const text = textAnyOf(terms);
    if (text === null) return [];
    const rows = await this.bestByBm25(userId, `${text} ${memoryFilterQuery(userId, filter, now)}`, limit);
    const [read, vector] = await Promise.all([this.readHits(userId, rows.map((row) => row.key), queryVector !== undefined), queryVector]);
    const withVectors = vector !== undefined && vector.length === this.dimension;
    return rows.flatMap((row, i) => {
      const got = read[i];
      if (!got) return [];
      const hit: TextHit = { memory: got.ref, bm25: row.score ?? 0 };
      // null after a forced model change cleared the vectors: no cosine, as `embeddings` gives none
      const values = got.vector;
      return withVectors && values && values.length === vector!.length ? [{ ...hit, similarity: cosine(vector, values) }] : [hit];
    });
  }

  /**
   * The `limit` best BM25 hits, equal scores ordered by key. RediSearch orders equal scores by its
   * internal doc id on a server and by key when a cluster's coordinator merges the shards' hits, so
   * the order is settled here, and the page is read past its end (TIE_READ, then doubling) until
   * every hit tied with the last one kept is in: a server and a cluster then answer the same hits
   * in the same order.
   */
  private async bestByBm25(userId: string, query: string, limit: number): Promise<SearchRow[]> {
    if (limit <= 0) return [];
    for (let n = limit * TIE_READ + TIE_MARGIN; ; n *= 2) {
      const { rows } = await this.search(userId, query, ["NOCONTENT", "WITHSCORES", "SCORER", "BM25STD", "LIMIT", "0", String(n)], { withScores: true, noContent: true });
      rows.sort((a, b) => b.score! - a.score! || compareKeys(a.key, b.key));
      const last = rows[limit - 1];
      if (rows.length < n || !last || last.score !== rows[n - 1]!.score) return rows.slice(0, limit);
    }
  }

  /**
   * The ranking refs (and vectors) of search hits, by document key, with the user's access hash
   * applied and then the pending bumps (the view is taken just before the hash is read, as
   * `counted` does); null for a hit whose document is gone since the search. One pipeline, plus one
   * more only for documents written before `ix` carried the ranking fields or before `vec` existed.
   */
  private async readHits(userId: string, keys: string[], withVectors: boolean): Promise<(HitRead | null)[]> {
    if (keys.length === 0) return [];
    const ids = keys.map((key) => this.keys.documentOf(key)?.id ?? key);
    const wallet = this.wallet(userId);
    const seen = this.accesses.view();
    const [texts, counts] = (await wallet
      .multi()
      .addCommand(["JSON.MGET", ...keys, withVectors ? REF_AND_VEC_PATH : REF_PATH])
      .addCommand(["HMGET", this.keys.access(userId), ...ids])
      .execAsPipeline()) as unknown as [(string | null)[], (string | null)[]];
    const parsed = texts.map((text) => (text ? (JSON.parse(text) as [IndexFields?, (string | null)?]) : []));
    const legacy = keys.filter((_, i) => parsed[i]![0] !== undefined && parsed[i]![0]!.importance === undefined);
    // `$["ix","vec"]` has no second match where the document has no `vec` (a null one is a match)
    const older = withVectors ? keys.filter((_, i) => parsed[i]![0] !== undefined && parsed[i]!.length < 2) : [];
    const [legacyFields, olderVectors] = await this.olderParts(wallet, legacy, older);
    return parsed.map(([ix, vec], i): HitRead | null => {
      if (!ix) return null;
      const fields = ix.importance === undefined ? legacyFields.get(keys[i]!) : ix;
      if (!fields) return null;
      const ref = {
        id: ids[i]!,
        user_id: userId,
        created_at: iso(ix.created),
        memory_type: fields.memory_type!,
        pinned: ix.pinned === YES,
        importance: fields.importance!,
        access_count: fields.access_count!,
        accessed_at: "",
      };
      const read: HitRead = { ref: seen(withAccess(ref, counts[i] ?? null)) };
      if (withVectors) read.vector = vec === undefined ? (olderVectors.get(keys[i]!) ?? null) : fromBase64(vec);
      return read;
    });
  }

  /** The ranking fields in `m` of `legacy` documents and the array vectors of `older` ones (see readHits), by key. */
  private async olderParts(
    wallet: Commands,
    legacy: string[],
    older: string[],
  ): Promise<[Map<string, RankingFields>, Map<string, Float32Array | null>]> {
    const fields = new Map<string, RankingFields>();
    const vectors = new Map<string, Float32Array | null>();
    if (legacy.length === 0 && older.length === 0) return [fields, vectors];
    const pipeline = wallet.multi();
    if (legacy.length > 0) pipeline.addCommand(["JSON.MGET", ...legacy, LEGACY_REF_PATH]);
    if (older.length > 0) pipeline.addCommand(["JSON.MGET", ...older, VECTOR_PATH]);
    const replies = (await pipeline.execAsPipeline()) as unknown as (string | null)[][];
    if (legacy.length > 0) {
      replies.shift()!.forEach((text, i) => {
        const values = text ? (JSON.parse(text) as [Memory["memory_type"]?, number?, number?]) : [];
        if (values.length === 3) fields.set(legacy[i]!, { memory_type: values[0]!, importance: values[1]!, access_count: values[2]! });
      });
    }
    if (older.length > 0) {
      replies.shift()!.forEach((text, i) => {
        const [values] = text ? (JSON.parse(text) as (number[] | null)[]) : [];
        vectors.set(older[i]!, values ? Float32Array.from(values) : null);
      });
    }
    return [fields, vectors];
  }

  /**
   * Counts of the wallet's documents and of those holding each term, sent together (node-redis
   * pipelines concurrent commands): the same statistics as the embedded engine's keyword index.
   */
  async termStatistics(userId: string, terms: string[], now: number): Promise<TermStatistics> {
    const everything = memoryFilterQuery(userId, {}, now);
    const [documents, ...frequencies] = await Promise.all([
      this.search(userId, everything, ["LIMIT", "0", "0"]).then((r) => r.total),
      ...terms.map((term) => this.countText(userId, [term], {}, now)),
    ]);
    return { documents: documents!, frequencies };
  }

  async countText(userId: string, terms: string[], filter: MemoryFilter, now: number): Promise<number> {
    const text = textAnyOf(terms);
    if (text === null) return 0;
    return (await this.search(userId, `${text} ${memoryFilterQuery(userId, filter, now)}`, ["LIMIT", "0", "0"])).total;
  }

  /** `_minSimilarity` (a hint that hits below it may be left out) is not used: the KNN query already reads only k. */
  async nearest(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number, _minSimilarity?: number): Promise<VectorHit[]> {
    if (k <= 0) return [];
    // No SORTBY: a KNN query already yields exactly its k nearest, and sorting them here is free,
    // while `SORTBY dist` made RediSearch sort through its general sorter (measured at 100k in one
    // wallet: 4.6 → 1.3 ms per query).
    const { rows } = await this.search(userId, knnQuery(memoryFilterQuery(userId, filter, now), this.knnPolicy.hint(userId, filter)), [
      "PARAMS", "4", "k", String(k), "vec", vectorBlob(vector), "RETURN", "1", "dist", "LIMIT", "0", String(k),
    ]);
    const read = await this.readHits(userId, rows.map((row) => row.key), false);
    return rows
      .flatMap((row, i) => (read[i] ? [{ memory: read[i]!.ref, distance: Number(row.fields.get("dist")) }] : []))
      .sort((a, b) => a.distance - b.distance || compareKeys(a.memory.id, b.memory.id)) // ties as bestByBm25's
      .map(({ memory, distance }) => ({ memory, similarity: 1 - distance }));
  }

  async embeddings(userId: string, ids: string[]): Promise<Map<string, Float32Array>> {
    const unique = [...new Set(ids)].filter(isRecordId);
    if (unique.length === 0) return new Map();
    const keys = unique.map((id) => this.keys.memory(userId, id));
    const [owners, vectors] = (await this.wallet(userId)
      .multi()
      .addCommand(["JSON.MGET", ...keys, "$.ix.user_id"])
      .addCommand(["JSON.MGET", ...keys, "$.embedding"])
      .execAsPipeline()) as unknown as (string | null)[][];
    const found = new Map<string, Float32Array>();
    unique.forEach((id, i) => {
      const owner = owners![i];
      const vector = vectors![i];
      if (!owner || !vector || (JSON.parse(owner) as string[])[0] !== userId) return;
      const [values] = JSON.parse(vector) as number[][];
      if (values) found.set(id, Float32Array.from(values));
    });
    return found;
  }

  /**
   * Written behind (../access-log.ts): every memory this store returns already carries the bump,
   * and the counters reach the documents at the next flush (`writeAccesses`).
   */
  async recordAccess(userId: string, ids: string[], now: number): Promise<void> {
    const valid = ids.filter(isRecordId);
    if (valid.length > 0) this.accesses.record(userId, valid, iso(now));
  }

  /**
   * One pipeline per wallet: SCRIPT LOAD (so no EVALSHA of the batch can miss the script, on the
   * master holding the wallet), then one RECORD_ACCESS per memory, each a hash write (no re-index). A
   * script per memory rather than one for the batch: Redis serves other clients between them. Called
   * by the access log right after it takes the batch, and queues every command before returning:
   * reads sent later run after these writes on the wallet's connection, reads sent earlier still get
   * the batch from their view. Resolves to the bumps whose script failed (kept for the next flush);
   * rejects if every wallet's pipeline did.
   */
  private async writeAccesses(bumps: AccessBump[]): Promise<AccessBump[]> {
    const wallets = [...groupBy(bumps, (bump) => bump.userId)];
    const written = await Promise.allSettled(wallets.map(([userId, mine]) => this.writeOwnAccesses(userId, mine)));
    const rejected = written.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
    if (rejected.length === wallets.length) throw rejected[0];
    return written.flatMap((result, i) => (result.status === "fulfilled" ? result.value : wallets[i]![1]));
  }

  /** The wallet's pipeline (see writeAccesses); resolves to its bumps whose script failed, rejects if the script did not load. */
  private async writeOwnAccesses(userId: string, bumps: AccessBump[]): Promise<AccessBump[]> {
    const pipeline = this.wallet(userId).multi();
    pipeline.addCommand(["SCRIPT", "LOAD", RECORD_ACCESS.source]);
    for (const { id, count, at } of bumps) {
      pipeline.addCommand(["EVALSHA", RECORD_ACCESS.sha, "2", this.keys.memory(userId, id), this.keys.access(userId), userId, id, String(count), at]);
    }
    try {
      await pipeline.execAsPipeline();
      return [];
    } catch (error) {
      if (!(error instanceof MultiErrorReply)) throw error;
      if (error.errorIndexes.includes(0)) throw error; // the script did not load: nothing ran
      const failed = error.errorIndexes.map((i) => bumps[i - 1]!);
      log.error(`[redis] access counts: ${failed.length} RECORD_ACCESS calls failed: ${error.replies[error.errorIndexes[0]!]}`);
      return failed;
    }
  }

  async history(userId: string, memoryId: string): Promise<HistoryEntry[]> {
    if (!isRecordId(memoryId)) return [];
    const [owner, entries] = (await this.wallet(userId)
      .multi()
      .addCommand(["JSON.GET", this.keys.memory(userId, memoryId), ".ix.user_id"])
      .addCommand(["LRANGE", this.keys.history(userId, memoryId), "0", "-1"])
      .exec()) as unknown as [string | null, string[]];
    if (!owner || JSON.parse(owner) !== userId) return [];
    return entries.map((e) => JSON.parse(e) as HistoryEntry).reverse();
  }

  // ---- relations -------------------------------------------------------------------------

  async createRelation(userId: string, relation: Relation): Promise<void> {
    await this.replication.write(this.keys.slot(userId), (own) => this.relations.create(userId, relation, own));
  }

  async relationsOf(userId: string, memoryId: string, now: number): Promise<Relation[]> {
    return this.relations.of(userId, memoryId, now);
  }

  async relationsAmong(userId: string, ids: string[], now: number): Promise<Relation[]> {
    return this.relations.among(userId, ids, now);
  }

  async deleteRelation(userId: string, memoryId: string, relationId: string): Promise<boolean> {
    return this.replication.write(this.keys.slot(userId), (own) => this.relations.delete(userId, memoryId, relationId, own), (deleted) => deleted);
  }

  // ---- aggregates ------------------------------------------------------------------------

  /**
   * One FT.AGGREGATE for the totals (count, sums, never-accessed, oldest/newest creation ms),
   * one count for the pinned, one GROUPBY each for types and namespaces.
   */
  async stats(userId: string, now: number, filter: Pick<MemoryFilter, "namespace"> = {}): Promise<Stats> {
    await this.accesses.flush(); // the aggregate below sums access_count in the index, accessCorrection the rest
    const active = memoryFilterQuery(userId, { namespace: filter.namespace }, now);
    const [totals, pinned_count, by_type, by_namespace, correction] = await Promise.all([
      this.aggregate(userId, active, [
        "APPLY", "@access_count < 1", "AS", "never",
        "GROUPBY", "0",
        "REDUCE", "COUNT", "0", "AS", "n",
        "REDUCE", "SUM", "1", "@access_count", "AS", "accesses",
        "REDUCE", "SUM", "1", "@importance", "AS", "importance",
        "REDUCE", "SUM", "1", "@never", "AS", "never_accessed",
        "REDUCE", "MIN", "1", "@created_at", "AS", "oldest",
        "REDUCE", "MAX", "1", "@created_at", "AS", "newest",
      ]),
      this.search(userId, `${active} ${tagAnyOf("pinned", [YES])}`, ["LIMIT", "0", "0"]).then((r) => r.total),
      this.groupCounts(userId, active, "memory_type"),
      this.groupCounts(userId, active, "namespace"),
      this.accessCorrection(userId, now, filter.namespace),
    ]);
    const row = totals[0];
    const total = Number(row?.get("n") ?? 0);
    // creation times are indexed as epoch ms (exact integers in the reply); records store them as toISOString()
    const time = (name: string) => (total === 0 ? null : iso(Number(row?.get(name))));
    return {
      total_memories: total,
      pinned_count,
      never_accessed: Number(row?.get("never_accessed") ?? 0) - correction.nowAccessed,
      total_accesses: Number(row?.get("accesses") ?? 0) + correction.accesses,
      avg_importance: total === 0 ? 0 : Number(row?.get("importance") ?? 0) / total,
      oldest_memory: time("oldest"),
      newest_memory: time("newest"),
      by_type: by_type.map(({ value, count }) => ({ memory_type: value as MemoryType, count })),
      by_namespace: by_namespace.map(({ value, count }) => ({ namespace: value, count })),
    };
  }

  /**
   * What the access hash adds to the documents' counters (the index sums those): the accesses beyond
   * them, and how many memories it took out of never-accessed, over the user's active memories.
   * Fields whose memory is gone (expired without hash field TTLs) are removed on the way.
   */
  private async accessCorrection(userId: string, now: number, namespace?: string): Promise<{ accesses: number; nowAccessed: number }> {
    const hash = this.keys.access(userId);
    const wallet = this.wallet(userId);
    let cursor = "0";
    let accesses = 0;
    let nowAccessed = 0;
    do {
      const [next, flat] = (await wallet.sendCommand(["HSCAN", hash, cursor, "COUNT", String(WALK_PAGE)])) as [string, string[]];
      cursor = next;
      const ids: string[] = [];
      const held: string[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        ids.push(flat[i]!);
        held.push(flat[i + 1]!);
      }
      if (ids.length === 0) continue;
      const keys = ids.map((id) => this.keys.memory(userId, id));
      const reads = wallet.multi().addCommand(["JSON.MGET", ...keys, "$.ix"]).addCommand(["JSON.MGET", ...keys, "$.m.access_count"]);
      // the namespaces only when the figures are one namespace's
      if (namespace !== undefined) reads.addCommand(["JSON.MGET", ...keys, "$.m.namespace"]);
      const [states, counts, namespaces] = (await reads.execAsPipeline()) as unknown as [(string | null)[], (string | null)[], (string | null)[] | undefined];
      const gone: string[] = [];
      ids.forEach((id, i) => {
        const [state] = states[i] ? (JSON.parse(states[i]!) as { user_id: string; deleted: string; expires: number }[]) : [];
        if (!state) return void gone.push(id);
        if (state.user_id !== userId || state.deleted === YES || state.expires <= now) return;
        if (namespaces && (JSON.parse(namespaces[i] ?? "[]") as string[])[0] !== namespace) return;
        const [base] = JSON.parse(counts[i] ?? "[0]") as number[];
        const { count } = parseAccess(held[i]!);
        accesses += count - (base ?? 0);
        if ((base ?? 0) < 1 && count >= 1) nowAccessed++;
      });
      if (gone.length > 0) await wallet.sendCommand(["HDEL", hash, ...gone]);
    } while (cursor !== "0");
    return { accesses, nowAccessed };
  }

  async namespaces(userId: string, now: number, filter: Pick<MemoryFilter, "agent_id"> = {}): Promise<{ namespace: string; count: number }[]> {
    const groups = await this.groupCounts(userId, memoryFilterQuery(userId, { agent_id: filter.agent_id }, now), "namespace");
    return groups.map(({ value, count }) => ({ namespace: value, count }));
  }

  /** Active-record counts per value of a TAG field, by count descending then value (bytewise, as sqlite orders text). */
  private async groupCounts(userId: string, query: string, field: string): Promise<{ value: string; count: number }[]> {
    const rows = await this.aggregate(userId, query, ["GROUPBY", "1", `@${field}`, "REDUCE", "COUNT", "0", "AS", "count"]);
    return rows
      .map((row) => ({ value: fromTagForm(row.get(field) ?? ""), count: Number(row.get("count")) }))
      .sort((a, b) => b.count - a.count || compareUtf8(a.value, b.value));
  }

  // ---- whole-store walks (re-embedding) --------------------------------------------------

  /**
   * Every non-deleted memory, walking the keys (SCAN … TYPE ReJSON-RL on every master) rather than the
   * index: after a forced model change the documents with old-dimension vectors are not in the index.
   * A memory is yielded once even if SCAN reports its key twice.
   */
  async *scanAll(batchSize: number): AsyncIterable<{ user_id: string; memory: Memory }[]> {
    const seen = new Set<string>();
    let batch: { user_id: string; memory: Memory }[] = [];
    for await (const page of this.walkDocuments<Memory>(MEMORY_PATH)) {
      for (const memory of await this.countedAcrossUsers(page.map(({ value }) => value))) {
        if (memory.deleted_at !== null || seen.has(memory.id)) continue;
        seen.add(memory.id);
        batch.push({ user_id: memory.user_id, memory });
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  async countAll(): Promise<number> {
    const seen = new Set<string>();
    for await (const states of this.walkDocuments<{ user_id: string; deleted: string }>("$.ix")) {
      for (const { key, value } of states) if (value.deleted !== YES) seen.add(key);
    }
    return seen.size;
  }

  /**
   * The values at `path` of every memory document, a SCAN page of one master at a time, read with one
   * JSON.MGET per wallet (a multi-key command reaches one slot).
   */
  private async *walkDocuments<T>(path: string): AsyncIterable<WalkedDoc<T>[]> {
    for await (const found of scanMasters(this.nodes, this.keys.memoryScanPattern(), "ReJSON-RL")) {
      const docs = found.flatMap((key) => {
        const doc = this.keys.documentOf(key);
        return doc ? [{ key, userId: doc.userId }] : [];
      });
      if (docs.length > 0) yield await this.readDocs<T>(docs, path);
    }
  }

  private async readDocs<T>(docs: { key: string; userId: string }[], path: string): Promise<WalkedDoc<T>[]> {
    const wallets = [...groupBy(docs, (doc) => doc.userId)];
    const replies = await Promise.all(
      wallets.map(([userId, mine]) => this.wallet(userId).sendCommand(["JSON.MGET", ...mine.map((doc) => doc.key), path]) as Promise<(string | null)[]>),
    );
    return wallets.flatMap(([, mine], w) =>
      mine.flatMap((doc, i) => {
        const text = replies[w]![i];
        const [value] = text ? (JSON.parse(text) as T[]) : [];
        return value === undefined ? [] : [{ ...doc, value }];
      }),
    );
  }

  // ---- RediSearch ------------------------------------------------------------------------

  /** FT.SEARCH on the index holding the wallet (on a cluster, its master's). */
  private async search(userId: string, query: string, args: (string | Buffer)[], shape: { withScores?: boolean; noContent?: boolean } = {}): Promise<SearchReply> {
    const reply = await this.index.query(this.wallet(userId), "FT.SEARCH", [query, ...args, "DIALECT", "2"], this.dimension);
    return parseSearch(reply, shape);
  }

  /**
   * Records (or refs) read from their documents, with the user's access hash applied, then the
   * pending bumps: the view is taken just before the hash is read, so a flush written in between is
   * counted once (by the hash), as AccessLog.view requires.
   */
  private async counted<T extends Counted>(userId: string, items: T[]): Promise<T[]> {
    if (items.length === 0) return items;
    const seen = this.accesses.view();
    const counts = (await this.wallet(userId).sendCommand(["HMGET", this.keys.access(userId), ...items.map((m) => m.id)])) as (string | null)[];
    return items.map((item, i) => seen(withAccess(item, counts[i] ?? null)));
  }

  /** `counted` for records of any users (whole-store walks). */
  private async countedAcrossUsers(records: Memory[]): Promise<Memory[]> {
    const out: Memory[] = [];
    for (const [userId, mine] of groupBy(records, (m) => m.user_id)) out.push(...(await this.counted(userId, mine)));
    return out;
  }

  private async aggregate(userId: string, query: string, args: string[]): Promise<Map<string, string>[]> {
    const reply = await this.index.query(this.wallet(userId), "FT.AGGREGATE", [query, ...args, "DIALECT", "2"], this.dimension);
    return parseAggregate(reply);
  }
}

/** Bytewise, as RediSearch's coordinator compares keys. */
const compareKeys = compareUtf8;

/** A memory document met by a whole-store walk: its key, wallet, and the value read at the walk's path. */
interface WalkedDoc<T> {
  key: string;
  userId: string;
  value: T;
}
