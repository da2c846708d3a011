import type { Config } from "../config";
import type { MemoryStore } from "../store/port";
import type { Clock, TextEmbedder } from "../domain/ports";
import { Memories } from "../domain/memories";
import { Recall } from "../domain/recall";
import { Relations } from "../domain/relations";
import { ContextAssembler, type ClusterSummarizer } from "../domain/context";
import { SessionTokens } from "../auth/session-token";
import { FreeTier } from "../billing/free-tier";
import { Paywall } from "../billing/paywall";

/** Everything the routes use, built once from the configuration and the two I/O parts. */
export interface AppDeps {
  config: Config;
  store: MemoryStore;
  embedder: TextEmbedder;
  clock: Clock;
  tokens: SessionTokens;
  memories: Memories;
  recall: Recall;
  relations: Relations;
  context: ContextAssembler;
  freeTier: FreeTier;
  paywall: Paywall;
}

export function buildDeps(config: Config, store: MemoryStore, embedder: TextEmbedder, clock: Clock = Date.now): AppDeps {
  const freeTier = new FreeTier(store, config.FREE_TIER_CALLS);
  const recall = new Recall(store, embedder, clock);
  const summarizer: ClusterSummarizer | null = null;
  return {
    config,
    store,
    embedder,
    clock,
    tokens: new SessionTokens(config.JWT_SECRET),
    memories: new Memories(store, embedder, clock, config.DEDUP_SIMILARITY),
    recall,
    context: new ContextAssembler(store, embedder, recall, clock, summarizer),
    relations: new Relations(store, clock),
    freeTier,
    paywall: new Paywall(freeTier, { network: config.X402_NETWORK, payTo: config.X402_PAY_TO }),
  };
}
