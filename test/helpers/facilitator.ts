import type { Server } from "bun";
import { getAddress, isAddressEqual, keccak256, toHex, verifyTypedData, type Hex } from "viem";

/**
 * An x402 facilitator on loopback, speaking the HTTP API @x402/core's HTTPFacilitatorClient
 * calls (GET /supported, POST /verify, POST /settle) for the `exact` scheme on Base and Base
 * Sepolia, x402 v1 and v2. It checks what a real one checks before moving money: the
 * EIP-712 `TransferWithAuthorization` signature (viem's verifyTypedData, against its own
 * USDC domain table: name, version, chainId, verifyingContract), the asset, the exact
 * amount, the recipient, the validity window and nonce reuse. Settling records the transfer
 * instead of sending a transaction.
 */

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** Circle's USDC per network, with the EIP-712 domain its contract uses. */
const USDC: Record<number, { address: Hex; name: string; version: string }> = {
  8453: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", name: "USD Coin", version: "2" },
  84532: { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", name: "USDC", version: "2" },
};
const V1_CHAINS: Record<string, number> = { base: 8453, "base-sepolia": 84532 };
const chainOf = (network: string): number | undefined => V1_CHAINS[network] ?? (/^eip155:(\d+)$/.test(network) ? Number(network.slice(7)) : undefined);

export interface Settlement {
  network: string;
  payer: string;
  to: string;
  value: string;
  nonce: string;
  transaction: string;
}

type Verdict = { ok: true; payer: string; authorization: Authorization; network: string } | { ok: false; reason: string; message: string; payer?: string };
interface Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

export class TestFacilitator {
  readonly settlements: Settlement[] = [];
  readonly calls = { supported: 0, verify: 0, settle: 0 };
  /** when set, /settle refuses every payment with this reason (e.g. insufficient funds on chain) */
  settleFailure: string | null = null;
  /** when set, /settle answers 503 with no settle response: the outcome is unknown to the caller */
  settleOutage = false;
  private readonly usedNonces = new Set<string>();
  private server: Server<undefined> | null = null;
  private port = 0;

  static async start(): Promise<TestFacilitator> {
    const facilitator = new TestFacilitator();
    facilitator.listen();
    return facilitator;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again) on the same port. */
  listen(): void {
    this.server = Bun.serve({ port: this.port, hostname: "127.0.0.1", fetch: (req) => this.handle(req) });
    this.port = this.server.port!;
  }

  /** Goes away: connections are refused until `listen()`. */
  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = null;
  }

  settledBy(payer: string): Settlement[] {
    return this.settlements.filter((s) => isAddressEqual(s.payer as Hex, payer as Hex));
  }

  private async handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/supported") {
      this.calls.supported++;
      return Response.json({
        kinds: [
          { x402Version: 2, scheme: "exact", network: "eip155:8453" },
          { x402Version: 2, scheme: "exact", network: "eip155:84532" },
          { x402Version: 1, scheme: "exact", network: "base" },
          { x402Version: 1, scheme: "exact", network: "base-sepolia" },
        ],
        extensions: [],
        signers: { "eip155:*": ["0x000000000000000000000000000000000000fac1"] },
      });
    }
    if (req.method !== "POST" || (path !== "/verify" && path !== "/settle")) return new Response("not found", { status: 404 });
    const body = (await req.json()) as { x402Version: number; paymentPayload: any; paymentRequirements: any };
    const verdict = await this.check(body);
    if (path === "/verify") {
      this.calls.verify++;
      return Response.json(verdict.ok ? { isValid: true, payer: verdict.payer } : { isValid: false, invalidReason: verdict.reason, invalidMessage: verdict.message, payer: verdict.payer });
    }
    this.calls.settle++;
    if (this.settleOutage) return new Response("upstream RPC unavailable", { status: 503 });
    const network = String(body.paymentRequirements?.network ?? "");
    if (!verdict.ok) return Response.json({ success: false, errorReason: verdict.reason, errorMessage: verdict.message, payer: verdict.payer, transaction: "", network });
    if (this.settleFailure) return Response.json({ success: false, errorReason: this.settleFailure, errorMessage: "transfer reverted", payer: verdict.payer, transaction: "", network });
    const { authorization } = verdict;
    this.usedNonces.add(this.nonceKey(verdict.network, authorization));
    const transaction = keccak256(toHex(`${authorization.from}:${authorization.nonce}:${Date.now()}`));
    this.settlements.push({ network, payer: authorization.from, to: authorization.to, value: authorization.value, nonce: authorization.nonce, transaction });
    return Response.json({ success: true, payer: verdict.payer, transaction, network });
  }

  private nonceKey(network: string, a: Authorization): string {
    return `${chainOf(network)}:${a.from.toLowerCase()}:${a.nonce.toLowerCase()}`;
  }

  private async check(body: { x402Version: number; paymentPayload: any; paymentRequirements: any }): Promise<Verdict> {
    const { x402Version, paymentPayload: payload, paymentRequirements: req } = body;
    const authorization = payload?.payload?.authorization as Authorization | undefined;
    const signature = payload?.payload?.signature as Hex | undefined;
    if (!authorization || !signature) return { ok: false, reason: "invalid_payload", message: "no EIP-3009 authorization" };
    const payer = authorization.from;
    const fail = (reason: string, message: string): Verdict => ({ ok: false, reason, message, payer });
    if (payload.x402Version !== x402Version || (x402Version !== 1 && x402Version !== 2)) return fail("invalid_x402_version", `version ${x402Version}`);
    const scheme = x402Version === 2 ? payload.accepted?.scheme : payload.scheme;
    if (scheme !== "exact" || req?.scheme !== "exact") return fail("invalid_exact_evm_scheme", "only exact");
    const network = String(req.network);
    const payloadNetwork = x402Version === 2 ? payload.accepted?.network : payload.network;
    const chainId = chainOf(network);
    const usdc = chainId === undefined ? undefined : USDC[chainId];
    if (!usdc || payloadNetwork !== network) return fail("invalid_exact_evm_network_mismatch", `network ${network}`);
    if (!isAddressEqual(req.asset, usdc.address)) return fail("invalid_exact_evm_asset_mismatch", `asset ${req.asset} is not USDC on ${network}`);
    const amount = BigInt(x402Version === 2 ? req.amount : req.maxAmountRequired);
    const valid = await verifyTypedData({
      address: getAddress(authorization.from),
      domain: { name: usdc.name, version: usdc.version, chainId, verifyingContract: usdc.address },
      types: TRANSFER_WITH_AUTHORIZATION,
      primaryType: "TransferWithAuthorization",
      message: {
        from: getAddress(authorization.from),
        to: getAddress(authorization.to),
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce,
      },
      signature,
    }).catch(() => false);
    if (!valid) return fail("invalid_exact_evm_signature", "the signature does not match the authorization");
    if (!isAddressEqual(authorization.to, req.payTo)) return fail("invalid_exact_evm_recipient_mismatch", `pays ${authorization.to}, not ${req.payTo}`);
    const now = Math.floor(Date.now() / 1000);
    if (BigInt(authorization.validBefore) < BigInt(now + 6)) return fail("invalid_exact_evm_payload_authorization_valid_before", "authorization expired");
    if (BigInt(authorization.validAfter) > BigInt(now)) return fail("invalid_exact_evm_payload_authorization_valid_after", "authorization not yet valid");
    if (BigInt(authorization.value) !== amount) return fail("invalid_exact_evm_authorization_value", `authorizes ${authorization.value}, requires ${amount}`);
    if (this.usedNonces.has(this.nonceKey(network, authorization))) return fail("invalid_exact_evm_nonce_already_used", "nonce already used");
    return { ok: true, payer, authorization, network };
  }
}
