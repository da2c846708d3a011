import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { Client, sqliteEngine, startService, TestWallet, type Fetch, type TestService } from "./helpers/harness";
import { TestFacilitator } from "./helpers/facilitator";
import { ConfigError, loadConfig } from "../src/config";
import { scrape, value } from "./helpers/scrape";
import { memoclawPythonSdkError, memoclawTsSdkError, pythonX402V1Problems } from "./helpers/payment-readers";

/**
 * Paying per call with x402 after the free tier, end to end: the official client
 * (@x402/fetch with a local viem account) against the service, which verifies and settles
 * through a real facilitator on loopback (test/helpers/facilitator.ts).
 */

const PAY_TO = "0x2222222222222222222222222222222222222222";
const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const FREE_CALLS = 2;

let facilitator: TestFacilitator;
let service: TestService;

beforeAll(async () => {
  facilitator = await TestFacilitator.start();
  service = await startService(sqliteEngine, {
    FREE_TIER_CALLS: String(FREE_CALLS),
    PAYMENTS: "on",
    X402_NETWORK: "base-sepolia",
    X402_PAY_TO: PAY_TO,
    X402_FACILITATOR_URL: facilitator.url,
  });
});

afterAll(async () => {
  await service?.stop();
  await facilitator?.stop();
});

/** A fetch that records every exchange (for the header transcript). */
function recording(log: { request: Record<string, string>; status: number; response: Record<string, string> }[]): Fetch {
  return async (input, init) => {
    const request = input instanceof Request ? new Request(input, init) : new Request(input.toString(), init);
    const response = await fetch(request);
    log.push({ request: Object.fromEntries(request.headers.entries()), status: response.status, response: Object.fromEntries(response.headers.entries()) });
    return response;
  };
}

/** The official x402 client for this wallet's account (v1 and v2, every EVM network). */
function x402For(wallet: TestWallet) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: wallet.account });
  return client;
}

/** A client whose fetch pays 402s with the official @x402/fetch wrapper. */
function payingClient(wallet = new TestWallet(), base: Fetch = fetch): Client {
  // the wrapper's parameter is typed as the global fetch (with Bun's `preconnect`), which it never uses
  return new Client(service, wallet, wrapFetchWithPayment(base as typeof fetch, x402For(wallet)));
}

const ns = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

/** Distinct enough never to be merged as near-duplicates of each other. */
const FREE_CONTENTS = ["The user prefers dark roast coffee every morning", "Deployments to production happen on Tuesdays after standup"];

/** Uses up the wallet's free calls (FREE_CALLS new memories in `namespace`), checking the header counts down. */
async function exhaustFreeTier(client: Client, namespace: string): Promise<void> {
  for (let i = 1; i <= FREE_CALLS; i++) {
    const res = await client.post("/v1/store", { content: FREE_CONTENTS[i - 1], namespace });
    expect(res.status).toBe(201);
    expect(res.body.deduplicated).toBe(false);
    expect(res.headers.get("x-payment-response")).toBeNull();
    expect(res.headers.get("payment-response")).toBeNull();
    expect(res.headers.get("x-free-tier-remaining")).toBe(String(FREE_CALLS - i));
  }
}

async function count(client: Client, namespace: string): Promise<number> {
  const res = await client.get(`/v1/memories?namespace=${namespace}`);
  expect(res.status).toBe(200);
  return res.body.total;
}

/** The 402 document (v2 header) the service answers for an unpaid call. */
async function requirementsFor(client: Client, path: string, body: unknown): Promise<PaymentRequired> {
  const res = await client.post(path, body);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required")!);
}

/**
 * A payment signed by `wallet` with the official client for `signed` requirements, claiming
 * (in `accepted`) the service's real ones: how a cheating or buggy client would look.
 */
async function craftPayment(wallet: TestWallet, document: PaymentRequired, change: (r: PaymentRequired["accepts"][number]) => void = () => {}): Promise<PaymentPayload> {
  const signed = structuredClone(document);
  change(signed.accepts[0]!);
  const payload = await x402For(wallet).createPaymentPayload(signed);
  return { ...payload, accepted: document.accepts[0]! };
}

