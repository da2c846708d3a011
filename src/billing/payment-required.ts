import { ReplyError } from "../http/errors";
import { atomicUsdc, PRICES_USDC, type PaidRoute } from "./prices";

/** USDC contract per network (Circle's canonical deployments). */
const USDC: Record<string, string> = {
  base: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  "base-sepolia": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
};

export interface PaymentSettings {
  network: "base" | "base-sepolia";
  payTo: string | undefined;
}

/** The x402 v1 402 answer for a paid route: what to pay, to whom, in which asset. */
export function paymentRequired(route: PaidRoute, resource: string, settings: PaymentSettings): ReplyError {
  const accepts = settings.payTo
    ? [
        {
          scheme: "exact",
          network: settings.network,
          maxAmountRequired: atomicUsdc(PRICES_USDC[route]),
          resource,
          description: `${route} ($${PRICES_USDC[route]} USDC)`,
          mimeType: "application/json",
          payTo: settings.payTo,
          maxTimeoutSeconds: 60,
          asset: USDC[settings.network]!,
          extra: { name: "USD Coin", version: "2" },
        },
      ]
    : [];
  const error = settings.payTo ? "free tier exhausted: payment required (x402)" : "free tier exhausted and this server accepts no payments";
  return new ReplyError({ status: 402, body: { x402Version: 1, error, accepts, message: error } });
}
