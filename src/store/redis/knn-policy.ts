import type { MemoryFilter } from "../../domain/store-port";
import type { RedisClient } from "./client";
import type { Keys } from "./keys";
import { fromTagForm, tagAnyOf } from "./query";
import { parseAggregate } from "./replies";

/**
 * Chooses RediSearch's hybrid (filtered KNN) policy from cached cardinalities.
 *
 * RediSearch runs a filtered KNN either as ADHOC_BF (walk every document the filter matches and
 * compute its distance: cost grows with the matching set) or as BATCHES (walk the HNSW graph in
 * batches, keeping the matches: cost grows with 1/selectivity). Its own choice for k > 12 at
 * 100 dimensions is ADHOC_BF whatever the selectivity, which is right for one wallet among many
 * but slow when one wallet holds most of the index (single-tenant deployments): at 100k memories
 * in one wallet, ADHOC_BF ≈ 15 ms, BATCHES ≈ 0.5 ms. Forcing BATCHES on a selective filter is far
 * worse (tens of ms: the graph walk finds few matches per batch), so BATCHES is asked for only
 * when the filter is the wallet's whole active set or one namespace of it, and that set is known
 * to be a large share of the index. Everything else keeps the engine's choice.
 *
 * Estimates (index size, the wallet's memories per namespace) are cached for a minute and
 * refreshed in the background: a query never waits for them, and a stale estimate can only cost
 * speed, never change results beyond HNSW's usual approximation.
 */
const FRESH_MS = 60_000;
const MIN_SHARE = 0.1;
const MAX_USERS = 10_000;

interface UserCounts {
  total: number;
  byNamespace: Map<string, number>;
  at: number;
}

export class KnnPolicy {
  private indexSize = { value: 0, at: 0 };
  private readonly users = new Map<string, UserCounts>();
  private readonly refreshing = new Set<string>();

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** The policy clause for `[KNN …]` (" HYBRID_POLICY BATCHES"), or "" for the engine's own choice. */
  hint(userId: string, filter: MemoryFilter): "" | " HYBRID_POLICY BATCHES" {
    const { namespace, session_id, agent_id, memory_type, pinned, created_after, created_before, tags, include_deleted } = filter;
    const other = [session_id, agent_id, memory_type, pinned, created_after, created_before].some((v) => v !== undefined);
    if (other || tags?.length || include_deleted) return "";
    this.refresh(userId);
    const counts = this.users.get(userId);
    if (!counts || this.indexSize.value === 0) return "";
    const matching = namespace === undefined ? counts.total : (counts.byNamespace.get(namespace) ?? 0);
    return matching / this.indexSize.value >= MIN_SHARE ? " HYBRID_POLICY BATCHES" : "";
  }

  /** Forgets everything (the index was rebuilt). */
  reset(): void {
    this.indexSize = { value: 0, at: 0 };
    this.users.clear();
  }

  private refresh(userId: string): void {
    const now = Date.now();
    if (now - this.indexSize.at > FRESH_MS && !this.refreshing.has("")) this.background("", () => this.loadIndexSize(now));
    const counts = this.users.get(userId);
    if ((!counts || now - counts.at > FRESH_MS) && !this.refreshing.has(userId)) this.background(userId, () => this.loadUser(userId, now));
  }

  private background(key: string, load: () => Promise<void>): void {
    this.refreshing.add(key);
    load()
      .catch(() => {}) // an estimate that cannot be read leaves the engine's choice in place
      .finally(() => this.refreshing.delete(key));
  }

  private async loadIndexSize(now: number): Promise<void> {
    const info = (await this.client.sendCommand(["FT.INFO", this.keys.index])) as unknown[];
    const at = info.findIndex((f) => String(f) === "num_docs");
    this.indexSize = { value: Number(info[at + 1] ?? 0), at: now };
  }

  private async loadUser(userId: string, now: number): Promise<void> {
    const reply = await this.client.sendCommand([
      "FT.AGGREGATE", this.keys.index, tagAnyOf("user_id", [userId]), "GROUPBY", "1", "@namespace", "REDUCE", "COUNT", "0", "AS", "n", "DIALECT", "2",
    ]);
    const byNamespace = new Map(parseAggregate(reply).map((row) => [fromTagForm(row.get("namespace") ?? ""), Number(row.get("n"))]));
    if (this.users.size >= MAX_USERS) this.users.clear();
    this.users.set(userId, { total: [...byNamespace.values()].reduce((a, b) => a + b, 0), byNamespace, at: now });
  }
}