const paid = (payload: PaymentPayload) => ({ "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) });

describe("402 answer after the free tier", () => {
  test("no payment: 402 with the v1 body and the v2 PAYMENT-REQUIRED header, for that endpoint's price", async () => {
    const client = new Client(service);
    const namespace = ns("unpaid");
    await exhaustFreeTier(client, namespace);
    const res = await client.post("/v1/store", { content: "not paid for", namespace });
    expect(res.status).toBe(402);
    expect(res.headers.get("x-free-tier-remaining")).toBe("0");
    expect(res.headers.get("cache-control")).toBe("no-store");

    const url = `${service.url}/v1/store`;
    // the x402 v1 document (error: the reason, a string) with the service's sentence beside it
    expect(res.body).toMatchObject({ x402Version: 1, error: "payment_required" });
    expect(res.body.message).toContain("free calls");
    expect(res.body.accepts).toEqual([
      {
        scheme: "exact",
        network: "base-sepolia",
        maxAmountRequired: "5000",
        resource: url,
        description: "Store one memory ($0.005 USDC)",
        mimeType: "application/json",
        payTo: PAY_TO,
        maxTimeoutSeconds: 300,
        asset: BASE_SEPOLIA_USDC,
        extra: { name: "USDC", version: "2" },
      },
    ]);

    const v2 = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    expect(v2).toMatchObject({ x402Version: 2, error: "payment_required", resource: { url, description: "Store one memory ($0.005 USDC)", mimeType: "application/json" } });
    expect(v2.accepts).toEqual([
      { scheme: "exact", network: "eip155:84532", amount: "5000", asset: BASE_SEPOLIA_USDC, payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: "USDC", version: "2" } },
    ]);
    expect(await count(client, namespace)).toBe(FREE_CALLS);
  });

  test("the 402 body as each client reads it: the x402 clients pay, the MemoClaw SDKs raise their payment error", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    await exhaustFreeTier(client, ns("readers"));
    const res = await client.post("/v1/recall", { query: "anything" });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ x402Version: 1, error: "payment_required", message: expect.stringContaining("free calls") });

    // the official Python x402 client before 2.0 reads only the body, into a pydantic model whose
    // fields are all required and whose `error` is a string: a nested error object fails it
    expect(pythonX402V1Problems(res.body)).toEqual([]);
    expect(pythonX402V1Problems({ ...res.body, error: { code: "PAYMENT_REQUIRED", message: res.body.message } })).toEqual(["/error"]);
    expect(pythonX402V1Problems({ accepts: res.body.accepts, error: "payment_required" })).toEqual(["/x402Version"]);
    // the official TypeScript client with no PAYMENT-REQUIRED header to read first: the v1 body
    const v1 = new x402HTTPClient(x402For(new TestWallet())).getPaymentRequiredResponse(() => null, res.body);
    expect(v1).toMatchObject({ x402Version: 1, error: "payment_required", accepts: [{ scheme: "exact", network: "base-sepolia", maxAmountRequired: "5000" }] });

    // the MemoClaw CLI and MCP server: x402HTTPClient.getPaymentRequiredResponse(header, body), sign, retry
    const http = new x402HTTPClient(x402For(wallet));
    const required = http.getPaymentRequiredResponse((name) => res.headers.get(name), res.body);
    expect(required.x402Version).toBe(2);
    const retried = await client.request("POST", "/v1/recall", { query: "anything" }, http.encodePaymentSignatureHeader(await http.createPaymentPayload(required)));
    expect(retried.status).toBe(200);
    expect(http.getPaymentSettleResponse((name) => retried.headers.get(name)).success).toBe(true);

    // the MemoClaw SDKs cannot pay (their payment hooks import entry points the x402 packages do not
    // have): a 402 ends their call. The TypeScript SDK throws PaymentRequiredError (by status) with
    // its fallback code; the Python SDK's APIError.from_response calls .get on `error`: the trade-off
    // docs/payments.md describes (with payments off, both read the nested error: the test below)
    expect(memoclawTsSdkError(res.status, res.body)).toEqual({ status: 402, code: "UNKNOWN_ERROR", message: "HTTP 402", details: undefined });
    expect(() => memoclawPythonSdkError(res.status, res.body)).toThrow("'str' object has no attribute 'get'");
  });

  test("each paid endpoint asks its own price", async () => {
    const client = new Client(service);
    await exhaustFreeTier(client, ns("prices"));
    const cases: [string, string, unknown, string][] = [
      ["POST", "/v1/store/batch", { memories: [{ content: "a" }] }, "40000"],
      ["POST", "/v1/recall", { query: "anything" }, "5000"],
      ["PATCH", "/v1/memories/batch", { updates: [{ id: crypto.randomUUID(), importance: 0.1 }] }, "5000"],
    ];
    for (const [method, path, body, amount] of cases) {
      const res = await client.request(method, path, body);
      expect(res.status).toBe(402);
      expect(res.body.accepts[0].maxAmountRequired).toBe(amount);
      expect(decodePaymentRequiredHeader(res.headers.get("payment-required")!).accepts[0]!.amount).toBe(amount);
    }
  });
});

