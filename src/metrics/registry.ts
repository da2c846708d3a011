import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { vectorIndexCounters } from "../store/sqlite/vector-index";

/**
 * The service's Prometheus metrics, one registry per process (GET /metrics; with WORKERS > 1 the
 * supervisor sums the workers', src/metrics/cluster.ts). Each part of the service records into the
 * metric it owns here, as it logs through src/log.ts; docs/monitoring.md lists them. Labels are
 * bounded sets (route templates, stages, outcomes): never a wallet, an id or a raw path.
 */
export const registry = new Registry();

/** Latency buckets in seconds, from a cached keyword search (~0.1 ms) to a long ingest. */
const LATENCY = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: "engram_http_requests_total",
  help: "HTTP requests answered, by method, route template (unmatched for unknown paths) and status",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: "engram_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, by method and route template",
  labelNames: ["method", "route"] as const,
  buckets: LATENCY,
  registers: [registry],
});

export const recallStageDuration = new Histogram({
  name: "engram_recall_stage_duration_seconds",
  help: "Recall's stages (embed, keyword_search, vector_search, scoring, records); embed overlaps keyword_search, so they do not add up to the request",
  labelNames: ["stage"] as const,
  buckets: LATENCY,
  registers: [registry],
});

export const embedBatchTexts = new Histogram({
  name: "engram_embed_batch_texts",
  help: "Texts per batch sent to the embedding worker (concurrent calls are batched, at most 64 texts)",
  buckets: [1, 2, 4, 8, 16, 32, 64],
  registers: [registry],
});

export const freeTierCalls = new Counter({
  name: "engram_free_tier_calls_total",
  help: "Free calls of paid endpoints: used, and returned because the call failed",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const x402Payments = new Counter({
  name: "engram_x402_payments_total",
  help: "x402 payments past verification: settled, settlement_failed (nothing stored) or settled_not_stored (settled, writes failed)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const paymentRefusals = new Counter({
  name: "engram_payment_refusals_total",
  help: "402 answers of paid endpoints past the free tier, by reason (payment_required, payments_disabled, invalid_payment, payer_mismatch, nonce_already_used, facilitator_unavailable, facilitator_rejected, ...)",
  labelNames: ["reason"] as const,
  registers: [registry],
});

export const redisRoundTrips = new Counter({
  name: "engram_redis_round_trips_total",
  help: "Round trips to Redis: single commands, pipelines and MULTI/EXEC transactions (one each)",
  labelNames: ["kind"] as const,
  registers: [registry],
});

export const redisErrors = new Counter({
  name: "engram_redis_errors_total",
  help: "Redis errors: round trips that failed (kind=command) and client connection errors (kind=connection)",
  labelNames: ["kind"] as const,
  registers: [registry],
});

/** A counter whose value is a process-wide count kept elsewhere, read at each scrape. */
function mirroredCounter(name: string, help: string, read: () => number): Counter {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

mirroredCounter("engram_scan_thread_offloads_total", "Vector searches of large wallets run on the scan thread", () => vectorIndexCounters.offloadedScans);
mirroredCounter("engram_vector_cell_searches_total", "Vector searches that read a large wallet's nearest coarse cells only", () => vectorIndexCounters.cellSearches);
mirroredCounter(
  "engram_scan_thread_discards_total",
  "Scan thread answers dropped because the wallet changed meanwhile (the search ran again on the main thread)",
  () => vectorIndexCounters.offloadDiscards,
);

new Gauge({
  name: "engram_process_resident_memory_bytes",
  help: "Resident memory of this process (RSS)",
  registers: [registry],
  collect() {
    this.set(process.memoryUsage.rss());
  },
});

mirroredCounter("engram_process_cpu_seconds_total", "User and system CPU time of this process, every thread", () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
});
