import { t, type Static } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { LOG_FORMATS, LOG_LEVELS } from "./log";
import { DEFAULT_EMBEDDING_MODEL } from "./embed/model-ids";
import type { MemoryStore } from "./domain/store-port";
import { OPENAI_PREFIX, openaiModelName } from "./embed/openai-spec";

/** A USDC amount with at most 6 decimals (USDC's precision), e.g. `0.005`. */
const UsdcPrice = t.String({ pattern: "^\\d{1,9}(\\.\\d{1,6})?$" });

/**
 * Every environment variable the service reads, with its rule. Validated once at
 * start-up so a bad value stops the process with a message naming the variable,
 * instead of failing on the first request.
 */
const EnvSchema = t.Object({
  PORT: t.Integer({ minimum: 0, maximum: 65535, default: 8787 }),
  HOST: t.String({ minLength: 1, default: "0.0.0.0" }),
  DATA_DIR: t.String({ minLength: 1, default: "./data" }),
  STORE: t.Union([t.Literal("sqlite"), t.Literal("redis")], { default: "sqlite" }),
  /** One server, or a cluster's seed nodes separated by commas (src/store/redis/client.ts). */
  REDIS_URL: t.String({ pattern: "^rediss?://[^,\\s]+(,\\s*rediss?://[^,\\s]+)*$", default: "redis://127.0.0.1:6379" }),
  /** Replicas a Redis write must reach before it is acknowledged (WAIT); 0 = acknowledged once the master has it. */
  REDIS_WAIT_REPLICAS: t.Integer({ minimum: 0, maximum: 16, default: 0 }),
  /** How long a Redis command may wait for its reply before the request answers 503 store_unavailable (src/store/redis/round-trips.ts). */
  REDIS_COMMAND_TIMEOUT_MS: t.Integer({ minimum: 100, maximum: 600_000, default: 2000 }),
  JWT_SECRET: t.Optional(t.String({ minLength: 32 })),
  EMBEDDING_MODEL: t.String({ minLength: 1, default: DEFAULT_EMBEDDING_MODEL }),
  /** The OpenAI-compatible server of an `openai:<model>` EMBEDDING_MODEL ("/embeddings" is appended). */
  EMBEDDING_BASE_URL: t.Optional(t.String({ pattern: "^https?://[^\\s]+$" })),
  /** Sent as `Authorization: Bearer …` to EMBEDDING_BASE_URL when set. */
  EMBEDDING_API_KEY: t.Optional(t.String({ minLength: 1 })),
  MODEL_CACHE_DIR: t.String({ minLength: 1, default: "./.cache/models" }),
  FREE_TIER_CALLS: t.Integer({ minimum: 0, default: 100 }),
  AUTH_MESSAGE_PREFIX: t.String({ minLength: 1, default: "service-auth" }),
  DEDUP_SIMILARITY: t.Number({ minimum: 0, maximum: 1, default: 0.95 }),
  PAYMENTS: t.Union([t.Literal("on"), t.Literal("off")], { default: "off" }),
  X402_PAY_TO: t.Optional(t.String({ pattern: "^0x[0-9a-fA-F]{40}$" })),
  X402_NETWORK: t.Union([t.Literal("base"), t.Literal("base-sepolia")], { default: "base" }),
  X402_FACILITATOR_URL: t.Optional(t.String({ pattern: "^https?://[^\\s]+$" })),
  // Per-route price overrides in USDC (docs/payments.md); unset means the spec's price table.
  X402_PRICE_STORE: t.Optional(UsdcPrice),
  X402_PRICE_STORE_BATCH: t.Optional(UsdcPrice),
  X402_PRICE_RECALL: t.Optional(UsdcPrice),
  X402_PRICE_CONTEXT: t.Optional(UsdcPrice),
  X402_PRICE_INGEST: t.Optional(UsdcPrice),
  X402_PRICE_UPDATE_BATCH: t.Optional(UsdcPrice),
  X402_PRICE_CONSOLIDATE: t.Optional(UsdcPrice),
  /** Requests per minute per wallet on /v1 (429 RATE_LIMITED with Retry-After beyond it); 0 = no limit. */
  RATE_LIMIT_PER_MINUTE: t.Integer({ minimum: 0, default: 0 }),
  LOG_LEVEL: t.Union(LOG_LEVELS.map((level) => t.Literal(level)), { default: "info" }),
  /** text (as written) or json (one JSON object per line, every request at info: src/log.ts, src/http/request-log.ts). */
  LOG_FORMAT: t.Union(LOG_FORMATS.map((format) => t.Literal(format)), { default: "text" }),
  /** Bearer token GET /metrics requires; unset, /metrics answers loopback clients only (src/http/routes/metrics.ts). */
  METRICS_TOKEN: t.Optional(t.String({ minLength: 16 })),
  /** Service processes sharing the port (src/cluster.ts); 1 = this process serves. */
  WORKERS: t.Integer({ minimum: 1, maximum: 64, default: 1 }),
  /** MiB the embedded engine's per-wallet cache may hold in each process (least recently used wallets are dropped beyond it). */
  CACHE_MAX_MB: t.Integer({ minimum: 1, default: 1024 }),
  LLM_BASE_URL: t.Optional(t.String({ pattern: "^https?://" })),
  LLM_API_KEY: t.Optional(t.String()),
  LLM_MODEL: t.Optional(t.String({ minLength: 1 })),
});
/** The environment's settings, validated; JWT_SECRET stays unset unless given (see withSessionSecret). */
export type Settings = Static<typeof EnvSchema>;
type Env = Settings;