describe("paying with the official client", () => {
  test("@x402/fetch exhausts the free tier, then pays (v2) and gets 201 with PAYMENT-RESPONSE; the settlement is recorded", async () => {
    const log: Parameters<typeof recording>[0] = [];
    const wallet = new TestWallet();
    const client = payingClient(wallet, recording(log));
    const namespace = ns("happy");
    await exhaustFreeTier(client, namespace);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(0);

    log.length = 0;
    const before = await scrape(service.url);
    const res = await client.post("/v1/store", { content: "paid for with x402", namespace });
    const exchange = log.slice();
    expect(res.status).toBe(201);
    const after = await scrape(service.url);
    const moved = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(moved("engram_payment_refusals_total", { reason: "payment_required" })).toBe(1); // the 402 the client paid
    expect(moved("engram_x402_payments_total", { outcome: "settled" })).toBe(1);
    expect(moved("engram_x402_payments_total", { outcome: "settlement_failed" })).toBe(0);
    expect(res.body.stored).toBe(true);
    expect(res.headers.get("x-free-tier-remaining")).toBe("0");
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: "eip155:84532", payer: wallet.address });

    const settled = facilitator.settledBy(wallet.address);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ to: PAY_TO, value: "5000", transaction: receipt.transaction });
    expect(await count(client, namespace)).toBe(FREE_CALLS + 1);

    // the exchange: unpaid request → 402 → paid request → 201
    expect(exchange.map((e) => e.status)).toEqual([402, 201]);
    console.log("\n--- one paid call (v2), as sent and answered ---\n" + JSON.stringify(exchange[1], null, 2));

    const status = await client.get("/v1/free-tier/status");
    expect(status.body).toEqual({ wallet: status.body.wallet, free_tier_remaining: 0, free_tier_total: FREE_CALLS, free_tier_used: FREE_CALLS });
  });

  test("a client that reads only the v1 body pays with X-PAYMENT and gets X-PAYMENT-RESPONSE", async () => {
    const log: Parameters<typeof recording>[0] = [];
    const record = recording(log);
    // hides the v2 header, as an older server would: the client falls back to the v1 JSON body
    const v1Only: Fetch = async (input, init) => {
      const res = await record(input, init);
      const headers = new Headers(res.headers);
      headers.delete("payment-required");
      return new Response(res.body, { status: res.status, headers });
    };
    const wallet = new TestWallet();
    const client = payingClient(wallet, v1Only);
    const namespace = ns("v1");
    await exhaustFreeTier(client, namespace);
    log.length = 0;
    const res = await client.post("/v1/recall", { query: "free call", namespace });
    expect(res.status).toBe(200);
    expect(log[1]!.request["x-payment"]).toBeString();
    expect(log[1]!.request["payment-signature"]).toBeUndefined();
    const receipt = decodePaymentResponseHeader(res.headers.get("x-payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: "base-sepolia", payer: wallet.address });
    expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
  });

  test("paid PATCH batch and recall: 200, each settled once", async () => {
    const wallet = new TestWallet();
    const client = payingClient(wallet);
    const namespace = ns("patch");
    await exhaustFreeTier(client, namespace);
    const { body } = await client.get(`/v1/memories?namespace=${namespace}`);
    const id = body.memories[0].id;
    // two updates of one memory in one paid batch: the second sees the first (staged) one
    const patched = await client.patch("/v1/memories/batch", { updates: [{ id, content: "The user switched to green tea" }, { id, importance: 0.9 }] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ updated: 2, errors: [], failed: 0 });
    expect((await client.get(`/v1/memories/${id}`)).body).toMatchObject({ content: "The user switched to green tea", importance: 0.9 });
    expect((await client.get(`/v1/memories/${id}/history`)).body.history).toEqual([]); // a batch update records no history
    const recalled = await client.post("/v1/recall", { query: "free call", namespace });
    expect(recalled.status).toBe(200);
    expect(facilitator.settledBy(wallet.address).map((s) => s.value)).toEqual(["5000", "5000"]);
  });
});

