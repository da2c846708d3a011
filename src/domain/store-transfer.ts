import type { HistoryEntry } from "./history";
import type { Relation } from "./relation";
import type { EmbeddingModelInfo, MemoryStore, StoredMemory } from "./store-port";

/**
 * The port a whole-store copy needs (src/domain/copy-store.ts; `bun run migrate-store`), beside
 * MemoryStore: enumerate every wallet and every user's data, and write it back verbatim. Reads skip
 * memories expired at `now` (no engine shows them, and Redis reclaims them at their expiry) and
 * everything that hangs off them; soft-deleted memories are copied (exports can include them).
 * Every import is idempotent: writing the same records again leaves one copy of each.
 */
export interface StoreTransfer {
  /** The embedding model the store is bound to, null when it never was. */
  boundModel(): Promise<EmbeddingModelInfo | null>;
  /** The stored session-token key (MemoryStore.sessionSecret), without creating one. */
  storedSessionSecret(): Promise<string | null>;
  /** Memories without a vector of `dimension` (an interrupted re-embedding leaves some): a copy would lose them. */
  countUnembedded(dimension: number): Promise<number>;

  /** Every wallet record. */
  wallets(): Promise<WalletRecord[]>;
  /** Every user holding a wallet record or a memory, with their memories (any state, not expired at `now`). */
  users(now: number): Promise<{ user_id: string; memories: number }[]>;
  /**
   * The user's memories (soft-deleted too, not expired at `now`) in the engine's list order reversed
   * (oldest first: the order they are imported in reproduces the list order), `limit` at a time from
   * `after` (null: the first), with the position to continue from (null after the last). Positions
   * are the engine's own, opaque to the caller, and stay valid across runs.
   */
  memories(userId: string, after: string | null, limit: number, now: number): Promise<{ items: TransferredMemory[]; next: string | null }>;
  /** The user's relations whose both ends are stored and not expired at `now`. */
  relations(userId: string, now: number): Promise<Relation[]>;
  /** What a copy of the user must reproduce, counted at `now`. */
  counts(userId: string, now: number): Promise<TransferCounts>;

  /** Writes wallet records as given; refuses an address the store maps to another user (WalletConflict). */
  importWallets(records: WalletRecord[]): Promise<void>;
  /** Writes the user's memories (record, vector, hash, history) as given, replacing a memory of the same id. */
  importMemories(userId: string, items: TransferredMemory[]): Promise<void>;
  /** Writes the user's relations (both ends already imported), replacing a relation of the same id. */
  importRelations(userId: string, relations: Relation[]): Promise<void>;
}

/** A wallet: its address (lower case), the user id memories are stored under, and its free-tier usage. */
export interface WalletRecord {
  address: string;
  user_id: string;
  free_calls_used: number;
}

export interface TransferredMemory extends StoredMemory {
  /** the memory's history entries, oldest first */
  history: HistoryEntry[];
  /**
   * How many of the user's memories created in the same millisecond precede it in list order:
   * an engine that breaks such ties by something other than insertion order (Redis) needs it.
   */
  tie: number;
}

export interface TransferCounts {
  memories: number;
  relations: number;
  history: number;
}

/** A store that can be copied from and into. */
export interface TransferableStore extends MemoryStore {
  /** The store's transfer side, once the store's own pending writes (access bumps) are written. */
  transfer(): Promise<StoreTransfer>;
}

/** The copy cannot go on: the message says what to do instead. */
export class CopyRefused extends Error {}

/** An address the target already maps to another user: copying would merge two users. */
export class WalletConflict extends CopyRefused {
  constructor(address: string, source: string, target: string) {
    super(
      `wallet ${address} is user ${source} in the source but user ${target} in the target; ` +
        "copy into an empty store (or one earlier runs of this copy wrote)",
    );
  }
}