/** The settings with the session key settled (withSessionSecret): what the service runs with. */
export type Config = Settings & { JWT_SECRET: string };

export class ConfigError extends Error {}

const NUMERIC = new Set(["PORT", "FREE_TIER_CALLS", "DEDUP_SIMILARITY", "RATE_LIMIT_PER_MINUTE", "WORKERS", "CACHE_MAX_MB", "REDIS_WAIT_REPLICAS", "REDIS_COMMAND_TIMEOUT_MS"]);

/** Reads the variables this service knows from `source`, converting numbers; empty strings count as unset. */
function pickKnown(source: Record<string, string | undefined>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const raw = source[key];
    if (raw === undefined || raw === "") continue;
    picked[key] = NUMERIC.has(key) && raw.trim() !== "" && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  }
  return picked;
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Settings {
  const env = Value.Default(EnvSchema, pickKnown(source)) as Env;
  const problems = [...Value.Errors(EnvSchema, env)].map((e) => `${e.path.slice(1)}=${JSON.stringify(e.value)}: ${e.message}`);
  if (env.LLM_BASE_URL && !env.LLM_MODEL) problems.push("LLM_MODEL: required when LLM_BASE_URL is set");
  problems.push(...embeddingProblems(env));
  problems.push(...paymentProblems(env));
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  const dataDir = resolve(env.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  return { ...env, DATA_DIR: dataDir, MODEL_CACHE_DIR: resolve(env.MODEL_CACHE_DIR) };
}

/** An `openai:<model>` EMBEDDING_MODEL names a model and needs the server that serves it. */
function embeddingProblems(env: Env): string[] {
  const model = openaiModelName(env.EMBEDDING_MODEL);
  if (model === undefined) return [];
  const problems: string[] = [];
  if (model === "") problems.push(`EMBEDDING_MODEL=${JSON.stringify(env.EMBEDDING_MODEL)}: name the model after "${OPENAI_PREFIX}", e.g. ${OPENAI_PREFIX}nomic-embed-text`);
  if (!env.EMBEDDING_BASE_URL) {
    problems.push(`EMBEDDING_BASE_URL: required when EMBEDDING_MODEL is ${OPENAI_PREFIX}<model> (the OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1)`);
  }
  return problems;
}

/** PAYMENTS=on needs somewhere to send the money and a facilitator to verify and settle it. */
function paymentProblems(env: Env): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith("X402_PRICE_") && typeof value === "string" && Number(value) <= 0) problems.push(`${key}=${JSON.stringify(value)}: must be more than 0`);
  }
  if (env.PAYMENTS !== "on") return problems;
  if (!env.X402_PAY_TO) problems.push("X402_PAY_TO: required when PAYMENTS=on (the address that receives USDC)");
  else if (/^0x0{40}$/.test(env.X402_PAY_TO)) problems.push("X402_PAY_TO: the zero address cannot receive payments");
  if (!env.X402_FACILITATOR_URL) problems.push("X402_FACILITATOR_URL: required when PAYMENTS=on (the x402 facilitator that verifies and settles payments)");
  return problems;
}

/** Where versions before the store kept the session key held their generated one. */
export const LEGACY_SECRET_FILE = "jwt-secret";

/**
 * The settings with the session key settled: JWT_SECRET when set, else the one kept in the store
 * (MemoryStore.sessionSecret), so every process and replica on one store accepts the others'
 * tokens without configuration. A new store adopts the key an earlier version generated into
 * DATA_DIR/jwt-secret, if there is one (its sessions stay valid), else a random one.
 */
export async function withSessionSecret(settings: Settings, store: Pick<MemoryStore, "sessionSecret">): Promise<Config> {
  if (settings.JWT_SECRET) return { ...settings, JWT_SECRET: settings.JWT_SECRET };
  const file = join(settings.DATA_DIR, LEGACY_SECRET_FILE);
  const legacy = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  const candidate = legacy.length >= 32 ? legacy : randomBytes(32).toString("hex");
  return { ...settings, JWT_SECRET: await store.sessionSecret(candidate) };
}