describe("payments that are refused", () => {
  test("underpayment: refused by the service when `accepted` is changed, by the facilitator when only the signed value is", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("under");
    await exhaustFreeTier(client, namespace);
    const body = { content: "cheap", namespace };
    const document = await requirementsFor(client, "/v1/store", body);

    const lowered = structuredClone(document);
    lowered.accepts[0]!.amount = "1";
    const honestLow = await x402For(wallet).createPaymentPayload(lowered);
    const mismatch = await client.request("POST", "/v1/store", body, paid(honestLow));
    expect(mismatch.status).toBe(402);
    expect(mismatch.body.error).toBe("payment_requirements_mismatch");

    const verifiesBefore = facilitator.calls.verify;
    const sneaky = await craftPayment(wallet, document, (r) => (r.amount = "1"));
    const refused = await client.request("POST", "/v1/store", body, paid(sneaky));
    expect(refused.status).toBe(402);
    expect(refused.body.error).toBe("invalid_exact_evm_authorization_value");
    expect(refused.body.accepts).toHaveLength(1);
    expect(facilitator.calls.verify).toBe(verifiesBefore + 1);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(0);
    expect(await count(client, namespace)).toBe(FREE_CALLS);
  });

  test("wrong payTo: the signed transfer goes elsewhere → 402, nothing stored", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("payto");
    await exhaustFreeTier(client, namespace);
    const body = { content: "pays someone else", namespace };
    const document = await requirementsFor(client, "/v1/store", body);
    const elsewhere = await craftPayment(wallet, document, (r) => (r.payTo = "0x3333333333333333333333333333333333333333"));
    const res = await client.request("POST", "/v1/store", body, paid(elsewhere));
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("invalid_exact_evm_recipient_mismatch");
    expect(await count(client, namespace)).toBe(FREE_CALLS);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(0);
  });

  test("expired authorization → 402", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("expired");
    await exhaustFreeTier(client, namespace);
    const body = { content: "too late", namespace };
    const document = await requirementsFor(client, "/v1/store", body);
    const stale = await craftPayment(wallet, document, (r) => (r.maxTimeoutSeconds = 1)); // validBefore = now + 1s
    const res = await client.request("POST", "/v1/store", body, paid(stale));
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("invalid_exact_evm_payload_authorization_valid_before");
    expect(await count(client, namespace)).toBe(FREE_CALLS);
  });

  test("the payer must be the authenticated wallet: another account's payment → 402 payer_mismatch, never verified", async () => {
    const wallet = new TestWallet();
    const sponsor = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("payer");
    await exhaustFreeTier(client, namespace);
    const body = { content: "someone else pays", namespace };
    const document = await requirementsFor(client, "/v1/store", body);
    const verifiesBefore = facilitator.calls.verify;
    const res = await client.request("POST", "/v1/store", body, paid(await x402For(sponsor).createPaymentPayload(document)));
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("payer_mismatch");
    expect(facilitator.calls.verify).toBe(verifiesBefore);
  });

  test("a malformed payment header → 402 invalid_payment", async () => {
    const client = new Client(service);
    const namespace = ns("garbage");
    await exhaustFreeTier(client, namespace);
    const res = await client.request("POST", "/v1/store", { content: "x", namespace }, { "X-PAYMENT": "bm90IGpzb24=" });
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("invalid_payment");
    expect(res.headers.get("payment-required")).toBeString();
  });
});

