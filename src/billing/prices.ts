/** The spec's price table, in USDC. Every other endpoint is free. */
export const PRICES_USDC = {
  "POST /v1/store": "0.005",
  "POST /v1/store/batch": "0.04",
  "POST /v1/recall": "0.005",
  "POST /v1/context": "0.01",
  "POST /v1/ingest": "0.01",
  "PATCH /v1/memories/batch": "0.005",
} as const;
export type PaidRoute = keyof typeof PRICES_USDC;

/** USDC has 6 decimals: "0.005" → 5000 atomic units. */
export function atomicUsdc(price: string): string {
  const [whole = "0", fraction = ""] = price.split(".");
  return String(BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6)));
}
