import type { Database } from "bun:sqlite";
import type { Memory } from "../../domain/memory";
import type { MemoryFilter } from "../port";
import { memoryWhere, type SqlParam } from "./filter-sql";

/** vec0 has no NULL metadata values and no "no expiry": these sentinels stand in. */
const NO_SCOPE = "";
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * The sqlite-vec vec0 table: one row per active memory (rowid = memories.rowid),
 * partitioned by user, with the scalar filters as metadata columns so KNN
 * applies them while it scans (pre-filtering).
 */
export class VectorIndex {
  constructor(private readonly db: Database) {}

  create(dimension: number): void {
    this.db.exec(`create virtual table if not exists memory_vectors using vec0 (
      user_id text partition key,
      embedding float[${dimension}] distance_metric=cosine,
      namespace text, session_id text, agent_id text, memory_type text,
      created_at integer, expires_at integer
    )`);
  }

  drop(): void {
    this.db.exec("drop table if exists memory_vectors");
  }

  upsert(rowid: number, memory: Memory, embedding: Float32Array): void {
    this.remove(rowid);
    this.db
      .query(
        `insert into memory_vectors (rowid, user_id, embedding, namespace, session_id, agent_id, memory_type, created_at, expires_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        rowid,
        memory.user_id,
        embedding,
        memory.namespace,
        memory.session_id ?? NO_SCOPE,
        memory.agent_id ?? NO_SCOPE,
        memory.memory_type,
        Date.parse(memory.created_at),
        memory.expires_at ? Date.parse(memory.expires_at) : NEVER,
      );
  }

  remove(rowid: number): void {
    this.db.query("delete from memory_vectors where rowid = ?").run(rowid);
  }

  /** Can the filter be answered inside vec0? (tags, pinned and upper date bounds cannot.) */
  static handles(filter: MemoryFilter): boolean {
    return !filter.tags?.length && filter.pinned === undefined && filter.created_before === undefined && !filter.include_deleted;
  }

  /** The k nearest active rows under the filter: vec0 KNN when it can apply the filter, else an exact scan of the filtered rows. */
  nearest(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number): { rowid: number; distance: number }[] {
    return VectorIndex.handles(filter) ? this.knn(userId, vector, filter, k, now) : this.exact(userId, vector, filter, k, now);
  }

  private exact(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number): { rowid: number; distance: number }[] {
    const where = memoryWhere(userId, filter, now);
    return this.db
      .query(`select m.rowid, vec_distance_cosine(m.embedding, ?) as distance from memories m where ${where.sql} order by distance limit ?`)
      .all(vector, ...where.params, k) as { rowid: number; distance: number }[];
  }

  private knn(userId: string, vector: Float32Array, filter: MemoryFilter, k: number, now: number): { rowid: number; distance: number }[] {
    const clauses = ["embedding match ?", "k = ?", "user_id = ?", "expires_at > ?"];
    const params: SqlParam[] = [vector, k, userId, now];
    const eq = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      clauses.push(`${column} = ?`);
      params.push(value);
    };
    eq("namespace", filter.namespace);
    eq("session_id", filter.session_id);
    eq("agent_id", filter.agent_id);
    eq("memory_type", filter.memory_type);
    if (filter.created_after !== undefined) {
      clauses.push("created_at > ?");
      params.push(Date.parse(filter.created_after));
    }
    return this.db
      .query(`select rowid, distance from memory_vectors where ${clauses.join(" and ")}`)
      .all(...params) as { rowid: number; distance: number }[];
  }
}