describe("one authorization pays for one call", () => {
  test("sequential replay of a paid request → 402, stored once, settled once", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("replay");
    await exhaustFreeTier(client, namespace);
    const body = { content: `replayed ${crypto.randomUUID()}`, namespace };
    const payment = paid(await x402For(wallet).createPaymentPayload(await requirementsFor(client, "/v1/store", body)));
    expect((await client.request("POST", "/v1/store", body, payment)).status).toBe(201);
    const again = await client.request("POST", "/v1/store/batch", { memories: [{ content: "other content", namespace }] }, payment);
    expect(again.status).toBe(402);
    const replay = await client.request("POST", "/v1/store", { content: "different content, same payment", namespace }, payment);
    expect(replay.status).toBe(402);
    expect(replay.body.error).toBe("nonce_already_used");
    expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
    expect(await count(client, namespace)).toBe(FREE_CALLS + 1);
  });

  test("concurrent replays: exactly one succeeds", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("race");
    await exhaustFreeTier(client, namespace);
    const document = await requirementsFor(client, "/v1/store", { content: "x", namespace });
    const payment = paid(await x402For(wallet).createPaymentPayload(document));
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => client.request("POST", "/v1/store", { content: `racer ${i} ${crypto.randomUUID()}`, namespace }, payment)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402, 402, 402, 402, 402, 402, 402]);
    expect(answers.filter((a) => a.status === 402).every((a) => a.body.error === "nonce_already_used")).toBe(true);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
    expect(await count(client, namespace)).toBe(FREE_CALLS + 1);
  });
});

