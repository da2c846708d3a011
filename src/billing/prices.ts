import type { Config } from "../config";

/** The spec's price table, in USDC. Every other endpoint is free. */
export const PRICES_USDC = {
  "POST /v1/store": "0.005",
  "POST /v1/store/batch": "0.04",
  "POST /v1/recall": "0.005",
  "POST /v1/context": "0.01",
  "POST /v1/ingest": "0.01",
  "PATCH /v1/memories/batch": "0.005",
  // Not in the spec: MemoClaw's published price for consolidation.
  "POST /v1/memories/consolidate": "0.01",
} as const;
export type PaidRoute = keyof typeof PRICES_USDC;
export const PAID_ROUTES = Object.keys(PRICES_USDC) as PaidRoute[];

/** The variable that overrides each route's price (src/config.ts validates them). */
export const PRICE_VARIABLES = {
  "POST /v1/store": "X402_PRICE_STORE",
  "POST /v1/store/batch": "X402_PRICE_STORE_BATCH",
  "POST /v1/recall": "X402_PRICE_RECALL",
  "POST /v1/context": "X402_PRICE_CONTEXT",
  "POST /v1/ingest": "X402_PRICE_INGEST",
  "PATCH /v1/memories/batch": "X402_PRICE_UPDATE_BATCH",
  "POST /v1/memories/consolidate": "X402_PRICE_CONSOLIDATE",
} as const satisfies Record<PaidRoute, keyof Config>;

/** Each paid route's price in USDC (decimal string): the configured override, else the spec's. */
export function priceTable(config: Pick<Config, (typeof PRICE_VARIABLES)[PaidRoute]>): Record<PaidRoute, string> {
  return Object.fromEntries(PAID_ROUTES.map((route) => [route, config[PRICE_VARIABLES[route]] ?? PRICES_USDC[route]])) as Record<PaidRoute, string>;
}

/** USDC has 6 decimals: "0.005" → 5000 atomic units. */
export function atomicUsdc(price: string): string {
  const [whole = "0", fraction = ""] = price.split(".");
  return String(BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6)));
}
