import type { Config } from "../config";
import type { Extractor } from "../domain/ingest/extractor";
import type { ClusterSummarizer } from "../domain/context";
import { OfflineExtractor } from "../domain/ingest/offline-extractor";
import { LlmExtractor } from "../domain/ingest/llm-extractor";
import { LlmReplacementJudge } from "../domain/ingest/llm-replacement";
import { ChatClient } from "./chat-client";
import { summarizeCluster } from "./summarizer";
import { log } from "../log";

/** A dead endpoint costs one timeout per ingest (the extractor then falls back offline). */
const EXTRACTION_TIMEOUT_MS = 20_000;

/**
 * The extractor and context summarizer the configuration asks for: the offline extractor and no
 * summarizer by default; an OpenAI-compatible LLM for both, and for auto_relate's replacement check,
 * when LLM_BASE_URL is set (the offline extractor stays as its fallback).
 */
export function configuredLanguageTools(config: Pick<Config, "LLM_BASE_URL" | "LLM_API_KEY" | "LLM_MODEL">): {
  extractor: Extractor;
  summarizer: ClusterSummarizer | null;
  replacementJudge: LlmReplacementJudge | null;
} {
  const offline = new OfflineExtractor();
  if (!config.LLM_BASE_URL || !config.LLM_MODEL) return { extractor: offline, summarizer: null, replacementJudge: null };
  const client = new ChatClient({ baseUrl: config.LLM_BASE_URL, apiKey: config.LLM_API_KEY, model: config.LLM_MODEL, timeoutMs: EXTRACTION_TIMEOUT_MS });
  return {
    extractor: new LlmExtractor({ client, model: config.LLM_MODEL, fallback: offline, log: log.warn }),
    summarizer: (contents) => summarizeCluster(client, contents),
    replacementJudge: new LlmReplacementJudge(client, log.warn),
  };
}
