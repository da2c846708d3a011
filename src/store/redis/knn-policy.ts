import type { MemoryFilter } from "../../domain/store-port";
import type { Keys } from "./keys";
import type { RedisNodes } from "./nodes";
import { tagAnyOf } from "./query";

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
 * Estimates (the size of the index holding the wallet: on a cluster, the mean size of a master's;
 * the wallet's memories, or its memories in the namespace asked for) are
 * counted on first use, cached for a minute and refreshed in the background: a query never waits
 * for them, and a stale estimate can only cost speed, never change results beyond HNSW's usual
 * approximation.
 *
 * On a cluster the query runs on every master (the coordinator's fan-out) and the wallet's
 * documents are all on one; BATCHES pays there as on one server (scripts/bench/knn-policy.ts at
 * 00475e4, k = 40, p50: 20k of 36k memories in one wallet on 3 masters, 7.1 ms with the engine's
 * choice, 3.0 with BATCHES; one server 9.9 and 2.7), and near the threshold the two are as close on
 * both (2k memories, 16% of a master's mean: 6.95 / 7.72 ms on 3 masters, 2.59 / 2.89 on one
 * server).
 */
const FRESH_MS = 60_000;
const MIN_SHARE = 0.1;
const MAX_COUNTS = 10_000;

export class KnnPolicy {
  /** documents in one master's index: the whole index on one server, the mean over the masters on a cluster */
  private indexSize?: { value: number; at: number };
  /** documents per wallet (key: user id) and per wallet and namespace (user id, NUL, namespace) */
  private readonly counts = new Map<string, { value: number; at: number }>();
  private readonly refreshing = new Set<string>();

  constructor(
    private readonly nodes: RedisNodes,
    private readonly keys: Keys,
  ) {}

  /** The policy clause for `[KNN …]` (" HYBRID_POLICY BATCHES"), or "" for the engine's own choice. */
  hint(userId: string, filter: MemoryFilter): "" | " HYBRID_POLICY BATCHES" {
    const { namespace, session_id, agent_id, memory_type, pinned, created_after, created_before, tags, include_deleted } = filter;
    const other = [session_id, agent_id, memory_type, pinned, created_after, created_before].some((v) => v !== undefined);
    if (other || tags?.length || include_deleted) return "";
    const now = Date.now();
    const indexSize = this.indexSize;
    if (!indexSize || now - indexSize.at > FRESH_MS) this.background("\u0001index", () => this.loadIndexSize(userId, now));
    const key = namespace === undefined ? userId : `${userId}\u0000${namespace}`;
    const count = this.counts.get(key);
    if (!count || now - count.at > FRESH_MS) this.background(key, () => this.loadCount(key, userId, namespace, now));
    if (!count || !indexSize?.value) return "";
    return count.value / indexSize.value >= MIN_SHARE ? " HYBRID_POLICY BATCHES" : "";
  }

  /** Forgets everything (the index was rebuilt). */
  reset(): void {
    this.indexSize = undefined;
    this.counts.clear();
  }

  private background(key: string, load: () => Promise<void>): void {
    if (this.refreshing.has(key)) return;
    this.refreshing.add(key);
    load()
      .catch(() => {}) // an estimate that cannot be read leaves the engine's choice in place
      .finally(() => this.refreshing.delete(key));
  }

  /**
   * Documents in the whole index (a count query: on a cluster the coordinator adds up the masters'
   * counts) over the masters. Not FT.INFO's num_docs: on a cluster the coordinator adds up every
   * node's, replicas included (measured: 72,000 for 36,000 documents on 3 masters with 1 replica
   * each), which made a wallet's share of its master read 6 times too small and kept the slow policy.
   * One master's own count cannot be asked for (the shard-local commands are internal), so the mean
   * stands for it: wallets spread evenly over the masters.
   */
  private async loadIndexSize(userId: string, now: number): Promise<void> {
    const [reply, masters] = await Promise.all([
      this.nodes.at(this.keys.slot(userId)).sendCommand(["FT.SEARCH", this.keys.index, "*", "LIMIT", "0", "0", "DIALECT", "2"]) as Promise<unknown[]>,
      this.nodes.masters(),
    ]);
    this.indexSize = { value: Number(reply[0] ?? 0) / Math.max(1, masters.length), at: now };
  }

  /**
   * One count (`LIMIT 0 0`: the number of matches, no documents): about 14 ms for a wallet of 100k
   * memories, where a GROUPBY of the wallet's namespaces took about 80 ms and, past RediSearch's
   * query timeout (500 ms by default, on a busy server), answered without its groups, which read as
   * an empty wallet and kept the slow policy for a minute (measured: KNN 1 ms with BATCHES, 30–60 ms
   * without, at 100k memories in one wallet).
   */
  private async loadCount(key: string, userId: string, namespace: string | undefined, now: number): Promise<void> {
    const query = namespace === undefined ? tagAnyOf("user_id", [userId]) : `${tagAnyOf("user_id", [userId])} ${tagAnyOf("namespace", [namespace])}`;
    const reply = (await this.nodes.at(this.keys.slot(userId)).sendCommand(["FT.SEARCH", this.keys.index, query, "LIMIT", "0", "0", "DIALECT", "2"])) as unknown[];
    if (this.counts.size >= MAX_COUNTS) this.counts.clear();
    this.counts.set(key, { value: Number(reply[0] ?? 0), at: now });
  }
}
