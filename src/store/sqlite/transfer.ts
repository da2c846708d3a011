import type { Database } from "bun:sqlite";
import type { Memory } from "../../domain/memory";
import type { Relation } from "../../domain/relation";
import type { EmbeddingModelInfo } from "../../domain/store-port";
import { CopyRefused, WalletConflict, type StoreTransfer, type TransferCounts, type TransferredMemory, type WalletRecord } from "../../domain/store-transfer";
import { ACCESS_JOIN } from "./schema";
import { asVector, HISTORY_COLUMNS, insertHistory, marks, MEMORY_COLUMNS, toHistoryEntry, toMemory, type HistoryRow, type MemoryRow } from "./rows";

/** What the store keeps beside a row: its indexes (tags, FTS, the per-wallet cache), and its write lock. */
export interface RowIndexing {
  write<T>(work: () => T): T;
  index(rowid: number, memory: Memory, embedding: Float32Array): void;
  unindex(rowid: number, userId: string): void;
}

type TransferRow = MemoryRow & { content_hash: string; embedding: Uint8Array };

/** A list position: the last row's creation time and rowid (the list's order, reversed). */
type Position = [created_at: string, rowid: number];

const unexpired = (alias: string) => `(${alias}.expires_at is null or ${alias}.expires_at > ?)`;
const iso = (now: number) => new Date(now).toISOString();

/**
 * The embedded engine's side of a whole-store copy (src/domain/store-transfer.ts). Memories are read
 * oldest first by (created_at, rowid), the list order reversed, so importing them in that order
 * gives the copy's rows the same list order. An import replaces an existing row in place (same
 * rowid), so a batch written again keeps its place.
 */
export class SqliteTransfer implements StoreTransfer {
  constructor(
    private readonly db: Database,
    private readonly rows: RowIndexing,
  ) {}

  async boundModel(): Promise<EmbeddingModelInfo | null> {
    const id = this.meta("embedding_model");
    const dimension = this.meta("embedding_dimension");
    return id === null || dimension === null ? null : { id, dimension: Number(dimension) };
  }

  async storedSessionSecret(): Promise<string | null> {
    return this.meta("session_secret");
  }

  private meta(key: string): string | null {
    return (this.db.query("select value from meta where key = ?").get(key) as { value: string } | null)?.value ?? null;
  }

  async countUnembedded(dimension: number): Promise<number> {
    return (this.db.query("select count(*) as n from memories where length(embedding) <> ?").get(dimension * 4) as { n: number }).n;
  }

  async wallets(): Promise<WalletRecord[]> {
    return this.db.query("select address, user_id, free_calls_used from wallets order by address").all() as WalletRecord[];
  }

  async users(now: number): Promise<{ user_id: string; memories: number }[]> {
    return this.db
      .query(
        `select user_id, sum(n) as memories from (
           select user_id, 0 as n from wallets
           union all select m.user_id, count(*) from memories m where ${unexpired("m")} group by m.user_id
         ) group by user_id order by user_id`,
      )
      .all(iso(now)) as { user_id: string; memories: number }[];
  }

  async memories(userId: string, after: string | null, limit: number, now: number): Promise<{ items: TransferredMemory[]; next: string | null }> {
    const [created, rowid] = after === null ? ["", 0] : (JSON.parse(after) as Position);
    // expired rows are read too (and dropped below): they count in the ties of their millisecond
    const rows = this.db
      .query(
        `select ${MEMORY_COLUMNS}, m.content_hash, m.embedding from memories m ${ACCESS_JOIN}
         where m.user_id = ? and (m.created_at > ? or (m.created_at = ? and m.rowid > ?)) order by m.created_at, m.rowid limit ?`,
      )
      .all(userId, created, created, rowid, limit) as TransferRow[];
    if (rows.length === 0) return { items: [], next: null };
    const ties = this.ties(userId, rows);
    const live = rows.filter((r) => r.expires_at === null || Date.parse(r.expires_at) > now);
    const history = this.historyOf(userId, live.map((r) => r.id));
    const items = live.map((row) => ({
      memory: toMemory(row),
      embedding: asVector(row.embedding),
      content_hash: row.content_hash,
      history: history.get(row.id) ?? [],
      tie: ties.get(row.rowid)!,
    }));
    const last = rows.at(-1)!;
    return { items, next: rows.length < limit ? null : JSON.stringify([last.created_at, last.rowid] satisfies Position) };
  }

  /** Each row's count of earlier rows (list order reversed) of the same user and creation time. */
  private ties(userId: string, rows: TransferRow[]): Map<number, number> {
    const first = rows[0]!;
    let tie = (this.db.query("select count(*) as n from memories where user_id = ? and created_at = ? and rowid < ?").get(userId, first.created_at, first.rowid) as { n: number }).n;
    const ties = new Map<number, number>();
    rows.forEach((row, i) => {
      if (i > 0) tie = row.created_at === rows[i - 1]!.created_at ? tie + 1 : 0;
      ties.set(row.rowid, tie);
    });
    return ties;
  }

  private historyOf(userId: string, ids: string[]): Map<string, TransferredMemory["history"]> {
    const byMemory = new Map<string, TransferredMemory["history"]>();
    if (ids.length === 0) return byMemory;
    const rows = this.db
      .query(`select ${HISTORY_COLUMNS} from history where user_id = ? and memory_id in (${marks(ids.length)}) order by rowid`)
      .all(userId, ...ids) as HistoryRow[];
    for (const row of rows) byMemory.set(row.memory_id, [...(byMemory.get(row.memory_id) ?? []), toHistoryEntry(row)]);
    return byMemory;
  }

