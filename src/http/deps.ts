import type { Config } from "../config";
import type { MemoryStore } from "../domain/store-port";
import type { Clock, FactReader, TextEmbedder } from "../domain/ports";
import { Memories } from "../domain/memories";
import { Recall } from "../domain/recall";
import { Relations } from "../domain/relations";
import { ContextAssembler } from "../domain/context";
import { Ingest } from "../domain/ingest/ingest";
import { AutoRelate } from "../domain/auto-relate";
import { EncoderReplacementJudge } from "../domain/ingest/encoder-replacement";
import { configuredLanguageTools } from "../llm/configured";
import { log } from "../log";
import { SessionTokens } from "../auth/session-token";
import { Authenticator } from "../auth/authenticate";
import { FreeTier } from "../billing/free-tier";
import { Paywall } from "../billing/paywall";
import { StagingStore } from "../billing/staged-writes";
import { X402Server } from "../billing/x402-server";
import { recallTimer } from "../metrics/recall-timer";

/** Everything the routes use, built once from the configuration and the two I/O parts. */
export interface AppDeps {
  config: Config;
  /** the engine behind every service's staging wrapper: what operational views (the metrics) read */
  engine: MemoryStore;
  store: MemoryStore;
  embedder: TextEmbedder;
  clock: Clock;
  tokens: SessionTokens;
  /** verifies request credentials, remembering verified ones (src/auth/authenticate.ts) */
  authenticator: Authenticator;
  memories: Memories;
  recall: Recall;
  relations: Relations;
  context: ContextAssembler;
  ingest: Ingest;
  autoRelate: AutoRelate;
  freeTier: FreeTier;
  paywall: Paywall;
}

/** `embedder` also reads fact signatures when it can (both embedders do, on their fact thread: see FactReader). */
export function buildDeps(config: Config, engine: MemoryStore, embedder: TextEmbedder & Partial<FactReader>, clock: Clock = Date.now): AppDeps {
  // Every service sees the engine through the staging wrapper: paid calls hold their writes back until
  // their payment settles (src/billing/staged-writes.ts); it is transparent otherwise.
  const staging = new StagingStore(engine);
  const store: MemoryStore = staging;
  const freeTier = new FreeTier(store, config.FREE_TIER_CALLS);
  const recall = new Recall(store, embedder, clock, recallTimer);
  const { extractor, summarizer, replacementJudge } = configuredLanguageTools(config);
  const memories = new Memories(store, embedder, clock, config.DEDUP_SIMILARITY, embedder.factSignatures ? (embedder as FactReader) : undefined);
  const relations = new Relations(store, clock);
  const autoRelate = new AutoRelate(store, relations, clock, replacementJudge ?? new EncoderReplacementJudge(embedder, log.warn));
  const tokens = new SessionTokens(config.JWT_SECRET);
  return {
    config,
    engine,
    store,
    embedder,
    clock,
    tokens,
    authenticator: new Authenticator(tokens, config.AUTH_MESSAGE_PREFIX),
    memories,
    recall,
    context: new ContextAssembler(store, embedder, recall, clock, summarizer, log.warn),
    relations,
    ingest: new Ingest(extractor, memories, autoRelate),
    autoRelate,
    freeTier,
    paywall: new Paywall(freeTier, staging, X402Server.fromConfig(config)),
  };
}