describe("failures never leave work behind", () => {
  test("facilitator down: a clear 402 (not 5xx), nothing stored, nothing charged; works again once it is back", async () => {
    const wallet = new TestWallet();
    const client = payingClient(wallet);
    const namespace = ns("down");
    await exhaustFreeTier(client, namespace);
    await facilitator.stop();
    try {
      const res = await client.post("/v1/store", { content: "while the facilitator is down", namespace });
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("facilitator_unavailable");
      expect(res.body.message).toContain("facilitator");
    } finally {
      facilitator.listen();
    }
    expect(await count(client, namespace)).toBe(FREE_CALLS);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(0);
    const res = await client.post("/v1/store", { content: "after it came back", namespace });
    expect(res.status).toBe(201);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
  });

  test("settlement fails: 402 settlement_failed with the failed receipt, the store call is not applied", async () => {
    const wallet = new TestWallet();
    const client = payingClient(wallet);
    const namespace = ns("nosettle");
    await exhaustFreeTier(client, namespace);
    facilitator.settleFailure = "insufficient_funds";
    try {
      const before = await scrape(service.url);
      const res = await client.post("/v1/store/batch", { memories: [{ content: "one", namespace }, { content: "two", namespace }] });
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("settlement_failed");
      const after = await scrape(service.url);
      expect(value(after, "engram_x402_payments_total", { outcome: "settlement_failed" }) - value(before, "engram_x402_payments_total", { outcome: "settlement_failed" })).toBe(1);
      expect(value(after, "engram_x402_payments_total", { outcome: "settled" }) - value(before, "engram_x402_payments_total", { outcome: "settled" })).toBe(0);
      expect(res.body.message).toContain("nothing stored");
      expect(res.body.accepts[0].maxAmountRequired).toBe("40000");
      expect(decodePaymentResponseHeader(res.headers.get("payment-response")!)).toMatchObject({ success: false, errorReason: "insufficient_funds" });
    } finally {
      facilitator.settleFailure = null;
    }
    expect(await count(client, namespace)).toBe(FREE_CALLS);
    const search = await client.post("/v1/search", { query: "one two", namespace });
    expect(search.body.total).toBe(0);
  });

  test("settlement fails on a PATCH batch: the memory and its history are unchanged", async () => {
    const wallet = new TestWallet();
    const client = payingClient(wallet);
    const namespace = ns("nosettle-patch");
    await exhaustFreeTier(client, namespace);
    const id = (await client.get(`/v1/memories?namespace=${namespace}`)).body.memories[0].id;
    const before = (await client.get(`/v1/memories/${id}`)).body;
    facilitator.settleFailure = "transaction_reverted";
    try {
      const res = await client.patch("/v1/memories/batch", { updates: [{ id, content: "rewritten", importance: 0.99 }] });
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("settlement_failed");
    } finally {
      facilitator.settleFailure = null;
    }
    expect((await client.get(`/v1/memories/${id}`)).body).toEqual(before);
    expect((await client.get(`/v1/memories/${id}/history`)).body.history).toEqual([]);
  });

  test("settlement with no answer (facilitator 503): 402, nothing stored, and the authorization stays spent", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("outage");
    await exhaustFreeTier(client, namespace);
    const body = { content: "The staging server lives in Frankfurt", namespace };
    const payment = paid(await x402For(wallet).createPaymentPayload(await requirementsFor(client, "/v1/store", body)));
    facilitator.settleOutage = true;
    try {
      const res = await client.request("POST", "/v1/store", body, payment);
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("settlement_failed");
    } finally {
      facilitator.settleOutage = false;
    }
    expect(await count(client, namespace)).toBe(FREE_CALLS);
    // the facilitator may have moved the money: the same authorization is not taken again
    const again = await client.request("POST", "/v1/store", body, payment);
    expect(again.status).toBe(402);
    expect(again.body.error).toBe("nonce_already_used");
  });

  test("facilitator unreachable from the start: 402 facilitator_unavailable with nothing to pay", async () => {
    const orphan = await startService(sqliteEngine, { FREE_TIER_CALLS: "0", PAYMENTS: "on", X402_NETWORK: "base-sepolia", X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: "http://127.0.0.1:9" });
    try {
      const res = await new Client(orphan).post("/v1/recall", { query: "anything" });
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ x402Version: 1, error: "facilitator_unavailable", accepts: [] });
    } finally {
      await orphan.stop();
    }
  });

  test("paid ingest with auto_relate: staged writes give the same result as a free call; a failed settlement stores none of it", async () => {
    const messages = [
      { role: "user", content: "My name is Anna and I work at Acme on the billing team. I switched to Helix last month. I no longer use Vim." },
      { role: "assistant", content: "Noted." },
      { role: "user", content: "Also my name is Ana, not Anna. I use Helix with a custom config." },
    ];
    const ingest = async (client: Client, namespace: string) => {
      expect((await client.post("/v1/store", { content: "User uses Vim", namespace })).status).toBe(201);
      return client.post("/v1/ingest", { messages, namespace, auto_relate: true });
    };
    const relationsOf = async (client: Client, ids: string[]) =>
      (await Promise.all(ids.map(async (id) => (await client.get(`/v1/memories/${id}/relations`)).body.relations.length))).reduce((a: number, b: number) => a + b, 0);

    const free = new Client(service, new TestWallet()); // calls 1 and 2 are free
    const freeAnswer = await ingest(free, ns("ingest-free"));
    expect(freeAnswer.status).toBe(201);
    expect(freeAnswer.headers.get("x-free-tier-remaining")).toBe("0");
    expect(freeAnswer.body.relations_created).toBeGreaterThan(0);

    const wallet = new TestWallet();
    const payer = payingClient(wallet);
    await payer.post("/v1/store", { content: "Deployments to production happen on Tuesdays after standup", namespace: ns("filler") });
    const namespace = ns("ingest-paid");
    const paidAnswer = await ingest(payer, namespace); // the store is free (call 2), the ingest is paid
    expect(paidAnswer.status).toBe(201);
    expect(decodePaymentResponseHeader(paidAnswer.headers.get("payment-response")!).success).toBe(true);
    const { memory_ids: freeIds, ...freeRest } = freeAnswer.body;
    const { memory_ids: paidIds, ...paidRest } = paidAnswer.body;
    expect(paidRest).toEqual(freeRest);
    expect(paidIds).toHaveLength(freeIds.length);
    expect(await relationsOf(payer, paidIds)).toBe(await relationsOf(free, freeIds));
    expect(await count(payer, namespace)).toBe(1 + paidIds.length);

    facilitator.settleFailure = "insufficient_funds";
    try {
      const failed = await payer.post("/v1/ingest", { messages, namespace: ns("ingest-unsettled"), auto_relate: true });
      expect(failed.status).toBe(402);
      expect((await payer.get("/v1/stats")).body.total_memories).toBe(2 + paidIds.length);
    } finally {
      facilitator.settleFailure = null;
    }
  });

  test("validation failure is not charged: 422 before any verify or settle, even with a payment attached", async () => {
    const wallet = new TestWallet();
    const client = payingClient(wallet);
    const namespace = ns("invalid");
    await exhaustFreeTier(client, namespace);
    const calls = { ...facilitator.calls };
    const res = await client.post("/v1/store", { content: "", namespace });
    expect(res.status).toBe(422);

    const plain = new Client(service, wallet);
    const document = await requirementsFor(plain, "/v1/store", { content: "x", namespace });
    const payment = paid(await x402For(wallet).createPaymentPayload(document));
    const invalid = await plain.request("POST", "/v1/store", { content: "x".repeat(9000), namespace }, payment);
    expect(invalid.status).toBe(422);
    expect(facilitator.calls.verify).toBe(calls.verify);
    expect(facilitator.calls.settle).toBe(calls.settle);

    // a domain error inside the work (expiry in the past): verified, never settled, and the
    // authorization is given back, so the same payment then pays for a valid call
    const failed = await plain.request("POST", "/v1/store", { content: "expired", namespace, expires_at: "2000-01-01T00:00:00Z" }, payment);
    expect(failed.status).toBe(422);
    expect(facilitator.calls.settle).toBe(calls.settle);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(0);
    const ok = await plain.request("POST", "/v1/store", { content: "valid at last", namespace }, payment);
    expect(ok.status).toBe(201);
    expect(facilitator.settledBy(wallet.address)).toHaveLength(1);
    expect(await count(plain, namespace)).toBe(FREE_CALLS + 1);
  });
});