  /** Relations of the user whose two ends are the user's memories, not expired at `now`, as SQL over `relations r`. */
  private liveRelations = (columns: string) =>
    `select ${columns} from relations r
       join memories s on s.id = r.source_id and s.user_id = r.user_id
       join memories t on t.id = r.target_id and t.user_id = r.user_id
     where r.user_id = ? and ${unexpired("s")} and ${unexpired("t")}`;

  async relations(userId: string, now: number): Promise<Relation[]> {
    const rows = this.db
      .query(`${this.liveRelations("r.id, r.source_id, r.target_id, r.relation_type, r.metadata, r.created_at")} order by r.created_at, r.id`)
      .all(userId, iso(now), iso(now)) as (Omit<Relation, "metadata"> & { metadata: string })[];
    return rows.map((r) => ({ ...r, metadata: JSON.parse(r.metadata) }));
  }

  async counts(userId: string, now: number): Promise<TransferCounts> {
    const at = iso(now);
    const count = (sql: string, ...params: string[]) => (this.db.query(sql).get(...params) as { n: number }).n;
    return {
      memories: count(`select count(*) as n from memories m where m.user_id = ? and ${unexpired("m")}`, userId, at),
      relations: count(this.liveRelations("count(*) as n"), userId, at, at),
      history: count(
        `select count(*) as n from history h join memories m on m.id = h.memory_id and m.user_id = h.user_id where h.user_id = ? and ${unexpired("m")}`,
        userId,
        at,
      ),
    };
  }

  async importWallets(records: WalletRecord[]): Promise<void> {
    const upsert = this.db.query(
      `insert into wallets (address, user_id, free_calls_used) values (?, ?, ?)
       on conflict (address) do update set free_calls_used = excluded.free_calls_used where user_id = excluded.user_id`,
    );
    const owner = this.db.query("select user_id from wallets where address = ?");
    this.rows.write(() => {
      for (const { address, user_id, free_calls_used } of records) {
        upsert.run(address, user_id, free_calls_used);
        const held = (owner.get(address) as { user_id: string }).user_id;
        if (held !== user_id) throw new WalletConflict(address, user_id, held);
      }
    });
  }

  async importMemories(userId: string, items: TransferredMemory[]): Promise<void> {
    const existing = this.db.query("select rowid, user_id from memories where id = ?");
    const upsert = this.db.query(
      `insert into memories (id, user_id, namespace, content, content_hash, metadata, importance, memory_type, session_id, agent_id,
        pinned, immutable, expires_at, created_at, updated_at, accessed_at, access_count, deleted_at, embedding)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (id) do update set namespace = excluded.namespace, content = excluded.content, content_hash = excluded.content_hash,
         metadata = excluded.metadata, importance = excluded.importance, memory_type = excluded.memory_type, session_id = excluded.session_id,
         agent_id = excluded.agent_id, pinned = excluded.pinned, immutable = excluded.immutable, expires_at = excluded.expires_at,
         created_at = excluded.created_at, updated_at = excluded.updated_at, accessed_at = excluded.accessed_at,
         access_count = excluded.access_count, deleted_at = excluded.deleted_at, embedding = excluded.embedding
       returning rowid`,
    );
    const dropHistory = this.db.query("delete from history where user_id = ? and memory_id = ?");
    const dropAccess = this.db.query("delete from memory_access where row_id = ?");
    this.rows.write(() => {
      for (const { memory: m, embedding, content_hash, history } of items) {
        const held = existing.get(m.id) as { rowid: number; user_id: string } | null;
        if (held && held.user_id !== userId) throw new CopyRefused(`memory ${m.id} belongs to another user in the target (${held.user_id}); copy into an empty store`);
        if (held) {
          this.rows.unindex(held.rowid, userId);
          dropHistory.run(userId, m.id);
        }
        const { rowid } = upsert.get(
          m.id, userId, m.namespace, m.content, content_hash, JSON.stringify(m.metadata), m.importance, m.memory_type,
          m.session_id, m.agent_id, m.pinned ? 1 : 0, m.immutable ? 1 : 0, m.expires_at, m.created_at, m.updated_at,
          m.accessed_at, m.access_count, m.deleted_at, embedding,
        ) as { rowid: number };
        dropAccess.run(rowid); // the copy's counters are the row's
        // soft-deleted rows stay out of the search indexes, as softDelete leaves them
        if (m.deleted_at === null) this.rows.index(rowid, m, embedding);
        for (const entry of history) insertHistory(this.db, userId, entry);
      }
    });
  }

  async importRelations(userId: string, relations: Relation[]): Promise<void> {
    const upsert = this.db.query(
      `insert into relations (id, user_id, source_id, target_id, relation_type, metadata, created_at) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (id) do update set source_id = excluded.source_id, target_id = excluded.target_id, relation_type = excluded.relation_type,
         metadata = excluded.metadata, created_at = excluded.created_at where user_id = excluded.user_id`,
    );
    this.rows.write(() => {
      for (const r of relations) upsert.run(r.id, userId, r.source_id, r.target_id, r.relation_type, JSON.stringify(r.metadata), r.created_at);
    });
  }
}
