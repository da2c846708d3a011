import type { Database } from "bun:sqlite";
import { indexTerms } from "../../domain/text";

/**
 * Ordered migrations; `user_version` records how many ran. Append, never edit. A step is SQL, or a
 * function when it needs the domain's code (the FTS table holds tokens the domain computes).
 * The vector table is not here: its dimension is the embedding model's, so it is
 * created when the model is bound (see vector-index.ts).
 */
const MIGRATIONS: (string | ((db: Database) => void))[] = [
  `
  create table meta (key text primary key, value text not null);
  create table wallets (
    address text primary key,
    user_id text not null unique,
    free_calls_used integer not null default 0
  );
  create table memories (
    rowid integer primary key,
    id text not null unique,
    user_id text not null,
    namespace text not null,
    content text not null,
    content_hash text not null,
    metadata text not null,
    importance real not null,
    memory_type text not null,
    session_id text,
    agent_id text,
    pinned integer not null,
    immutable integer not null,
    expires_at text,
    created_at text not null,
    updated_at text not null,
    accessed_at text not null,
    access_count integer not null,
    deleted_at text,
    embedding blob not null
  );
  create index memories_by_user on memories (user_id, deleted_at, created_at);
  create index memories_by_hash on memories (user_id, namespace, content_hash);
  create table memory_tags (
    user_id text not null,
    tag text not null,
    memory_rowid integer not null references memories (rowid) on delete cascade,
    primary key (user_id, tag, memory_rowid)
  ) without rowid;
  create index memory_tags_by_memory on memory_tags (memory_rowid);
  create virtual table memories_fts using fts5 (content, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
  create table history (
    rowid integer primary key,
    id text not null unique,
    user_id text not null,
    memory_id text not null,
    changes text not null,
    created_at text not null
  );
  create index history_by_memory on history (user_id, memory_id);
  create table relations (
    id text primary key,
    user_id text not null,
    source_id text not null,
    target_id text not null,
    relation_type text not null,
    metadata text not null,
    created_at text not null
  );
  create index relations_by_source on relations (user_id, source_id);
  create index relations_by_target on relations (user_id, target_id);
  `,
  reindexFullText,
  `
  alter table history add column snapshots text;
  `,
  // Which rows changed, in commit order, so every connection (several processes on one file) can
  // patch its per-wallet cache instead of dropping it (vector-index.ts). Access-count bumps touch
  // none of the columns the cache mirrors, so they are not logged. Pruned by the store.
  `
  create table memory_changes (seq integer primary key autoincrement, row_id integer not null, user_id text not null);
  create trigger memory_inserted after insert on memories
    begin insert into memory_changes (row_id, user_id) values (new.rowid, new.user_id); end;
  create trigger memory_deleted after delete on memories
    begin insert into memory_changes (row_id, user_id) values (old.rowid, old.user_id); end;
  create trigger memory_updated after update of user_id, namespace, content, metadata, memory_type, session_id, agent_id, pinned,
    expires_at, created_at, deleted_at, embedding on memories
    begin insert into memory_changes (row_id, user_id) select new.rowid, new.user_id union select old.rowid, old.user_id; end;
  `,
  // Recall ranks from the cache, which now mirrors importance and access counts too: log their
  // changes. Access-count bumps are flagged, so another process re-reads only that column for them.
  `
  alter table memory_changes add column access integer not null default 0;
  drop trigger memory_updated;
  create trigger memory_updated after update of user_id, namespace, content, metadata, importance, memory_type, session_id, agent_id,
    pinned, expires_at, created_at, deleted_at, embedding on memories
    begin insert into memory_changes (row_id, user_id) select new.rowid, new.user_id union select old.rowid, old.user_id; end;
  create trigger memory_accessed after update of access_count on memories when new.access_count <> old.access_count
    begin insert into memory_changes (row_id, user_id, access) values (new.rowid, new.user_id, 1); end;
  `,
  // Recall's access counts in a narrow table of their own (ACCESS_JOIN): a bump rewrote the whole
  // memory row (content, metadata, embedding), 23-32 µs a memory at 10k RealMem turns, against ~7.5
  // for a row of this table and its change-log entry.
  `
  create table memory_access (
    row_id integer primary key references memories (rowid) on delete cascade,
    user_id text not null,
    count integer not null,
    accessed_at text not null
  );
  create trigger memory_access_added after insert on memory_access
    begin insert into memory_changes (row_id, user_id, access) values (new.row_id, new.user_id, 1); end;
  create trigger memory_access_bumped after update of count on memory_access
    begin insert into memory_changes (row_id, user_id, access) values (new.row_id, new.user_id, 1); end;
  `,
  // The x402 replay guard's claims (src/billing/replay-guard.ts), in the file every process shares:
  // a payment authorization's key until it can no longer settle. Expired rows go at the next claim.
  `
  create table if not exists payment_nonces (key text primary key, until_ms integer not null) without rowid;
  create index if not exists payment_nonces_by_expiry on payment_nonces (until_ms);
  `,
];

/**
 * A memory's access counters, for queries over `memories m`: its `memory_access` row, when recall
 * has counted it since the memory row was last written, overrides the row's own columns (a write
 * of the row deletes it, as the Redis engine's access hash field does).
 */
export const ACCESS_JOIN = "left join memory_access a on a.row_id = m.rowid";
export const ACCESS_COUNT_SQL = "coalesce(a.count, m.access_count)";
export const ACCESSED_AT_SQL = "coalesce(a.accessed_at, m.accessed_at)";

/**
 * The FTS table indexes the domain's stemmed index terms, not the raw content (earlier versions:
 * unstemmed words). Rebuilt from the rows; deleted rows were never in it.
 */
function reindexFullText(db: Database): void {
  db.exec("insert into memories_fts (memories_fts) values ('delete-all')");
  const insert = db.query("insert into memories_fts (rowid, content) values (?, ?)");
  for (const row of db.query("select rowid, content from memories where deleted_at is null").iterate() as IterableIterator<{ rowid: number; content: string }>) {
    insert.run(row.rowid, indexTerms(row.content).join(" "));
  }
}

/** Brings the schema up to date; several processes may run it at once (each step is taken by one). */
export function migrate(db: Database): void {
  const version = () => (db.query("pragma user_version").get() as { user_version: number }).user_version;
  while (version() < MIGRATIONS.length) {
    // immediate: the write lock first, then the version again, so no two processes run one step
    db.transaction(() => {
      const current = version();
      if (current >= MIGRATIONS.length) return;
      const step = MIGRATIONS[current]!;
      if (typeof step === "string") db.exec(step);
      else step(db);
      db.exec(`pragma user_version = ${current + 1}`);
    }).immediate();
  }
}