describe("free tier and free endpoints", () => {
  test("free endpoints ignore payment headers: never verified or settled", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const namespace = ns("free-endpoints");
    await exhaustFreeTier(client, namespace);
    const payment = paid(await x402For(wallet).createPaymentPayload(await requirementsFor(client, "/v1/store", { content: "x", namespace })));
    const calls = { ...facilitator.calls };
    for (const [method, path, body] of [
      ["GET", `/v1/memories?namespace=${namespace}`, undefined],
      ["POST", "/v1/search", { query: "free", namespace }],
      ["GET", "/v1/stats", undefined],
      ["GET", "/v1/free-tier/status", undefined],
    ] as const) {
      const res = await client.request(method, path, body, { ...payment, "X-PAYMENT": "garbage" });
      expect(res.status).toBe(200);
      expect(res.headers.get("payment-response")).toBeNull();
      expect(res.headers.get("x-free-tier-remaining")).toBe("0");
    }
    expect(facilitator.calls).toEqual(calls);
  });

  test("while free calls remain, a paid endpoint takes a free call and ignores an attached payment", async () => {
    const wallet = new TestWallet();
    const client = new Client(service, wallet);
    const other = new Client(service, new TestWallet());
    const namespace = ns("free-first");
    await exhaustFreeTier(other, namespace);
    const document = await requirementsFor(other, "/v1/store", { content: "x", namespace });
    const payment = paid(await x402For(wallet).createPaymentPayload(document));
    const calls = { ...facilitator.calls };
    const res = await client.request("POST", "/v1/store", { content: "free despite payment", namespace: ns("ff") }, payment);
    expect(res.status).toBe(201);
    expect(res.headers.get("x-free-tier-remaining")).toBe(String(FREE_CALLS - 1));
    expect(res.headers.get("payment-response")).toBeNull();
    expect(facilitator.calls).toEqual(calls);
  });

  test("x-free-tier-remaining stays right through free, failed, refused and paid calls", async () => {
    const wallet = new TestWallet();
    const client = payingClient(wallet);
    const namespace = ns("header");
    const seen: string[] = [];
    const note = (res: { headers: Headers }) => seen.push(res.headers.get("x-free-tier-remaining")!);
    note(await client.get("/v1/free-tier/status"));
    note(await client.post("/v1/store", { content: "first", namespace })); // free 1
    note(await client.post("/v1/store", { content: "bad", namespace, expires_at: "2000-01-01T00:00:00Z" })); // fails: given back
    note(await client.post("/v1/store", { content: "second", namespace })); // free 2
    note(await client.post("/v1/store", { content: "third, paid", namespace })); // paid
    note(await client.get("/v1/free-tier/status"));
    expect(seen).toEqual(["2", "1", "1", "0", "0", "0"]);
    const status = await client.get("/v1/free-tier/status");
    expect(status.body).toMatchObject({ free_tier_remaining: 0, free_tier_used: FREE_CALLS, free_tier_total: FREE_CALLS });
  });
});

describe("configuration", () => {
  const base = { DATA_DIR: "/tmp/engram-config-test" };

  test("payments are off by default: a fresh machine starts with no configuration", () => {
    const config = loadConfig(base);
    expect(config.PAYMENTS).toBe("off");
    expect(config.X402_NETWORK).toBe("base");
  });

  test("PAYMENTS=on without payTo or facilitator is refused at start-up with a clear message", () => {
    expect(() => loadConfig({ ...base, PAYMENTS: "on" })).toThrow(ConfigError);
    try {
      loadConfig({ ...base, PAYMENTS: "on" });
    } catch (error) {
      expect((error as Error).message).toContain("X402_PAY_TO: required when PAYMENTS=on");
      expect((error as Error).message).toContain("X402_FACILITATOR_URL: required when PAYMENTS=on");
    }
    expect(() => loadConfig({ ...base, PAYMENTS: "yes" })).toThrow(/PAYMENTS/);
    expect(() => loadConfig({ ...base, X402_NETWORK: "mainnet" })).toThrow(/X402_NETWORK/);
    expect(() => loadConfig({ ...base, PAYMENTS: "on", X402_PAY_TO: "0x" + "0".repeat(40), X402_FACILITATOR_URL: "http://f" })).toThrow(/zero address/);
  });

  test("price overrides are validated: USDC with at most 6 decimals, more than 0", () => {
    expect(loadConfig({ ...base, X402_PRICE_RECALL: "0.001" }).X402_PRICE_RECALL).toBe("0.001");
    expect(() => loadConfig({ ...base, X402_PRICE_RECALL: "0.0000001" })).toThrow(/X402_PRICE_RECALL/);
    expect(() => loadConfig({ ...base, X402_PRICE_STORE: "0" })).toThrow(/X402_PRICE_STORE.*more than 0/);
    expect(() => loadConfig({ ...base, X402_PRICE_STORE: "$1" })).toThrow(/X402_PRICE_STORE/);
  });

  test("PAYMENTS=off: after the free tier, 402 payments_disabled with nothing to pay", async () => {
    const offline = await startService(sqliteEngine, { FREE_TIER_CALLS: "1" });
    try {
      const client = new Client(offline);
      const before = await scrape(offline.url);
      expect((await client.post("/v1/store", { content: "free" })).status).toBe(201);
      const res = await client.post("/v1/store", { content: "needs payment" });
      expect(res.status).toBe(402);
      const after = await scrape(offline.url);
      expect(value(after, "engram_payment_refusals_total", { reason: "payments_disabled" }) - value(before, "engram_payment_refusals_total", { reason: "payments_disabled" })).toBe(1);
      expect(value(after, "engram_free_tier_calls_total", { outcome: "used" }) - value(before, "engram_free_tier_calls_total", { outcome: "used" })).toBe(1);
      // nothing can be paid, so no x402 v1 body: the service's nested error; the v2 header says the same
      expect(res.body).toEqual({ error: { code: "PAYMENT_REQUIRED", message: expect.stringContaining("PAYMENTS=off"), details: { reason: "payments_disabled", free_tier_total: 1 } } });
      // as the MemoClaw SDKs read it: PaymentRequiredError with code PAYMENT_REQUIRED and the sentence
      const sdk = { status: 402, code: "PAYMENT_REQUIRED", message: res.body.error.message, details: res.body.error.details };
      expect([memoclawTsSdkError(res.status, res.body), memoclawPythonSdkError(res.status, res.body)]).toEqual([sdk, sdk]);
      expect(decodePaymentRequiredHeader(res.headers.get("payment-required")!)).toMatchObject({ x402Version: 2, error: "payments_disabled", accepts: [] });
    } finally {
      await offline.stop();
    }
  });

  test("a configured price override is what the 402 asks and what gets settled", async () => {
    const priced = await startService(sqliteEngine, {
      FREE_TIER_CALLS: "0",
      PAYMENTS: "on",
      X402_NETWORK: "base",
      X402_PAY_TO: PAY_TO,
      X402_FACILITATOR_URL: facilitator.url,
      X402_PRICE_STORE: "0.25",
    });
    try {
      const wallet = new TestWallet();
      const res = await new Client(priced, wallet, wrapFetchWithPayment(fetch, x402For(wallet))).post("/v1/store", { content: "pricier" });
      expect(res.status).toBe(201);
      expect(decodePaymentResponseHeader(res.headers.get("payment-response")!)).toMatchObject({ success: true, network: "eip155:8453" });
      expect(facilitator.settledBy(wallet.address)).toEqual([expect.objectContaining({ network: "eip155:8453", value: "250000" })]);
    } finally {
      await priced.stop();
    }
  });
});
